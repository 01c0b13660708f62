package toys

import (
	"math"
	"testing"
)

// Each part of the crescent data has the centre, the covariance Rᵀdiag(4, 1)R (variance 2.5
// along both axes, covariance −1.5 for the parts along (1, −1), +1.5 for those along (1, 1))
// and the class the toolbox's generator gives it; about pLabel of the points keep their
// labels, always including the first of each class.
func TestToyCrescentMoments(t *testing.T) {
	const part = 20000
	x, truth, obs, err := Crescent(part, 0.1, newRand(3))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ mx, my, cov, label float64 }{
		{-4, -4, -1.5, 1}, {0, -4, 1.5, 1}, {4, 4, -1.5, -1}, {0, 4, 1.5, -1},
	}
	labelled := 0
	for p, w := range want {
		var sx, sy, sxx, syy, sxy float64
		for i := p * part; i < (p+1)*part; i++ {
			u, v := x.At(i, 0), x.At(i, 1)
			sx, sy, sxx, syy, sxy = sx+u, sy+v, sxx+u*u, syy+v*v, sxy+u*v
			if truth[i] != w.label {
				t.Fatalf("row %d of part %d: class %g, want %g", i, p, truth[i], w.label)
			}
			if !math.IsNaN(obs[i]) {
				labelled++
				if obs[i] != truth[i] {
					t.Fatalf("row %d: observed %g, true %g", i, obs[i], truth[i])
				}
			}
		}
		n := float64(part)
		mx, my := sx/n, sy/n
		vx, vy, cxy := sxx/n-mx*mx, syy/n-my*my, sxy/n-mx*my
		// Standard errors: about 0.011 for the means, 0.025–0.03 for the second moments.
		if math.Abs(mx-w.mx) > 0.05 || math.Abs(my-w.my) > 0.05 {
			t.Errorf("part %d: mean (%.3f, %.3f), want (%g, %g)", p, mx, my, w.mx, w.my)
		}
		if math.Abs(vx-2.5) > 0.12 || math.Abs(vy-2.5) > 0.12 || math.Abs(cxy-w.cov) > 0.12 {
			t.Errorf("part %d: variances %.3f, %.3f, covariance %.3f; want 2.5, 2.5, %g",
				p, vx, vy, cxy, w.cov)
		}
	}
	if math.IsNaN(obs[0]) || math.IsNaN(obs[2*part]) {
		t.Error("the first point of a class is unlabelled")
	}
	if f := float64(labelled) / (4 * part); math.Abs(f-0.1) > 0.005 {
		t.Errorf("labelled fraction %.4f, want 0.1", f)
	}
	if _, _, _, err := Crescent(0, 0.1, newRand(1)); err == nil {
		t.Error("no error for 0 points per part")
	}
	if _, _, _, err := Crescent(10, 1.5, newRand(1)); err == nil {
		t.Error("no error for a labelling probability of 1.5")
	}
}
