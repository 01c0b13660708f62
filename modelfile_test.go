package ivm_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// A model written to a file and read back predicts exactly what the original predicts.
func TestModelFileRoundTrip(t *testing.T) {
	for _, c := range []struct{ train, test, noise string }{
		{"class_train_500.csv", "class_test_2000.csv", "probit"},
		{"reg_train_2000.csv", "reg_test_1000.csv", "gaussian"},
		{"ord_train_500.csv", "ord_test_1000.csv", "ordinal"},
		{"semi_train_500.csv", "class_test_2000.csv", "ncnm"},
	} {
		x, y, err := reftest.ReadXY(c.train)
		if err != nil {
			t.Fatal(err)
		}
		xt, _, err := reftest.ReadXY(c.test)
		if err != nil {
			t.Fatal(err)
		}
		_, dim := x.Dims()
		k, err := kern.Parse("rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+"+
			"white(variance=0.1353352832366127)", dim)
		if err != nil {
			t.Fatal(err)
		}
		nm, _ := noise.ByName(c.noise)
		m, err := engine.FitFixed(x, y, k, nm, 50, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		meta := &ivm.ModelMeta{Training: dataset.Provenance{File: c.train, Rows: 500}}
		if err := ivm.WriteModel(&buf, m, meta); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		m2, meta2, err := ivm.ReadModel(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if meta2.Training.File != c.train {
			t.Errorf("provenance %+v", meta2.Training)
		}
		p1, p2 := m.Predict(xt), m2.Predict(xt)
		for i := range p1 {
			if p1[i].Label != p2[i].Label || p1[i].Mean != p2[i].Mean || p1[i].Var != p2[i].Var {
				t.Fatalf("%s test point %d: %+v before, %+v after the round trip",
					c.noise, i, p1[i], p2[i])
			}
		}
		var again bytes.Buffer
		if err := ivm.WriteModel(&again, m2, meta2); err != nil {
			t.Fatal(err)
		}
		if again.String() != text {
			t.Errorf("%s: the model file changed on a second round trip", c.noise)
		}
	}
}

func TestReadModelErrors(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`not json`, "not a readable model file"},
		{`{}`, "no \"format\""},
		{`{"format":"ivm-model/2"}`, "not supported"},
		{`{"format":"svm"}`, "unknown model format"},
		{`{"format":"ivm-model/1"}`, "lacks its kernel"},
	} {
		_, _, err := ivm.ReadModel(strings.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.file, err, c.want)
		}
	}
}

// TestLoadReaderAndBuffer checks that Load reports the same for a reader and for a
// *bytes.Buffer, which it decodes in place, on an empty file, a truncated one and one with
// data after its JSON object.
func TestLoadReaderAndBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, y := blobs(rng, 6, [][]float64{{0, 0}, {2, 2}}, []float64{1, 2}, 0.5)
	p, err := ivm.Fit(x, y, ivm.Config{FixedKernel: true, ActiveSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"whole", "", file},
		{"with white space after", "", append(bytes.Clone(file), " \n\t"...)},
		{"empty", "it is empty", []byte(" \n")},
		{"truncated", "ends early", file[:len(file)/2]},
		{"data after the object", "not a readable model file",
			append(bytes.Clone(file), `{"format":"x"}`...)},
		{"garbage after the object", "not a readable model file",
			append(bytes.Clone(file), "garbage"...)},
	} {
		for _, r := range []struct {
			kind string
			r    io.Reader
		}{{"reader", bytes.NewReader(c.data)}, {"buffer", bytes.NewBuffer(bytes.Clone(c.data))}} {
			got, err := ivm.Load(r.r)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s from a %s: %v", c.name, r.kind, err)
			case c.want == "" && got.InputDim() != 2:
				t.Errorf("%s from a %s: %d inputs, want 2", c.name, r.kind, got.InputDim())
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s from a %s: error %v, want one saying %q", c.name, r.kind, err, c.want)
			}
		}
	}
}
