package noise

import (
	"bufio"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/param"
)

// Compile-time checks of the interfaces.
var (
	_ Model     = (*Probit)(nil)
	_ Model     = (*Gaussian)(nil)
	_ Model     = (*Ordinal)(nil)
	_ Model     = (*NullCategory)(nil)
	_ ExactSite = (*Gaussian)(nil)
)

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want) || got == want
}

func TestInitConventions(t *testing.T) {
	tests := []struct {
		name   string
		model  Model
		y      []float64
		params []float64
	}{
		{"probit 3:1", NewProbit(), []float64{1, 1, -1, 1}, []float64{0.6744897501960817}},
		{"probit 1:1", NewProbit(), []float64{1, -1}, []float64{0}},
		{"gaussian", NewGaussian(0), []float64{1, 2, 4.5}, []float64{2.5, GaussianVariance}},
		{"gaussian keeps variance", NewGaussian(0.3), []float64{-1, 1}, []float64{0, 0.3}},
		{"ordinal C=5", NewOrdinal(), []float64{0, 4, 2, 2, 1},
			[]float64{1.8, 1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"ordinal C=3", NewOrdinal(), []float64{2, 0, 1, 0}, []float64{0.75, 1}},
		// 27 of 56 labelled points positive: the reference's semi500 bias −0.044776176695516243.
		{"ncnm", NewNullCategory(),
			append(append(repeat(1, 27), repeat(-1, 29)...), repeat(0, 444)...),
			[]float64{-0.044776176695516243, 0.888}},
		{"ncnm split", &NullCategory{Split: true}, []float64{1, -1, -1, 0},
			[]float64{-0.4307272992954576, 0.25, 0.25}},
		// ZeroBias: the papers' likelihoods, no bias whatever the class balance; a bias
		// left from an earlier Init is reset.
		{"probit zero bias", &Probit{ZeroBias: true, Bias: 0.3}, []float64{1, 1, -1, 1},
			[]float64{0}},
		{"ncnm zero bias", &NullCategory{ZeroBias: true, Bias: -1}, []float64{1, -1, -1, 0},
			[]float64{0, 0.25}},
	}
	for _, tt := range tests {
		if err := tt.model.Init(tt.y); err != nil {
			t.Errorf("%s: Init: %v", tt.name, err)
			continue
		}
		got := make([]float64, tt.model.NumParams())
		tt.model.Params(got)
		if len(got) != len(tt.params) {
			t.Errorf("%s: params %v, want %v", tt.name, got, tt.params)
			continue
		}
		for i := range got {
			if !near(got[i], tt.params[i], 1e-15) {
				t.Errorf("%s: %s = %.17g, want %.17g",
					tt.name, tt.model.ParamNames()[i], got[i], tt.params[i])
			}
		}
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestInitErrors(t *testing.T) {
	tests := []struct {
		name  string
		model Model
		y     []float64
		want  string // a fragment of the error
	}{
		{"probit 0", NewProbit(), []float64{1, 0, -1}, "y[1] = 0"},
		{"probit 2", NewProbit(), []float64{1, -1, 2}, "y[2] = 2"},
		{"probit NaN", NewProbit(), []float64{math.NaN(), 1, -1}, "y[0] = NaN"},
		{"probit one class", NewProbit(), []float64{1, 1}, "both classes"},
		{"probit empty", NewProbit(), nil, "both classes"},
		{"gaussian NaN", NewGaussian(0), []float64{1, math.NaN()}, "y[1] = NaN"},
		{"gaussian Inf", NewGaussian(0), []float64{math.Inf(1)}, "y[0] = +Inf"},
		{"gaussian empty", NewGaussian(0), nil, "at least one"},
		{"gaussian precisions", &Gaussian{Precision: []float64{1}}, []float64{1, 2},
			"1 precisions for 2 targets"},
		{"gaussian bad precision", &Gaussian{Precision: []float64{1, -2}}, []float64{1, 2},
			"precision 1 = -2"},
		{"gaussian bad variance", NewGaussian(-1), []float64{1}, "variance"},
		{"ordinal fraction", NewOrdinal(), []float64{0, 1.5, 2}, "y[1] = 1.5"},
		{"ordinal negative", NewOrdinal(), []float64{0, -1, 2}, "y[1] = -1"},
		{"ordinal two", NewOrdinal(), []float64{0, 1, 1}, "use the probit model"},
		{"ordinal one", NewOrdinal(), []float64{0, 0}, "all 0"},
		{"ordinal huge", NewOrdinal(), []float64{0, 1e9}, "y[1] = 1e+09"},
		{"ncnm 2", NewNullCategory(), []float64{1, -1, 0, 2}, "y[3] = 2"},
		{"ncnm no unlabelled", NewNullCategory(), []float64{1, -1}, "no unlabelled"},
		{"ncnm one class", NewNullCategory(), []float64{1, 0, 0}, "both classes"},
	}
	for _, tt := range tests {
		err := tt.model.Init(tt.y)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Init error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestSetParamsValidation(t *testing.T) {
	ord := &Ordinal{Widths: []float64{0.5, 0.5}}
	tests := []struct {
		name  string
		model Model
		src   []float64
		ok    bool
	}{
		{"probit", NewProbit(), []float64{0.3}, true},
		{"probit length", NewProbit(), []float64{0.3, 1}, false},
		{"probit NaN", NewProbit(), []float64{math.NaN()}, false},
		{"gaussian", NewGaussian(0), []float64{1, 0.2}, true},
		{"gaussian zero variance", NewGaussian(0), []float64{1, 0}, false},
		{"gaussian Inf bias", NewGaussian(0), []float64{math.Inf(-1), 1}, false},
		{"ordinal", ord, []float64{1, 0.2, 3}, true},
		{"ordinal width", ord, []float64{1, 0.2, -3}, false},
		{"ordinal length", ord, []float64{1, 0.2}, false},
		{"ncnm", NewNullCategory(), []float64{0.1, 0.5}, true},
		{"ncnm gamma 1", NewNullCategory(), []float64{0.1, 1}, false},
		{"ncnm gamma 0", NewNullCategory(), []float64{0.1, 0}, false},
		{"ncnm split", &NullCategory{Split: true}, []float64{0.1, 0.2, 0.9}, true},
		{"ncnm split length", &NullCategory{Split: true}, []float64{0.1, 0.2}, false},
	}
	for _, tt := range tests {
		before := make([]float64, tt.model.NumParams())
		tt.model.Params(before)
		err := tt.model.SetParams(tt.src)
		if (err == nil) != tt.ok {
			t.Errorf("%s: SetParams(%v) error %v, want ok=%v", tt.name, tt.src, err, tt.ok)
			continue
		}
		after := make([]float64, tt.model.NumParams())
		tt.model.Params(after)
		if tt.ok && !reflect.DeepEqual(after, tt.src) {
			t.Errorf("%s: Params after SetParams(%v) = %v", tt.name, tt.src, after)
		}
		if !tt.ok && !reflect.DeepEqual(after, before) {
			t.Errorf("%s: failed SetParams changed the parameters from %v to %v",
				tt.name, before, after)
		}
	}
}

func TestParamMetadata(t *testing.T) {
	tests := []struct {
		model Model
		names []string
		kinds []param.Kind
	}{
		{NewProbit(), []string{"bias"}, []param.Kind{param.Real}},
		{NewGaussian(0), []string{"bias", "variance"}, []param.Kind{param.Real, param.Positive}},
		{&Ordinal{Widths: []float64{1, 1, 1}}, []string{"bias", "width1", "width2", "width3"},
			[]param.Kind{param.Real, param.Positive, param.Positive, param.Positive}},
		{NewNullCategory(), []string{"bias", "gamma"}, []param.Kind{param.Real, param.Unit}},
		{&NullCategory{Split: true}, []string{"bias", "gammaneg", "gammapos"},
			[]param.Kind{param.Real, param.Unit, param.Unit}},
	}
	for _, tt := range tests {
		if got := tt.model.ParamNames(); !reflect.DeepEqual(got, tt.names) ||
			tt.model.NumParams() != len(got) {
			t.Errorf("%s: ParamNames %v (NumParams %d), want %v",
				tt.model.Name(), got, tt.model.NumParams(), tt.names)
		}
		if got := tt.model.ParamKinds(); !reflect.DeepEqual(got, tt.kinds) {
			t.Errorf("%s: ParamKinds %v, want %v", tt.model.Name(), got, tt.kinds)
		}
	}
}

func TestPredict(t *testing.T) {
	ord := &Ordinal{Bias: 1, Widths: []float64{0.5, 1}} // thresholds 0, 0.5, 1.5
	tests := []struct {
		name    string
		model   Model
		mu, vs  float64
		label   float64
		mean    float64
		vr      float64
		prob    []float64
		classes []float64
	}{
		{"probit +", &Probit{Bias: 0.5}, 0.5, 1 - ProbitVariance, 1, 1, 1 - ProbitVariance,
			[]float64{0.15865525393145705, 0.8413447460685429}, []float64{-1, 1}},
		{"probit -", &Probit{Bias: 0.5}, -1.5, 3, -1, -1, 3,
			[]float64{0.71814853667967809, 0.28185146332032191}, []float64{-1, 1}},
		{"probit tie", &Probit{Bias: 0.5}, -0.5, 1, 1, 0, 1, []float64{0.5, 0.5}, []float64{-1, 1}},
		{"probit far", &Probit{}, -40, 1 - ProbitVariance, -1, -40, 1 - ProbitVariance,
			[]float64{1, 3.655893540915e-350}, []float64{-1, 1}},
		{"ncnm", &NullCategory{Bias: -1, GammaNeg: 0.5, GammaPos: 0.5},
			2, 1 - NullVariance, 1, 1, 1 - NullVariance,
			[]float64{0.15865525393145705, 0.8413447460685429}, []float64{-1, 1}},
		{"gaussian", &Gaussian{Bias: 2, Variance: 0.25}, 1, 0.5, 3, 3, 0.75, nil, nil},
		// μ' = 0.7: above 0 and 0.5, below 1.5 → category 2. c = 1/√(0.1 + 0.9) = 1.
		{"ordinal", ord, -0.3, 0.9, 2, 0.7, 0.9,
			[]float64{0.24196365222307303, 0.17877663833782397,
				0.36740431085570633, 0.21185539858339667},
			[]float64{0, 1, 2, 3}},
		{"ordinal low", ord, -5, 0.9, 0, -4, 0.9,
			[]float64{0.99996832875816688, 2.8273568708389861e-05,
				3.3786835622641727e-06, 1.8989562465887719e-08},
			[]float64{0, 1, 2, 3}},
		{"ordinal on threshold", ord, -0.5, 0.9, 1, 0.5, 0.9, nil, []float64{0, 1, 2, 3}},
	}
	// Probabilities from mpmath (50 digits).
	for _, tt := range tests {
		var p Prediction
		p.Prob = make([]float64, 1, 8) // reused when large enough
		tt.model.Predict(&p, tt.mu, tt.vs)
		if p.Label != tt.label || !near(p.Mean, tt.mean, 1e-15) || !near(p.Var, tt.vr, 1e-15) {
			t.Errorf("%s: label %v mean %v var %v, want %v %v %v",
				tt.name, p.Label, p.Mean, p.Var, tt.label, tt.mean, tt.vr)
		}
		if tt.prob != nil {
			if len(p.Prob) != len(tt.prob) {
				t.Errorf("%s: Prob %v, want %v", tt.name, p.Prob, tt.prob)
			}
			for i := range tt.prob {
				if i < len(p.Prob) && !near(p.Prob[i], tt.prob[i], 1e-12) &&
					math.Abs(p.Prob[i]-tt.prob[i]) > 1e-300 {
					t.Errorf("%s: Prob[%d] = %.17g, want %.17g", tt.name, i, p.Prob[i], tt.prob[i])
				}
			}
		}
		if tt.classes == nil && p.Prob != nil {
			t.Errorf("%s: Prob %v, want nil for regression", tt.name, p.Prob)
		}
		if got := tt.model.Classes(); !reflect.DeepEqual(got, tt.classes) {
			t.Errorf("%s: Classes %v, want %v", tt.name, got, tt.classes)
		}
		if tt.classes != nil && cap(p.Prob) != 8 {
			t.Errorf("%s: Predict did not reuse p.Prob", tt.name)
		}
	}
}

func TestGaussianSite(t *testing.T) {
	m := &Gaussian{Bias: 0.5, Variance: 0.01}
	if mean, beta := m.Site(0, 2); mean != 1.5 || beta != 100 {
		t.Errorf("Site = %v, %v; want 1.5, 100", mean, beta)
	}
	m.Precision = []float64{3, 7}
	if mean, beta := m.Site(1, -1); mean != -1.5 || beta != 7 {
		t.Errorf("Site with precisions = %v, %v; want -1.5, 7", mean, beta)
	}
	// The site reproduces the moments: ν = 1/(1/β + ς), g = ν(m − μ).
	_, g, nu := m.Moments(1, -1, 0.2, 0.4)
	if want := 1 / (1.0/7 + 0.4); !near(nu, want, 1e-15) || !near(g, want*(-1.5-0.2), 1e-15) {
		t.Errorf("Moments = g %v ν %v", g, nu)
	}
}

// TestProbitGolden compares the probit model with ln Z, g, ν computed directly by mpmath
// (testdata/probit_golden.csv, written by testdata/gen_probit_golden.py).
func TestProbitGolden(t *testing.T) {
	f, err := os.Open("testdata/probit_golden.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		var v [7]float64
		for i, s := range strings.Split(sc.Text(), ",") {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		m := &Probit{Bias: v[3]}
		logZ, g, nu := m.Moments(0, v[0], v[1], v[2])
		want := []float64{v[4], v[5], math.Max(v[6], Eps)}
		for i, got := range []float64{logZ, g, nu} {
			if !near(got, want[i], 1e-12) && math.Abs(got-want[i]) > 1e-300 {
				t.Errorf("y=%v μ=%v ς=%v b=%v: %s = %.17g, mpmath %.17g", v[0], v[1], v[2], v[3],
					[]string{"ln Z", "g", "ν"}[i], got, want[i])
			}
		}
		rows++
	}
	if rows < 80 {
		t.Errorf("only %d golden rows", rows)
	}
}
