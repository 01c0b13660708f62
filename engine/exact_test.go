package engine_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// With Gaussian noise and d = N the IVM's ADF posterior is the exact GP posterior: the
// predictive mean and variance at test points must equal K*(K + σ²I)⁻¹(y − b) + b and
// k** − K*(K + σ²I)⁻¹K*ᵀ computed directly. The larger case has active points in several
// blocks of the variance's blocked solve (the last one partial) and test rows in two chunks.
func TestFullActiveSetEqualsExactGP(t *testing.T) {
	checkExactGP(t, 120, 40)
	checkExactGP(t, 200, 600)
}

func checkExactGP(t *testing.T, n, nt int) {
	rng := rand.New(rand.NewPCG(1, 2))
	const dim = 3
	x := mat.NewDense(n, dim, nil)
	xt := mat.NewDense(nt, dim, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < dim; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = math.Sin(x.At(i, 0)) + 0.5*x.At(i, 1) + 0.1*rng.NormFloat64()
	}
	for i := 0; i < nt; i++ {
		for j := 0; j < dim; j++ {
			xt.Set(i, j, 1.5*rng.NormFloat64())
		}
	}
	k, err := kern.Parse("rbf(gamma=0.7,variance=1.3)+lin(variance=0.2)+bias(variance=0.5)+"+
		"white(variance=0.01)", dim)
	if err != nil {
		t.Fatal(err)
	}
	const noiseVar = 0.05
	nm := noise.NewGaussian(noiseVar)
	model, err := engine.FitFixed(x, y, k, nm, n, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mu, vs := model.Latent(xt, nil, nil)
	preds := model.Predict(xt)
	for i, v := range model.LatentMean(xt, nil) {
		if math.Float64bits(v) != math.Float64bits(mu[i]) {
			t.Fatalf("row %d: LatentMean %v, Latent's mean %v", i, v, mu[i])
		}
	}

	// Exact GP regression.
	kxx := mat.NewDense(n, n, nil)
	k.K(kxx, x, nil)
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, kxx.At(i, j))
		}
		a.SetSym(i, i, kxx.At(i, i)+noiseVar)
	}
	var chol mat.Cholesky
	if !chol.Factorize(a) {
		t.Fatal("exact GP: K + σ²I not positive definite")
	}
	bias := 0.0
	for _, v := range y {
		bias += v
	}
	bias /= float64(n)
	yc := mat.NewVecDense(n, nil)
	for i, v := range y {
		yc.SetVec(i, v-bias)
	}
	var w mat.VecDense
	if err := chol.SolveVecTo(&w, yc); err != nil {
		t.Fatal(err)
	}
	ks := mat.NewDense(nt, n, nil)
	k.K(ks, xt, x)
	var kInvKt mat.Dense
	if err := chol.SolveTo(&kInvKt, ks.T()); err != nil {
		t.Fatal(err)
	}
	diag := make([]float64, nt)
	k.Diag(diag, xt)
	const rel = 1e-8
	for i := 0; i < nt; i++ {
		wantMu := mat.Dot(ks.RowView(i), &w)
		wantVar := diag[i] - mat.Dot(ks.RowView(i), kInvKt.ColView(i))
		if math.Abs(mu[i]-wantMu) > rel*math.Max(1, math.Abs(wantMu)) {
			t.Errorf("test point %d: mean %v, exact GP %v", i, mu[i], wantMu)
		}
		if math.Abs(vs[i]-wantVar) > rel*math.Abs(wantVar) {
			t.Errorf("test point %d: variance %v, exact GP %v", i, vs[i], wantVar)
		}
		if math.Abs(preds[i].Mean-(wantMu+bias)) > rel*math.Max(1, math.Abs(wantMu+bias)) ||
			math.Abs(preds[i].Var-(wantVar+noiseVar)) > rel*(wantVar+noiseVar) {
			t.Errorf("test point %d: prediction %+v, exact GP mean %v var %v", i, preds[i],
				wantMu+bias, wantVar+noiseVar)
		}
	}
}
