package ivm

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// weakBinary returns n rows of 5 uniform inputs whose label depends on the first alone,
// p(y = 1) = Φ(effect·x₀); effect 0 is labels with no signal at all.
func weakBinary(rng *rand.Rand, n int, effect float64) (*mat.Dense, []float64) {
	x := mat.NewDense(n, 5, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range 5 {
			x.Set(i, j, 2*rng.Float64()-1)
		}
		if rng.Float64() < 0.5*math.Erfc(-effect*x.At(i, 0)/math.Sqrt2) {
			y[i] = 1
		}
	}
	return x, y
}

// testLogLoss is the mean −ln p(label) of p's predictions at x.
func testLogLoss(t *testing.T, p *Predictor, x *mat.Dense, y []float64) float64 {
	t.Helper()
	preds, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	loss := 0.0
	for i, pr := range preds {
		loss -= math.Log(pr.Prob[int(y[i])])
	}
	return loss / float64(len(y))
}

// TestBaselineWeakLinear: on labels whose only signal is a weak linear effect of one input,
// the default model must beat the constant predictor on test rows (the probit IVM's
// search does not, so Fit widens to a projected model of every row), and say so in its
// Baseline; with no signal at all it must be the constant predictor and warn.
func TestBaselineWeakLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two models of 1 200 rows")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name   string
		effect float64
		beaten bool
	}{{"weak linear effect", 0.85, true}, {"no signal", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			x, y := weakBinary(rng, 1200, c.effect)
			xt, yt := weakBinary(rng, 4000, c.effect)
			p, err := Fit(x, y, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Baseline == nil || p.Baseline.Beaten() != c.beaten {
				t.Fatalf("Baseline %+v, want beaten %v", p.Baseline, c.beaten)
			}
			pos := 0.0
			for _, v := range y {
				pos += v
			}
			q := (pos + 1) / (float64(len(y)) + 2)
			prior := 0.0
			for _, v := range yt {
				prior -= math.Log(v*q + (1-v)*(1-q))
			}
			prior /= float64(len(yt))
			got := testLogLoss(t, p, xt, yt)
			warned := strings.Contains(strings.Join(p.Warnings, "\n"), "constant predictor")
			switch {
			case c.beaten && got > prior-0.02:
				t.Errorf("test log loss %.4f, want well below the constant predictor's %.4f",
					got, prior)
			case !c.beaten && math.Abs(got-prior) > 1e-9:
				t.Errorf("test log loss %.4f, want the constant predictor's %.4f", got, prior)
			case !c.beaten && !warned:
				t.Errorf("no warning about the constant predictor: %q", p.Warnings)
			}
			if back, _ := reloaded(t, p, xt); back.Baseline == nil ||
				*back.Baseline != *p.Baseline {
				t.Errorf("Baseline %+v after Save and Load, want %+v", back.Baseline, p.Baseline)
			}
		})
	}
}

// TestProjectedBinary: above ovoMaxRows rows a binary task is a projected model of every
// row, which beats the constant predictor and round-trips through a file.
func TestProjectedBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model of 6 000 rows")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := weakBinary(rng, ovoMaxRows+1000, 1.5)
	xt, yt := weakBinary(rng, 2000, 1.5)
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if asProjected(p) == nil || p.Task != Binary || !p.Baseline.Beaten() {
		t.Fatalf("Fit made task %v, projected %v, baseline %+v",
			p.Task, asProjected(p) != nil, p.Baseline)
	}
	reloaded(t, p, xt)
	if got := testLogLoss(t, p, xt, yt); got > 0.6 {
		t.Errorf("test log loss %.4f, want below 0.6", got)
	}
}

// smoothRegression returns n rows of 3 uniform inputs and targets sin(2x₀) + x₁ plus
// Gaussian noise of standard deviation 0.3; with signal false, the noise alone.
func smoothRegression(rng *rand.Rand, n int, signal bool) (*mat.Dense, []float64) {
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range 3 {
			x.Set(i, j, 2*rng.Float64()-1)
		}
		y[i] = 5 + 0.3*rng.NormFloat64()
		if signal {
			y[i] += math.Sin(2*x.At(i, 0)) + x.At(i, 1)
		}
	}
	return x, y
}

// TestProjectedRegression: above ovoMaxRows rows a regression is a projected model of every
// row whose test error is near the noise's, whose 95 % intervals cover about 95 % of the
// test targets, and which round-trips through a file; with no signal it is the constant
// predictor, and says so.
func TestProjectedRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two models of 6 000 rows")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, signal := range []bool{true, false} {
		x, y := smoothRegression(rng, ovoMaxRows+1000, signal)
		xt, yt := smoothRegression(rng, 2000, signal)
		p, err := Fit(x, y, Config{Task: Regression})
		if err != nil {
			t.Fatal(err)
		}
		if asProjected(p) == nil || p.Baseline.Beaten() != signal {
			t.Fatalf("signal %v: projected %v, baseline %+v",
				signal, asProjected(p) != nil, p.Baseline)
		}
		back, _ := reloaded(t, p, xt)
		preds, err := back.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		before, err := p.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range preds {
			if q.Mean != before[i].Mean || q.Var != before[i].Var {
				t.Fatalf("row %d: %v, %v after Load, %v, %v before",
					i, q.Mean, q.Var, before[i].Mean, before[i].Var)
			}
		}
		mse, covered := 0.0, 0
		for i, q := range preds {
			r := yt[i] - q.Mean
			mse += r * r / float64(len(yt))
			if math.Abs(r) <= 1.96*math.Sqrt(q.Var) {
				covered++
			}
		}
		cover := float64(covered) / float64(len(yt))
		switch {
		case mse > 0.09*1.15:
			t.Errorf("signal %v: test MSE %.4f, want near the noise variance 0.09", signal, mse)
		case cover < 0.93 || cover > 0.98:
			t.Errorf("signal %v: 95 %% intervals cover %.3f of the test targets", signal, cover)
		case !signal && !strings.Contains(strings.Join(p.Warnings, "\n"), "constant predictor"):
			t.Errorf("no signal: warnings %q, want the constant predictor's", p.Warnings)
		}
	}
}
