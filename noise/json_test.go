package noise

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestByName(t *testing.T) {
	for _, name := range []string{"probit", "gaussian", "ordinal", "ncnm"} {
		m, err := ByName(name)
		if err != nil || m.Name() != name {
			t.Errorf("ByName(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := ByName("logit"); err == nil || !strings.Contains(err.Error(), `"logit"`) {
		t.Errorf("ByName(logit) error %v", err)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	models := []Model{
		&Probit{Bias: -0.090361437129258648},
		&Probit{Bias: 1e-300},
		&Gaussian{Bias: -0.002050536988481135, Variance: 9.9999999999999995e-07},
		&Gaussian{Bias: 3, Variance: 0.1, Precision: []float64{1, 2.5, 1e-7}},
		&Ordinal{Bias: 1.6899999999999999, Widths: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		&Ordinal{Bias: -0.1, Widths: []float64{math.Pi}},
		&NullCategory{Bias: -0.044776176695516243, GammaNeg: 0.888, GammaPos: 0.888},
		&NullCategory{Bias: 0.3, GammaNeg: 0.1, GammaPos: 0.7, Split: true},
	}
	for _, m := range models {
		data, err := Marshal(m)
		if err != nil {
			t.Errorf("Marshal(%+v): %v", m, err)
			continue
		}
		back, err := Unmarshal(data)
		if err != nil {
			t.Errorf("Unmarshal(%s): %v", data, err)
			continue
		}
		if !reflect.DeepEqual(back, m) {
			t.Errorf("round trip of %s: got %+v, want %+v", data, back, m)
		}
		again, _ := Marshal(back)
		if string(again) != string(data) {
			t.Errorf("re-encoding differs: %s vs %s", again, data)
		}
	}
}

func TestJSONFormat(t *testing.T) {
	tests := []struct {
		m    Model
		want string
	}{
		{&Probit{Bias: -0.5}, `{"type":"probit","bias":-0.5}`},
		{&Gaussian{Bias: 1, Variance: 1e-6}, `{"type":"gaussian","bias":1,"variance":0.000001}`},
		{&Gaussian{Bias: 1, Variance: 2, Precision: []float64{3, 4}},
			`{"type":"gaussian","bias":1,"variance":2,"precision":[3,4]}`},
		{&Ordinal{Bias: 2, Widths: []float64{0.5, 0.25}},
			`{"type":"ordinal","C":4,"bias":2,"width1":0.5,"width2":0.25}`},
		{&NullCategory{Bias: 0, GammaNeg: 0.5, GammaPos: 0.5},
			`{"type":"ncnm","bias":0,"gamma":0.5}`},
		{&NullCategory{Bias: 0, GammaNeg: 0.25, GammaPos: 0.5, Split: true},
			`{"type":"ncnm","bias":0,"gammaneg":0.25,"gammapos":0.5}`},
	}
	for _, tt := range tests {
		got, err := Marshal(tt.m)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.m, got, err, tt.want)
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		m    Model
		want string
	}{
		{"NaN bias", &Probit{Bias: math.NaN()}, "NaN"},
		{"Inf variance", &Gaussian{Variance: math.Inf(1)}, "+Inf"},
		{"Inf precision", &Gaussian{Variance: 1, Precision: []float64{1, math.Inf(1)}},
			"precision 1"},
		{"NaN width", &Ordinal{Widths: []float64{1, math.NaN()}}, "width2"},
		{"unequal shared gamma", &NullCategory{GammaNeg: 0.2, GammaPos: 0.3}, "Split"},
		{"foreign model", &foreign{}, "cannot encode"},
	}
	for _, tt := range tests {
		_, err := Marshal(tt.m)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Marshal error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// foreign is a Model from outside the package.
type foreign struct{ Probit }

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1]`, "decoding"},
		{`{"bias":1}`, `no "type"`},
		{`{"type":3}`, "type"},
		{`{"type":"logit","bias":1}`, `unknown noise model "logit"`},
		{`{"type":"probit"}`, `no parameter "bias"`},
		{`{"type":"probit","bias":"x"}`, `"bias"`},
		{`{"type":"probit","bias":1e999}`, `"bias"`},
		{`{"type":"probit","bias":1,"slope":2}`, `unknown field(s) "slope"`},
		{`{"type":"gaussian","bias":1,"variance":-1}`, "variance"},
		{`{"type":"gaussian","bias":1,"variance":1,"precision":[1,0]}`, "precision 1"},
		{`{"type":"ordinal","bias":1,"width1":1}`, `no "C"`},
		{`{"type":"ordinal","C":2,"bias":1}`, "C = 2"},
		{`{"type":"ordinal","C":3.5,"bias":1,"width1":1}`, "C = 3.5"},
		{`{"type":"ordinal","C":4,"bias":1,"width1":1}`, `no parameter "width2"`},
		{`{"type":"ordinal","C":3,"bias":1,"width1":0}`, "width1"},
		{`{"type":"ncnm","bias":1,"gamma":1.5}`, "gamma"},
		{`{"type":"ncnm","bias":1,"gammaneg":0.5}`, `no parameter "gammapos"`},
		{`{"type":"ncnm","bias":1,"gamma":0.5,"gammapos":0.5}`, `no parameter "gammaneg"`},
	}
	for _, tt := range tests {
		_, err := Unmarshal([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s) error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

func ExampleMarshal() {
	m := NewOrdinal()
	if err := m.Init([]float64{0, 1, 2, 3, 3, 1}); err != nil {
		panic(err)
	}
	data, err := Marshal(m)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(data))
	back, err := Unmarshal(data)
	if err != nil {
		panic(err)
	}
	fmt.Println(back.Name(), back.ParamNames())
	// Output:
	// {"type":"ordinal","C":4,"bias":1.6666666666666667,"width1":0.5,"width2":0.5}
	// ordinal [bias width1 width2]
}
