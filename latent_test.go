package ivm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Models of one kernel share the kernel values of their common active inputs, and their
// latent moments are those each model computes alone; models of different kernels are
// predicted one by one.
func TestLatentsShareKernelValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 900
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		c := i % 3
		y[i] = float64(c)
		for j := range 3 {
			x.Set(i, j, rng.NormFloat64())
		}
		x.Set(i, c, x.At(i, c)+2)
	}
	cfg := Config{Kernel: "rbf(gamma=0.5,variance=2)+bias+white", FixedKernel: true,
		ActiveSize: 150, Decomposition: OneVsRest}
	p, err := Fit(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	union, idx := distinctActive(asOVR(p).Models)
	u, _ := union.Dims()
	if total := 3 * 150; u >= total || u < 150 {
		t.Fatalf("%d distinct active inputs among %d: want the classes to share some", u, total)
	}
	for c, m := range asOVR(p).Models {
		for k, r := range idx[c] {
			if !mat.Equal(union.RowView(r), m.XActive.RowView(k)) {
				t.Fatalf("class %d's active point %d maps to a different distinct row %d", c, k, r)
			}
		}
	}
	xt := mat.NewDense(1100, 3, nil) // more than one chunk
	for i := range 1100 {
		for j := range 3 {
			xt.Set(i, j, 2*rng.NormFloat64())
		}
	}
	xs, err := asOVR(p).Scaler.Apply(xt)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		mu, vs := latents(asOVR(p).Models, xs, true)
		means, none := latents(asOVR(p).Models, xs, false)
		if none != nil {
			t.Fatalf("%s: variances %v asked for none", what, none)
		}
		for c, m := range asOVR(p).Models {
			wantMu, wantVs := m.Latent(xs, nil, nil)
			for i := range wantMu {
				if math.Abs(mu[c][i]-wantMu[i]) > 1e-10 || math.Abs(vs[c][i]-wantVs[i]) > 1e-10 {
					t.Fatalf("%s: class %d row %d: (%v, %v), alone (%v, %v)",
						what, c, i, mu[c][i], vs[c][i], wantMu[i], wantVs[i])
				}
				if math.Abs(means[c][i]-wantMu[i]) > 1e-10 {
					t.Fatalf("%s: class %d row %d: mean %v without variances, alone %v",
						what, c, i, means[c][i], wantMu[i])
				}
			}
		}
	}
	if !sameKernels(asOVR(p).Models) {
		t.Fatal("the classes' kernels are not recognised as one")
	}
	check("one kernel")
	q := kernelParams(asOVR(p).Models[1].Kernel)
	q[0] *= 1.5
	if err := asOVR(p).Models[1].Kernel.SetParams(q); err != nil {
		t.Fatal(err)
	}
	if sameKernels(asOVR(p).Models) {
		t.Fatal("a class with another γ is taken for the same kernel")
	}
	check("two kernels")
}
