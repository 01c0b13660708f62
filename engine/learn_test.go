package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/param"
)

const refKernelSpec = "rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+" +
	"white(variance=0.1353352832366127)"

func refSelector(t *testing.T, data, nm string, d int) (*Selector, *kern.Sum) {
	t.Helper()
	x, y, err := reftest.ReadXY(data)
	if err != nil {
		t.Fatal(err)
	}
	_, dim := x.Dims()
	k, err := kern.Parse(refKernelSpec, dim)
	if err != nil {
		t.Fatal(err)
	}
	model, err := noise.ByName(nm)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSelector(x, y, k, model, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(d); err != nil {
		t.Fatal(err)
	}
	return s, k
}

// The reference's kernel objective and its gradient with respect to the log parameters on
// class500_d100_fixed (summary keys kernel_objective, kernel_objective_grad_wrt_transformed).
func TestReferenceKernelObjectiveAndGradient(t *testing.T) {
	for _, run := range []struct{ name, data, noise string }{
		{"class500_d100_fixed", "class_train_500.csv", "probit"},
		{"class5000_d200_fixed", "class_train_5000.csv", "probit"},
		{"reg2000_d100_fixed", "reg_train_2000.csv", "gaussian"},
		{"ord500_d100_fixed", "ord_train_500.csv", "ordinal"},
	} {
		sum, err := reftest.ReadSummary(run.name)
		if err != nil {
			t.Fatal(err)
		}
		wantF, _ := reftest.Floats(sum["kernel_objective"])
		wantG, _ := reftest.Floats(sum["kernel_objective_grad_wrt_transformed"])
		d, _ := reftest.Floats(sum["d"])
		s, k := refSelector(t, run.data, run.noise, int(d[0]))
		k.SetPositiveTransform(param.Exp{})
		p := NewKernelObjective(k, []*Selector{s}, ObjectiveOptions{Kind: FixedSites})
		x := make([]float64, k.NumFree())
		k.Free(x)
		g := make([]float64, len(x))
		f := p.Eval(x, g)
		if math.Abs(f-wantF[0]) > 1e-8*math.Abs(wantF[0]) {
			t.Errorf("%s: objective %.15g, reference %.15g", run.name, f, wantF[0])
		}
		for i := range g {
			if math.Abs(g[i]-wantG[i]) > 1e-8*math.Max(1, math.Abs(wantG[i])) {
				t.Errorf("%s: gradient %s = %.15g, reference %.15g", run.name, k.FreeNames()[i],
					g[i], wantG[i])
			}
		}
	}
}

// Both objectives' gradients agree with central finite differences (EP converged tightly,
// where its gradient is exact), with and without priors, for every noise model.
func TestObjectiveGradients(t *testing.T) {
	for _, c := range []struct {
		data, noise string
		obj         Objective
	}{
		{"class_train_500.csv", "probit", EPEvidence},
		{"class_train_500.csv", "probit", FullData},
		{"class_train_500.csv", "probit", FixedSites},
		{"ord_train_500.csv", "ordinal", FullData},
		{"reg_train_2000.csv", "gaussian", FullData},
		{"semi_train_500.csv", "ncnm", FullData},
		{"ord_train_500.csv", "ordinal", EPEvidence},
		{"reg_train_2000.csv", "gaussian", EPEvidence},
		{"semi_train_500.csv", "ncnm", EPEvidence},
	} {
		s, k := refSelector(t, c.data, c.noise, 40)
		priors, err := FreePriors(k, map[string]Prior{"rbf.variance": GammaPrior{2, 1},
			"white.variance": ExponentialPrior{3}})
		if err != nil {
			t.Fatal(err)
		}
		p := NewKernelObjective(k, []*Selector{s}, ObjectiveOptions{Kind: c.obj, Priors: priors,
			HeldOut: 150, Rand: rand.New(rand.NewPCG(1, 2))})
		if ep := p.terms[0].ep; ep != nil {
			ep.Tol = 1e-10 // the EP gradient is exact at the fixed point: converge tightly
		}
		x := make([]float64, k.NumFree())
		k.Free(x)
		x[0] += 0.3 // away from the selection's kernel, where the EP sites must move
		g := make([]float64, len(x))
		f := p.Eval(x, g)
		if math.IsNaN(f) {
			t.Fatalf("%s %v: objective NaN", c.noise, c.obj)
		}
		checkFD(t, fmt.Sprintf("%s %v", c.noise, c.obj), k.FreeNames(), p.Eval, x, g, 1e-5)
	}
}

// The noise objective of eq. 34 (−Σ ln Z_n over all points at the posterior) and its
// gradient with respect to the transformed noise parameters agree with finite differences.
func TestNoiseObjectiveGradient(t *testing.T) {
	for _, c := range []struct{ data, noise string }{
		{"class_train_500.csv", "probit"},
		{"ord_train_500.csv", "ordinal"},
		{"reg_train_2000.csv", "gaussian"},
		{"semi_train_500.csv", "ncnm"},
	} {
		s, k := refSelector(t, c.data, c.noise, 30)
		p, err := NewNoiseObjective([]*Selector{s}, k.PositiveTransform(), NoiseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		x, err := p.Free()
		if err != nil {
			t.Fatal(err)
		}
		for i := range x {
			x[i] += 0.1 * float64(i+1) // away from the start-up values
		}
		g := make([]float64, len(x))
		if f := p.Eval(x, g); math.IsNaN(f) {
			t.Fatalf("%s: objective NaN", c.noise)
		}
		checkFD(t, c.noise, s.Noise.ParamNames(), p.Eval, x, g, 1e-6)
	}
}

// Noise-parameter learning lowers the noise objective and moves the ordinal widths away from
// their start-up values (the ordinal test error is checked in reproduce's TestRefOptQuick).
func TestNoiseLearningOrdinal(t *testing.T) {
	x, y, err := reftest.ReadXY("ord_train_500.csv")
	if err != nil {
		t.Fatal(err)
	}
	k, _ := kern.Parse(refKernelSpec, 1)
	nm := noise.NewOrdinal()
	var trace []IterTrace
	_, res, err := Learn(x, y, k, nm, LearnOptions{ActiveSize: 100, Iters: 2, NoiseIters: 100,
		Criterion: ExpectedEntropy, Progress: func(tr IterTrace) { trace = append(trace, tr) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace) == 0 || !(trace[0].NoiseAfter < trace[0].NoiseBefore) ||
		trace[0].NoiseSteps == 0 {
		t.Fatalf("noise objective did not improve: %+v", trace[0])
	}
	moved := false
	for _, w := range nm.Widths {
		if math.Abs(w-1.0/3) > 1e-3 {
			moved = true
		}
	}
	if !moved {
		t.Errorf("widths %v did not move from 1/3", nm.Widths)
	}
}

// checkFD compares the gradient g of f at x with central differences of step h.
func checkFD(t *testing.T, what string, names []string, f func(x, grad []float64) float64,
	x, g []float64, h float64) {
	t.Helper()
	for i := range x {
		xp := append([]float64(nil), x...)
		xp[i] += h
		fp := f(xp, nil)
		xp[i] -= 2 * h
		fm := f(xp, nil)
		fd := (fp - fm) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s: ∂f/∂%s = %v, finite difference %v", what, names[i], g[i], fd)
		}
	}
}
