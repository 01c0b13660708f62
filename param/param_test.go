package param

import (
	"math"
	"testing"
)

// Forward and Inverse are inverses, and Factor is dθ/dx (checked by central differences).
func TestTransforms(t *testing.T) {
	for _, tr := range []Transform{Softplus{}, Exp{}, Sigmoid{}, Identity{}} {
		xs := []float64{-30, -5, -1, -1e-3, 0, 1e-3, 0.5, 2, 10, 30}
		if tr.Name() == "sigmoid" {
			// θ = 1 − ε near saturation holds only −log₁₀ε digits of x: test the
			// well-posed range.
			xs = []float64{-30, -5, -1, -1e-3, 0, 1e-3, 0.5, 2, 5}
		}
		for _, x := range xs {
			theta := tr.Forward(x)
			back, err := tr.Inverse(theta)
			if err != nil {
				t.Fatalf("%s: Inverse(Forward(%v) = %v): %v", tr.Name(), x, theta, err)
			}
			if math.Abs(back-x) > 1e-9*math.Max(1, math.Abs(x)) {
				t.Errorf("%s: Inverse(Forward(%v)) = %v", tr.Name(), x, back)
			}
			const h = 1e-6
			fd := (tr.Forward(x+h) - tr.Forward(x-h)) / (2 * h)
			if f := tr.Factor(theta); math.Abs(f-fd) > 1e-6*math.Max(1e-6, math.Abs(fd)) {
				t.Errorf("%s at x = %v: Factor %v, finite difference %v", tr.Name(), x, f, fd)
			}
		}
		got, err := ByName(tr.Name())
		if err != nil || got.Name() != tr.Name() {
			t.Errorf("ByName(%q) = %v, %v", tr.Name(), got, err)
		}
	}
}

func TestTransformRanges(t *testing.T) {
	if v := (Softplus{}).Forward(800); v != 800 {
		t.Errorf("softplus(800) = %v", v)
	}
	if v := (Softplus{}).Forward(-800); v < 0 || math.IsNaN(v) {
		t.Errorf("softplus(-800) = %v", v)
	}
	if v := (Exp{}).Forward(100); v != math.Exp(ExpClip) {
		t.Errorf("exp(100) not clipped: %v", v)
	}
	for _, c := range []struct {
		tr    Transform
		theta float64
	}{
		{Softplus{}, 0}, {Softplus{}, -1}, {Exp{}, math.Inf(1)},
		{Sigmoid{}, 1}, {Sigmoid{}, 0}, {Identity{}, math.NaN()},
	} {
		if _, err := c.tr.Inverse(c.theta); err == nil {
			t.Errorf("%s.Inverse(%v): no error", c.tr.Name(), c.theta)
		}
	}
	if _, err := ByName("tanh"); err == nil {
		t.Error("ByName(tanh): no error")
	}
	if Default(Positive, nil).Name() != "softplus" || Default(Positive, Exp{}).Name() != "exp" ||
		Default(Unit, nil).Name() != "sigmoid" || Default(Real, nil).Name() != "identity" {
		t.Error("Default picks the wrong transform")
	}
}
