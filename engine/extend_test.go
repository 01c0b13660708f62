package engine_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// splitRows returns rows [lo, hi) of x and y as a copy.
func splitRows(x *mat.Dense, y []float64, lo, hi int) (*mat.Dense, []float64) {
	_, c := x.Dims()
	out := mat.DenseCopyOf(x.Slice(lo, hi, 0, c))
	return out, append([]float64(nil), y[lo:hi]...)
}

// oldAndNew is a model selected from the first half of the reference problem and the
// second half's rows.
func oldAndNew(t *testing.T, d int) (*engine.Model, *mat.Dense, []float64, kern.Kernel) {
	t.Helper()
	x, y, k := refProblem(t, "class_train_500.csv")
	n, _ := x.Dims()
	xOld, yOld := splitRows(x, y, 0, n/2)
	xNew, yNew := splitRows(x, y, n/2, n)
	nm := noise.NewProbit()
	nm.ZeroBias = true // the bias Init would set differs between halves and their union
	m, err := engine.FitFixed(xOld, yOld, k, nm, d, engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m, xNew, yNew, k
}

// Holding the model's sites alone (no addition, no swap) predicts what the model predicts:
// the posterior is rebuilt from the file's parts without the old training rows.
func TestExtendKeepsThePosterior(t *testing.T) {
	m, xNew, yNew, _ := oldAndNew(t, 30)
	got, st, err := engine.Extend(m, xNew, yNew, engine.ExtendOptions{MaxSwaps: -1, FirstRow: 250})
	if err != nil {
		t.Fatal(err)
	}
	if st != (engine.ExtendStats{}) {
		t.Fatalf("stats %+v; want nothing done", st)
	}
	mu0, v0 := m.Latent(xNew, nil, nil)
	mu1, v1 := got.Latent(xNew, nil, nil)
	for i := range mu0 {
		if math.Abs(mu0[i]-mu1[i]) > 1e-9 || math.Abs(v0[i]-v1[i]) > 1e-9 {
			t.Fatalf("row %d: μ, ς %v, %v before; %v, %v after", i, mu0[i], v0[i], mu1[i], v1[i])
		}
	}
}

// Growing the active set by Extend is Algorithm 1 continued: the same points and sites as a
// selector over the old active inputs and the new rows that includes the old points in
// their order (their ADF sites are the model's) and then selects.
func TestExtendContinuesTheSelection(t *testing.T) {
	m, xNew, yNew, k := oldAndNew(t, 30)
	got, st, err := engine.Extend(m, xNew, yNew,
		engine.ExtendOptions{ActiveSize: 45, MaxSwaps: -1, Candidates: -1, FirstRow: 250})
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 15 || got.Size() != 45 {
		t.Fatalf("stats %+v, size %d; want 15 added to 45", st, got.Size())
	}
	d, dim := m.XActive.Dims()
	nNew, _ := xNew.Dims()
	x := mat.NewDense(d+nNew, dim, nil)
	x.Slice(0, d, 0, dim).(*mat.Dense).Copy(m.XActive)
	x.Slice(d, d+nNew, 0, dim).(*mat.Dense).Copy(xNew)
	y := make([]float64, d+nNew)
	_, yAll, _ := refProblem(t, "class_train_500.csv")
	for i, a := range m.Active {
		y[i] = yAll[a]
	}
	copy(y[d:], yNew)
	nm := noise.NewProbit()
	nm.ZeroBias = true
	s, err := engine.NewSelector(x, y, k, nm, engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d {
		if err := s.Include(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Select(15); err != nil {
		t.Fatal(err)
	}
	for j, st := range s.Steps() {
		if j < d {
			if math.Abs(st.SiteM-m.SiteM[j]) > 1e-9*math.Max(1, math.Abs(st.SiteM)) {
				t.Fatalf("old point %d: site mean %v again, %v in the model", j, st.SiteM,
					m.SiteM[j])
			}
			continue
		}
		want := 250 + st.Index - d
		if got.Active[j] != want || math.Abs(got.SiteM[j]-st.SiteM) > 1e-8 {
			t.Fatalf("inclusion %d: row %d site %v extended; row %d site %v selected", j,
				got.Active[j], got.SiteM[j], want, st.SiteM)
		}
	}
}

// An Extend that grows without swaps chooses from a pool of the new rows (four per point
// added, at least 1 000; half of them the rows the model scores best): the first inclusion,
// the best of all, is the exact continuation's, each new point keeps its row's number, and
// the model predicts held-out rows as well as the one chosen from every new row.
func TestExtendNarrowsTheCandidates(t *testing.T) {
	x, y, k := refProblem(t, "class_train_5000.csv")
	n, _ := x.Dims()
	xOld, yOld := splitRows(x, y, 0, 500)
	xNew, yNew := splitRows(x, y, 500, n)
	nm := noise.NewProbit()
	nm.ZeroBias = true
	m, err := engine.FitFixed(xOld, yOld, k, nm, 60, engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt := engine.ExtendOptions{ActiveSize: 360, MaxSwaps: -1, FirstRow: 500,
		Criterion: engine.ExpectedEntropy}
	got, _, err := engine.Extend(m, xNew, yNew, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Candidates = -1
	exact, _, err := engine.Extend(m, xNew, yNew, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Active[60] != exact.Active[60] || got.SiteM[60] != exact.SiteM[60] {
		t.Errorf("first new point: row %d, site %v; exact: row %d, site %v", got.Active[60],
			got.SiteM[60], exact.Active[60], exact.SiteM[60])
	}
	for j := 60; j < got.Size(); j++ {
		if !mat.Equal(got.XActive.RowView(j), xNew.RowView(got.Active[j]-500)) {
			t.Fatalf("new point %d: its inputs are not row %d's", j, got.Active[j])
		}
	}
	xt, yt := readXY(t, "class_test_2000.csv")
	a, b := accuracy(got, xt, yt), accuracy(exact, xt, yt)
	t.Logf("held-out accuracy %.4f from the pool, %.4f from all", a, b)
	if a < b-0.01 {
		t.Errorf("held-out accuracy %.4f from the pool, %.4f from all", a, b)
	}
}

// Swaps bring new rows in at the size kept and raise the held-out accuracy of a model
// whose old rows saw one side of the problem only; old points swapped out stay out.
func TestExtendSwapsInBetterRows(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	xt, yt := readXY(t, "class_test_2000.csv")
	n, dim := x.Dims()
	var left, right []int
	for i := range n {
		if x.At(i, 0) < 0 {
			left = append(left, i)
		} else {
			right = append(right, i)
		}
	}
	pick := func(rows []int) (*mat.Dense, []float64) {
		xs, ys := mat.NewDense(len(rows), dim, nil), make([]float64, len(rows))
		for j, r := range rows {
			xs.SetRow(j, x.RawRowView(r))
			ys[j] = y[r]
		}
		return xs, ys
	}
	xOld, yOld := pick(left)
	xNew, yNew := pick(right)
	nm := noise.NewProbit()
	nm.ZeroBias = true
	m, err := engine.FitFixed(xOld, yOld, k, nm, 20, engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := engine.Extend(m, xNew, yNew, engine.ExtendOptions{FirstRow: len(left)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Swaps == 0 || st.Dropped == 0 || got.Size() != 20 {
		t.Fatalf("stats %+v, size %d; want swaps that drop old points at d = 20", st, got.Size())
	}
	before, after := accuracy(m, xt, yt), accuracy(got, xt, yt)
	if after <= before {
		t.Fatalf("held-out accuracy %.3f before the update, %.3f after", before, after)
	}
	newRows := 0
	for _, a := range got.Active {
		if a >= len(left) {
			newRows++
		}
	}
	if newRows != st.Dropped {
		t.Fatalf("%d new rows active after dropping %d old points", newRows, st.Dropped)
	}
}

func accuracy(m *engine.Model, x *mat.Dense, y []float64) float64 {
	right := 0
	for i, p := range m.Predict(x) {
		if p.Label == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y))
}

// Extend refuses what it cannot use, by name.
func TestExtendRefuses(t *testing.T) {
	m, xNew, yNew, _ := oldAndNew(t, 10)
	nNew, dim := xNew.Dims()
	nan := append([]float64(nil), yNew...)
	nan[3] = math.NaN()
	for _, c := range []struct {
		name string
		x    *mat.Dense
		y    []float64
		opt  engine.ExtendOptions
		want string
	}{
		{"width", mat.NewDense(nNew, dim+1, nil), yNew, engine.ExtendOptions{}, "3 input columns"},
		{"targets", xNew, yNew[1:], engine.ExtendOptions{}, "targets for"},
		{"NaN", xNew, nan, engine.ExtendOptions{}, "new row 3 has target NaN"},
		{"shrink", xNew, yNew, engine.ExtendOptions{ActiveSize: 5}, "cannot shrink"},
		{"label", xNew, make([]float64, nNew), engine.ExtendOptions{},
			"the probit noise model takes"},
	} {
		_, _, err := engine.Extend(m, c.x, c.y, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one saying %q", c.name, err, c.want)
		}
	}
}

// Models extended with the kernel columns of the new rows shared through a ColumnCache are
// the models extended without it: two problems on the same rows (the labels and their
// negation, which include many of the same rows), side by side.
func TestExtendSharedColumns(t *testing.T) {
	m, xNew, yNew, _ := oldAndNew(t, 20)
	neg := make([]float64, len(yNew))
	for i, v := range yNew {
		neg[i] = -v
	}
	opt := engine.ExtendOptions{ActiveSize: 60, MaxSwaps: -1, Workers: 1}
	cached := opt
	cached.Columns = engine.NewColumnCache(xNew)
	for _, y := range [][]float64{yNew, neg, yNew} {
		want, _, err := engine.Extend(m, xNew, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := engine.Extend(m, xNew, y, cached)
		if err != nil {
			t.Fatal(err)
		}
		for k := range want.SiteM {
			if got.Active[k] != want.Active[k] || got.SiteM[k] != want.SiteM[k] ||
				got.SiteBeta[k] != want.SiteBeta[k] {
				t.Fatalf("active point %d: row %d, site %v, %v; want row %d, site %v, %v", k,
					got.Active[k], got.SiteM[k], got.SiteBeta[k], want.Active[k], want.SiteM[k],
					want.SiteBeta[k])
			}
		}
	}
}

// Relearn learns the kernel again from the model's sites and the new rows: a model whose
// kernel is far too narrow for its data (fitted to 100 rows) predicts held-out rows better
// after Relearn with the other 400 rows than after Extend with them, its old points keep
// their sites, and the model it was given is unchanged.
func TestRelearnWidensANarrowKernel(t *testing.T) {
	x, y, _ := refProblem(t, "class_train_500.csv")
	_, dim := x.Dims()
	k, err := kern.Parse("rbf(gamma=100,variance=1)+bias+white(variance=0.01)", dim)
	if err != nil {
		t.Fatal(err)
	}
	xOld, yOld := splitRows(x, y, 0, 100)
	xNew, yNew := splitRows(x, y, 100, 500)
	nm := noise.NewProbit()
	nm.ZeroBias = true
	m, err := engine.FitFixed(xOld, yOld, k, nm, 20, engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	before := k.String()
	opt := engine.ExtendOptions{ActiveSize: 60, MaxSwaps: -1, FirstRow: 100,
		Criterion: engine.ExpectedEntropy}
	fixed, _, err := engine.Extend(m, xNew, yNew, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := engine.Relearn(m, xNew, yNew, opt, engine.LoopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k.String() != before || m.Kernel != k {
		t.Fatalf("the model's kernel changed: %v, was %v", m.Kernel, before)
	}
	if got.Size() != 60 || got.Kernel.(*kern.Sum).String() == before {
		t.Fatalf("%d active points, kernel %v", got.Size(), got.Kernel)
	}
	for j := range 20 {
		if got.SiteM[j] != m.SiteM[j] || got.SiteBeta[j] != m.SiteBeta[j] {
			t.Fatalf("old point %d: site %v, %v; the model's %v, %v", j, got.SiteM[j],
				got.SiteBeta[j], m.SiteM[j], m.SiteBeta[j])
		}
	}
	xt, yt := readXY(t, "class_test_2000.csv")
	a, b := accuracy(got, xt, yt), accuracy(fixed, xt, yt)
	t.Logf("relearnt %v (outer iteration %d kept): held-out accuracy %.4f; fixed kernel %.4f",
		got.Kernel, res.Best, a, b)
	if a < b+0.02 {
		t.Errorf("held-out accuracy %.4f relearnt, %.4f with the kernel kept", a, b)
	}
}

// The latent mean at each active point's inclusion, recovered from the model alone, is the
// selection's, and a probit site's mean lies above it for the label +1 and below for −1.
func TestInclusionMeansTellTheLabels(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	s, err := engine.NewSelector(x, y, k, noise.NewProbit(), engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	means := make([]float64, 0, 80)
	for range 80 {
		i, _, _ := s.Best()
		means = append(means, s.Mean()[i])
		if err := s.Include(i); err != nil {
			t.Fatal(err)
		}
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	for j, mu := range m.InclusionMeans() {
		if math.Abs(mu-means[j]) > 1e-8*math.Max(1, math.Abs(mu)) {
			t.Fatalf("point %d: mean %v at inclusion, %v recovered", j, means[j], mu)
		}
		if label := math.Copysign(1, m.SiteM[j]-mu); label != y[m.Active[j]] {
			t.Fatalf("point %d: label %v, site mean %v against %v", j, y[m.Active[j]],
				m.SiteM[j], mu)
		}
	}
}
