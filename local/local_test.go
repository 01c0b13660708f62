package local

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestTreeNearest: the tree finds the rows a scan of every row finds, at the same
// distances, on rows with many repeated values and repeated rows, with and without a row
// left out.
func TestTreeNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, dim := 3000, 4
	x := mat.NewDense(n, dim, nil)
	for i := range n {
		for j := range dim {
			x.Set(i, j, float64(rng.IntN(6))+0.1*float64(j))
		}
	}
	tr := newTree(x, nil)
	for q := range 200 {
		self := -1
		if q%2 == 0 {
			self = rng.IntN(n)
		}
		query := x.RawRowView(rng.IntN(n))
		if q%3 == 0 {
			query = []float64{rng.Float64() * 6, rng.Float64() * 6, 2.5, -1}
		}
		idx, d2 := make([]int, Neighbours), make([]float64, Neighbours)
		if k := tr.nearest(query, self, idx, d2); k != Neighbours {
			t.Fatalf("found %d neighbours, want %d", k, Neighbours)
		}
		want := scanAll(x, query, self)[:Neighbours]
		if !floats.Equal(d2, want) {
			t.Fatalf("query %d: distances %v, want %v", q, d2, want)
		}
		for a, i := range idx {
			if i == self || dist2(x.RawRowView(i), query) != d2[a] {
				t.Fatalf("query %d: neighbour %d is row %d at %v", q, a, i, d2[a])
			}
		}
	}
}

// scanAll returns the squared distances of every row of x but self to q, nearest first.
func scanAll(x *mat.Dense, q []float64, self int) []float64 {
	n, _ := x.Dims()
	var out []float64
	for i := range n {
		if i != self {
			out = append(out, dist2(x.RawRowView(i), q))
		}
	}
	slices.Sort(out)
	return out
}

func dist2(a, b []float64) float64 {
	var s float64
	for j := range a {
		s += (a[j] - b[j]) * (a[j] - b[j])
	}
	return s
}

// TestSolve: the forward solves give the prediction and variance a dense solve gives.
func TestSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	k, dim := Neighbours, 3
	x := mat.NewDense(40, dim, nil)
	for i := range 40 {
		for j := range dim {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	r := make([]float64, 40)
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	q := []float64{0.1, -0.2, 0.3}
	h, w := newHood(k), newWork(k)
	h.find(newTree(x, nil), x, q, -1)
	p := params{gamma: 0.7, signal: 1.3, noise: 0.4}
	mean, variance := h.predict(p, r, w)

	kl, kq, rn := mat.NewSymDense(k, nil), mat.NewVecDense(k, nil), mat.NewVecDense(k, nil)
	for a := range k {
		for c := a; c < k; c++ {
			v := p.signal * math.Exp(-0.5*p.gamma*dist2(x.RawRowView(h.idx[a]),
				x.RawRowView(h.idx[c])))
			if a == c {
				v += p.noise
			}
			kl.SetSym(a, c, v)
		}
		kq.SetVec(a, p.signal*math.Exp(-0.5*p.gamma*dist2(x.RawRowView(h.idx[a]), q)))
		rn.SetVec(a, r[h.idx[a]])
	}
	var ch mat.Cholesky
	if !ch.Factorize(kl) {
		t.Fatal("not positive definite")
	}
	var alpha, beta mat.VecDense
	if err := ch.SolveVecTo(&alpha, rn); err != nil {
		t.Fatal(err)
	}
	if err := ch.SolveVecTo(&beta, kq); err != nil {
		t.Fatal(err)
	}
	wantMean := mat.Dot(kq, &alpha)
	wantVar := p.signal + p.noise - mat.Dot(kq, &beta)
	if math.Abs(mean-wantMean) > 1e-12 || math.Abs(variance-wantVar) > 1e-12 {
		t.Errorf("prediction %v, variance %v; want %v, %v", mean, variance, wantMean, wantVar)
	}
}

// timeRows returns n rows of a time (in hundreds of steps, each step once, in random order)
// and an input that does not matter but spreads wider, with residuals that wander in time
// (a first-order autoregression of variance 0.57) plus noise of variance 0.09 (noise alone
// where walk is false).
func timeRows(rng *rand.Rand, n int, walk bool) (*mat.Dense, []float64) {
	steps := make([]float64, n)
	for i := 1; i < n; i++ {
		steps[i] = 0.98*steps[i-1] + 0.15*rng.NormFloat64()
	}
	if !walk {
		clear(steps)
	}
	x, r := mat.NewDense(n, 2, nil), make([]float64, n)
	for i, s := range rng.Perm(n) {
		x.Set(i, 0, float64(s)/100)
		x.Set(i, 1, 3*rng.Float64())
		r[i] = steps[s] + 0.3*rng.NormFloat64()
	}
	return x, r
}

// TestFitTime: residuals that follow time are predicted from the rows nearest in time
// (the search raises time's weight against the input that does not matter), with less than
// half the squared error of predicting none; residuals of noise alone are left alone.
func TestFitTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, r := timeRows(rng, 4000, true)
	held := make([]int, 2000)
	for i := range held {
		held[i] = i
	}
	fit, err := Fit(x, given(r), held, r[:2000], 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if fit == nil {
		t.Fatal("no local model for residuals that follow time")
	}
	if w := fit.Model.Weights; !(w[0] > w[1]) {
		t.Errorf("weights %v: want time's above the other input's", w)
	}
	before := stat.Mean(floats2(r[:2000]), nil)
	after := stat.Mean(floats2(fit.Errors), nil)
	t.Logf("held-out squared error %.4f, predicting none %.4f (noise 0.09)", after, before)
	if after > 0.5*before {
		t.Errorf("held-out squared error %.4f against %.4f predicting none: want half", after,
			before)
	}
	for i, v := range fit.Variances {
		if !(v >= fit.Model.Noise) {
			t.Fatalf("row %d's variance %v below the noise %v", i, v, fit.Model.Noise)
		}
	}
	x, r = timeRows(rng, 4000, false)
	if fit, err = Fit(x, given(r), held, r[:2000], 1, 2); err != nil || fit != nil {
		t.Errorf("noise alone: fit %v, error %v; want none", fit, err)
	}
}

// TestPredictMatchesFit: the model predicts a held-out row as its fit did, and the same on
// one worker and on several.
func TestPredictMatchesFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, r := timeRows(rng, 3000, true)
	held := []int{}
	for i := range 1500 {
		held = append(held, i)
	}
	fit, err := Fit(x, given(r), held, r[:1500], 2, 2)
	if err != nil || fit == nil {
		t.Fatalf("fit %v, error %v", fit, err)
	}
	// A new row at a training row's place (its time shifted by a tenth of a step) is
	// predicted from its neighbours as that row was.
	xs := mat.NewDense(3, 2, []float64{1.001, 0.5, 17.3, 2.9, -1, 0})
	m1, v1 := fit.Model.Predict(xs, 1)
	m4, v4 := fit.Model.Predict(xs, 4)
	if !floats.Equal(m1, m4) || !floats.Equal(v1, v4) {
		t.Errorf("one worker %v %v, four %v %v", m1, v1, m4, v4)
	}
	for i, v := range v1 {
		if !(v > 0) || math.IsNaN(m1[i]) {
			t.Errorf("row %d: prediction %v, variance %v", i, m1[i], v)
		}
	}
	back, err := Decode(Encode(fit.Model), 2)
	if err != nil {
		t.Fatal(err)
	}
	m2, v2 := back.Predict(xs, 1)
	if !floats.Equal(m1, m2) || !floats.Equal(v1, v2) {
		t.Errorf("decoded model predicts %v %v, want %v %v", m2, v2, m1, v1)
	}
}

// TestDecodeRefuses: a malformed local part is refused with an error naming what is wrong.
func TestDecodeRefuses(t *testing.T) {
	good := func() *File {
		return &File{Weights: []float64{1, 2}, Gamma: 1, Signal: 1, Noise: 1, Scale: 1,
			Rows: [][]float64{{0, 1}, {1, 0}}, Residuals: []float64{0.5, -0.5}}
	}
	if _, err := Decode(good(), 2); err != nil {
		t.Fatalf("a good file: %v", err)
	}
	for name, spoil := range map[string]func(f *File){
		"weights":   func(f *File) { f.Weights = f.Weights[:1] },
		"weight":    func(f *File) { f.Weights[1] = -1 },
		"rows":      func(f *File) { f.Rows = nil; f.Residuals = nil },
		"residuals": func(f *File) { f.Residuals = f.Residuals[:1] },
		"row":       func(f *File) { f.Rows[1] = []float64{1} },
		"gamma":     func(f *File) { f.Gamma = 0 },
		"signal":    func(f *File) { f.Signal = math.Inf(1) },
		"noise":     func(f *File) { f.Noise = math.NaN() },
		"scale":     func(f *File) { f.Scale = -2 },
		"nan row":   func(f *File) { f.Rows[0][0] = math.NaN() },
		"residual":  func(f *File) { f.Residuals[0] = math.Inf(-1) },
	} {
		f := good()
		spoil(f)
		if _, err := Decode(f, 2); err == nil {
			t.Errorf("%s: a malformed file decoded", name)
		}
	}
}

// TestCholesky: the factor's product is the matrix, and a matrix that is not positive
// definite is reported.
func TestCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	k := 7
	b := mat.NewDense(k, k, nil)
	for i := range k {
		for j := range k {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	var a mat.Dense
	a.Mul(b, b.T())
	raw := slices.Clone(a.RawMatrix().Data)
	if !cholesky(raw, k) {
		t.Fatal("positive definite matrix refused")
	}
	l := mat.NewDense(k, k, nil)
	for i := range k {
		for j := 0; j <= i; j++ {
			l.Set(i, j, raw[i*k+j])
		}
	}
	var back mat.Dense
	back.Mul(l, l.T())
	if !mat.EqualApprox(&back, &a, 1e-10) {
		t.Error("LLᵀ differs from the matrix")
	}
	neg := []float64{1, 2, 2, 1}
	if cholesky(neg, 2) {
		t.Error("an indefinite matrix factorised")
	}
}

// given returns the Residuals of the rows r holds.
func given(r []float64) Residuals {
	return func(rows []int) ([]float64, error) {
		out := make([]float64, len(rows))
		for i, row := range rows {
			out[i] = r[row]
		}
		return out, nil
	}
}

// TestSignalVariances: a row's signal variance is its predictive variance less the noise's
// (both scaled); it is near Scale·Signal far from every row and small on a row's copy.
// Correlations are 1 at a row itself, symmetric, and fall with the weighted distance.
func TestSignalVariances(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows := mat.NewDense(200, 2, nil)
	res := make([]float64, 200)
	for i := range res {
		rows.SetRow(i, []float64{rng.Float64(), rng.Float64()})
		res[i] = rng.NormFloat64()
	}
	m := New([]float64{1, 2}, rows, res, 30, 2, 0.1)
	m.Scale = 1.5
	q := mat.NewDense(3, 2, []float64{0.5, 0.25, 9, 9, 0, 0})
	q.SetRow(2, rows.RawRowView(17)) // a training row itself
	_, variance := m.Predict(q, 1)
	sv := m.SignalVariances(q, 2)
	for i, v := range variance {
		if math.Abs(sv[i]-(v-m.Scale*m.Noise)) > 1e-12 {
			t.Errorf("row %d: signal variance %v, predictive %v less noise %v", i, sv[i], v,
				m.Scale*m.Noise)
		}
	}
	if math.Abs(sv[1]-m.Scale*m.Signal) > 1e-6 || sv[2] > 0.1*m.Scale*m.Signal {
		t.Errorf("signal variances %v: want %v far away and a small one on a row's copy",
			sv, m.Scale*m.Signal)
	}
	c := mat.NewDense(3, 3, nil)
	m.Correlations(c, q, q)
	r := rows.RawRowView(17)
	d := []float64{0.5 - r[0], 2 * (0.25 - r[1])}
	want := math.Exp(-0.5 * m.Gamma * floats.Dot(d, d))
	if c.At(0, 0) != 1 || c.At(0, 2) != c.At(2, 0) || math.Abs(c.At(0, 2)-want) > 1e-15 {
		t.Errorf("correlations %v, want 1 on the diagonal and %v between rows 0 and 2",
			mat.Formatted(c), want)
	}
	if !(c.At(0, 2) > c.At(1, 2)) {
		t.Errorf("correlations %v: the nearer row should correlate more", mat.Formatted(c))
	}
}
