package projected

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/kern"
)

// The query part holds K_qnK_nq of its q centres over every training row, and its posterior
// is the projected process of those centres: prior s·k(x, x), posterior variance
// s·(k(x, x) − k_qᵀK_qq⁻¹k_q + λ·k_qᵀ(λK_qq + K_qnK_nq)⁻¹k_q), formed densely
// here. It survives the file.
func TestQueryPosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, dim := 400, 2
	x := mat.NewDense(n, dim, nil)
	y := make([]float64, n)
	for i := range n {
		x.Set(i, 0, 3*rng.Float64()) // the second input's rows are far from the first's
		x.Set(i, 1, rng.NormFloat64())
		y[i] = 5 + 3*math.Sin(2*x.At(i, 0)) + 0.3*rng.NormFloat64()
	}
	tg, err := RealTargets(y)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(x, tg, []Scaling{{StartGamma: 0.5}}, Options{Seed: 3, Centres: 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Model
	if pr.Query == nil || len(pr.Query.Centres) != 30 {
		t.Fatalf("query part %+v, want one of the 30 centres", pr.Query)
	}
	xs, err := res.Scaler.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	centres := mat.NewDense(30, dim, nil)
	for i, r := range pr.Query.Centres {
		centres.SetRow(i, pr.Centres.RawRowView(r))
	}
	kqn := mat.NewDense(30, n, nil)
	pr.k.K(kqn, centres, xs)
	var gram mat.Dense
	gram.Mul(kqn, kqn.T())
	if !mat.EqualApprox(&gram, pr.Query.Gram, 1e-9*float64(n)) {
		t.Fatal("the query part's Gram matrix is not K_qnK_nq over the training rows")
	}
	// The scale is the targets' variance: the model was fitted to them standardised.
	variance := stat.Variance(y, nil)
	if math.Abs(pr.Query.Scale-variance) > 1e-9*variance {
		t.Errorf("query scale %v, want the targets' variance %v", pr.Query.Scale, variance)
	}
	back, err := Decode(Encode(pr), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(back.Query.Gram, pr.Query.Gram) || back.Query.Scale != pr.Query.Scale {
		t.Fatal("the query part changed through the file")
	}
	qp, err := back.QueryPosterior()
	if err != nil {
		t.Fatal(err)
	}
	test := mat.NewDense(3, dim, []float64{1, 0, 2, 0.5, 9, 9})
	kq := mat.NewDense(3, 30, nil)
	pr.k.K(kq, test, centres)
	kcc := mat.NewDense(30, 30, nil)
	pr.k.K(kcc, centres, centres)
	var a mat.Dense
	a.Scale(pr.Lambda, kcc)
	a.Add(&a, pr.Query.Gram)
	prior, bound, exact := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	qp.Diag(prior, test)
	qp.Bound(test, 30, exact)
	qp.Bound(test, 5, bound)
	proj := qp.Projections(test)
	for i := range 3 {
		k := mat.NewVecDense(30, kq.RawRowView(i))
		var sk, sa mat.VecDense
		if err := sk.SolveVec(kcc, k); err != nil {
			t.Fatal(err)
		}
		if err := sa.SolveVec(&a, k); err != nil {
			t.Fatal(err)
		}
		wantPrior := variance // the kernel's variance is 1
		want := variance * (1 - mat.Dot(k, &sk) + pr.Lambda*mat.Dot(k, &sa))
		p := proj.RawRowView(i)
		viaProj := prior[i] - mat.Dot(mat.NewVecDense(30, p), mat.NewVecDense(30, p))
		t.Logf("row %d: prior %.4g, posterior %.4g", i, wantPrior, want)
		for name, got := range map[string][2]float64{"prior": {prior[i], wantPrior},
			"posterior": {exact[i], want}, "via projections": {viaProj, want}} {
			if math.Abs(got[0]-got[1]) > 1e-6*(variance+got[1]) {
				t.Errorf("row %d: %s %v, want %v", i, name, got[0], got[1])
			}
		}
		if bound[i] < exact[i]-1e-9*variance {
			t.Errorf("row %d: bound %v below the variance %v", i, bound[i], exact[i])
		}
	}
	// Far from every training row the posterior keeps its prior; among them it does not.
	if exact[2] < 0.9*prior[2] || exact[0] > 0.2*prior[0] {
		t.Errorf("variances %v of priors %v: want the far row's kept, the near row's shrunk",
			exact, prior)
	}
	huge := *pr
	huge.Query = &Query{Centres: pr.Query.Centres, Gram: mat.NewSymDense(30, nil), Scale: 1}
	huge.Query.Gram.SetSym(0, 0, math.MaxFloat64)
	huge.Query.Gram.SetSym(1, 1, math.MaxFloat64)
	if _, err := huge.QueryPosterior(); err == nil || !strings.Contains(err.Error(), "Gram") {
		t.Errorf("a Gram matrix that overflows: %v", err)
	}
	noQuery := *pr
	noQuery.Query = nil
	if _, err := noQuery.QueryPosterior(); err == nil || !strings.Contains(err.Error(),
		"no query part") {
		t.Errorf("a model without a query part: %v", err)
	}
}

// Decode refuses a query part that does not fit its model, naming the fault.
func TestDecodeQueryRefuses(t *testing.T) {
	good := &QueryFile{Centres: []int{1, 0}, Gram: [][]float64{{2, 1}, {2}}, Scale: 1}
	two := []int{0, 1}
	for name, c := range map[string]struct {
		in   *QueryFile
		want string
	}{
		"too many centres": {&QueryFile{Centres: []int{0, 1, 2},
			Gram: [][]float64{{1, 0, 0}, {1, 0}, {1}}, Scale: 1}, "3 centres"},
		"a centre twice": {&QueryFile{Centres: []int{1, 1}, Gram: good.Gram, Scale: 1},
			"query centre 1"},
		"a centre out of range": {&QueryFile{Centres: []int{0, 2}, Gram: good.Gram, Scale: 1},
			"query centre 2"},
		"short row": {&QueryFile{Centres: two, Gram: [][]float64{{2, 1}, {}}, Scale: 1},
			"row 2 has 0"},
		"scale": {&QueryFile{Centres: two, Gram: good.Gram}, "scale 0"},
		"infinite": {&QueryFile{Centres: two, Gram: [][]float64{{2, math.Inf(1)}, {2}},
			Scale: 1}, "+Inf"},
		"no centres": {&QueryFile{Scale: 1}, "0 centres"},
	} {
		_, err := decodeQuery(c.in, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", name, err, c.want)
		}
	}
	if q, err := decodeQuery(good, 2); err != nil || q.Gram.At(1, 0) != 1 {
		t.Errorf("a good query part: %v, %v", q, err)
	}
}

// The query centres are the pivots of K_mm's pivoted Cholesky factorisation: a repeated
// centre, which the first copy explains, is not chosen again, and the first pivot after
// the first is the centre farthest from it.
func TestChoosePivots(t *testing.T) {
	k, err := kern.Parse("rbf(gamma=1,variance=1)", 1)
	if err != nil {
		t.Fatal(err)
	}
	c := mat.NewDense(5, 1, []float64{0, 0.1, 5, 0.1, 2})
	got := choosePivots(k, c, 10)
	if len(got) != 4 || got[1] != 2 || slices.Contains(got, 1) && slices.Contains(got, 3) {
		t.Errorf("pivots %v: want 4 distinct centres, the second the farthest (row 2)", got)
	}
	if got := choosePivots(k, c, 2); len(got) != 2 {
		t.Errorf("pivots %v: want 2", got)
	}
}
