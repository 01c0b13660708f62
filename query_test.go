package ivm

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
)

// queryKernel is a fixed kernel for the query tests: smooth enough that a row's neighbours
// share its information, with white noise as the models' slope.
const queryKernel = "rbf(gamma=1,variance=2)+bias+white(variance=0.01)"

// fixedFit fits a predictor with queryKernel on the inputs as given (no scaling).
func fixedFit(t *testing.T, x *mat.Dense, y []float64, cfg Config) *Predictor {
	t.Helper()
	cfg.Kernel, cfg.FixedKernel, cfg.Scale = queryKernel, true, dataset.ScaleNone
	if cfg.ActiveSize == 0 {
		cfg.ActiveSize = 40
	}
	p, err := Fit(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rows(vs ...[]float64) *mat.Dense {
	x := mat.NewDense(len(vs), len(vs[0]), nil)
	for i, v := range vs {
		x.SetRow(i, v)
	}
	return x
}

func queried(t *testing.T, p *Predictor, pool *mat.Dense, k int) []Query {
	t.Helper()
	qs, err := p.Query(pool, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != min(k, pool.RawMatrix().Rows) {
		t.Fatalf("%d rows queried, want %d", len(qs), k)
	}
	return qs
}

func queryRows(qs []Query) []int {
	out := make([]int, len(qs))
	for i, q := range qs {
		out[i] = q.Row
	}
	return out
}

// A binary model scores a row on its decision boundary above rows deep inside either class,
// and its batch takes one of three copies of a boundary row and then the other end of the
// boundary, not a second copy; the predictions are Predict's.
func TestQueryBinaryBoundaryAndSpread(t *testing.T) {
	x, y := mirroredBlobs(60) // classes at x₁ = ∓1, boundary x₁ = 0
	p := fixedFit(t, x, y, Config{Task: Binary, ActiveSize: 240})
	// The copies are of the better of the two ends, so that without the batch rule the
	// first two rows would be copies.
	top, other := []float64{0, 1.5}, []float64{0, -1.5}
	if soleScore(t, p, top) < soleScore(t, p, other) {
		top, other = other, top
	}
	pool := rows([]float64{-2.5, 0}, top, []float64{2.5, 0}, top, other, top)
	qs := queried(t, p, pool, 6)
	if first := queryRows(qs[:2]); first[0] != 1 || first[1] != 4 {
		t.Errorf("rows %v: want a copy of %v, then %v", queryRows(qs), top, other)
	}
	deep := map[int]bool{0: true, 2: true}
	if deep[qs[0].Row] || deep[qs[1].Row] {
		t.Errorf("rows %v: a row deep in a class before the boundary", queryRows(qs))
	}
	for i := 1; i < len(qs); i++ {
		if qs[i].Score > qs[i-1].Score+1e-12 {
			t.Errorf("scores %v rise", qs)
		}
	}
	preds, err := p.Predict(pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if !slices.Equal(q.Prediction.Prob, preds[q.Row].Prob) {
			t.Errorf("row %d: prediction %v, Predict's %v", q.Row, q.Prediction, preds[q.Row])
		}
	}
	// One row alone: the boundary's score beats the deep rows'.
	one := queried(t, p, rows([]float64{-2.5, 0}, []float64{0.1, 0}, []float64{2.5, 0}), 1)
	if one[0].Row != 1 || !(one[0].Score > 0.1) {
		t.Errorf("query of 1: %+v, want row 1 with a clear score", one[0])
	}
}

// soleScore is the query score of a pool of one row.
func soleScore(t *testing.T, p *Predictor, row []float64) float64 {
	return queried(t, p, rows(row), 1)[0].Score
}

// mirroredBlobs is twoBlobs(n) with each row's mirror images in x₁ (the other class) and
// x₂, so that a model of it is nearly symmetric about both axes.
func mirroredBlobs(n int) (*mat.Dense, []float64) {
	x0, y0 := twoBlobs(n, 1)
	x := mat.NewDense(4*n, 2, nil)
	y := make([]float64, 4*n)
	for i := range n {
		a, b := x0.At(i, 0), x0.At(i, 1)
		for j, r := range [][]float64{{a, b}, {-a, b}, {a, -b}, {-a, -b}} {
			x.SetRow(4*i+j, r)
			y[4*i+j] = y0[i]
			if j%2 == 1 {
				y[4*i+j] = 1 - y0[i]
			}
		}
	}
	return x, y
}

// A regression queries rows far from its training data first, and one of each far region
// before a second copy of either.
func TestQueryRegressionFarAndSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	x := mat.NewDense(150, 1, nil)
	y := make([]float64, 150)
	for i := range y {
		x.Set(i, 0, 2*rng.Float64()-1)
		y[i] = math.Sin(3*x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	p := fixedFit(t, x, y, Config{Task: Regression})
	top, other := []float64{4}, []float64{-4}
	if soleScore(t, p, top) < soleScore(t, p, other) {
		top, other = other, top
	}
	pool := rows([]float64{0}, top, []float64{0.5}, top, other, top, []float64{-0.5})
	qs := queried(t, p, pool, 3)
	if got := queryRows(qs[:2]); got[0] != 1 || got[1] != 4 {
		t.Errorf("rows %v: want a copy of %v, then %v", queryRows(qs), top, other)
	}
	if !(qs[0].Score > 2*qs[2].Score) {
		t.Errorf("scores %v: the far rows' should dominate", qs)
	}
	if math.IsNaN(qs[0].Prediction.Var) || qs[0].Prediction.Var <= 0 {
		t.Errorf("prediction %+v", qs[0].Prediction)
	}
}

// The batch rule's variance after a chosen row is the variance of a model that holds the
// chosen row as an active point with the site's precision: conditionalVars agrees with the
// engine's factorisation.
func TestQueryConditionalVariance(t *testing.T) {
	x, y := twoBlobs(120, 7)
	p := fixedFit(t, x, y, Config{Task: Binary, ActiveSize: 20})
	sk := asSingle(p)
	pool := rows([]float64{0.2, 0.3}, []float64{0.4, 0.1}, []float64{-1, 2}, []float64{3, -3})
	units, _, err := p.queryUnits(pool)
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	if err := u.include(pool, 0); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 4)
	if _, err := u.conditionalVars(pool, []int{1, 2, 3}, got); err != nil {
		t.Fatal(err)
	}
	m := sk.Model
	d, dim := m.XActive.Dims()
	xa := mat.NewDense(d+1, dim, nil)
	xa.Copy(m.XActive)
	xa.SetRow(d, pool.RawRowView(0))
	_, v0 := m.Latent(pool.Slice(0, 1, 0, 2), nil, nil)
	beta := u.nu[0] / (1 - v0[0]*u.nu[0])
	grown, err := engine.NewModel(m.Kernel, m.Noise, xa, nil, append(slices.Clone(m.SiteM), 0),
		append(slices.Clone(m.SiteBeta), beta), append(slices.Clone(m.FactorBeta), beta))
	if err != nil {
		t.Fatal(err)
	}
	_, want := grown.Latent(pool.Slice(1, 4, 0, 2), nil, nil)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9*(1+want[i]) {
			t.Errorf("row %d: conditional variance %v, the grown model's %v", i+1, got[i], want[i])
		}
	}
}

// Every single-task kind queries, or refuses naming why.
func TestQueryKinds(t *testing.T) {
	x, y := twoBlobs(240, 2)
	y3 := make([]float64, len(y))
	for i := range y3 {
		y3[i] = float64(i % 3)
		x.Set(i, 1, x.At(i, 1)+3*float64(i%3)) // three classes along x₂
	}
	pool, _ := twoBlobs(300, 9)
	ovr := fixedFit(t, x, y3, Config{Decomposition: OneVsRest})
	ovo := fixedFit(t, x, y3, Config{Decomposition: OneVsOne})
	for name, p := range map[string]*Predictor{"ovr": ovr, "ovo": ovo} {
		qs := queried(t, p, pool, 5)
		if len(qs[0].Prediction.Prob) != 3 || !(qs[0].Score > 0) {
			t.Errorf("%s: %+v", name, qs[0])
		}
	}
	xb, yb := twoBlobs(200, 1)
	blend, err := Fit(xb, yb, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if asBlend(blend) == nil {
		t.Fatalf("a blend expected, kind %T", blend.Kind)
	}
	if qs := queried(t, blend, pool, 3); !(qs[0].Score > 0) {
		t.Errorf("blend: %+v", qs[0])
	}
	ord := fixedFit(t, x, y3, Config{Task: Ordinal})
	if _, err := ord.Query(pool, 2); err == nil || !strings.Contains(err.Error(), "ordinal") {
		t.Errorf("ordinal: %v", err)
	}
	proj, err := Fit(x, y3, Config{Decomposition: Projected, ActiveSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proj.Query(pool, 2); err == nil || !strings.Contains(err.Error(), "projected") {
		t.Errorf("projected: %v", err)
	}
}

// Invalid queries are refused, naming the cause.
func TestQueryInvalid(t *testing.T) {
	x, y := twoBlobs(100, 1)
	p := fixedFit(t, x, y, Config{Task: Binary, ActiveSize: 20})
	nan := rows([]float64{0, 1}, []float64{math.NaN(), 0})
	for _, tc := range []struct {
		pool *mat.Dense
		k    int
		want string
	}{
		{rows([]float64{0, 1}), 0, "at least one"},
		{rows([]float64{0, 1, 2}), 1, "3 input columns"},
		{nan, 1, "NaN"},
	} {
		if _, err := p.Query(tc.pool, tc.k); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("k %d: error %v, want %q", tc.k, err, tc.want)
		}
	}
	var none *mat.Dense
	for _, pool := range []mat.Matrix{none, nil} {
		if _, err := p.Query(pool, 1); err == nil || !strings.Contains(err.Error(), "no rows") {
			t.Errorf("no pool: %v", err)
		}
	}
	if qs := queried(t, p, rows([]float64{0, 1}), 5); qs[0].Row != 0 {
		t.Errorf("k above the pool: %+v", qs)
	}
}

// The probit information grows with the latent variance (the lazy greedy choice relies on
// it) and is close to the mutual information integrated numerically.
func TestProbitInformation(t *testing.T) {
	for _, s2 := range []float64{1e-6, 0.01, 0.1, 1} {
		for m := 0.0; m <= 6; m += 0.25 {
			prev := -1.0
			for v := 1e-4; v < 100; v *= 1.3 {
				got := probitInformation(m, v, s2)
				if got < prev-1e-12 {
					t.Fatalf("m %v, s² %v: information falls from %v to %v at v %v", m, s2, prev, got, v)
				}
				prev = got
				if want := integratedInformation(m, v, s2); math.Abs(got-want) > 0.005 {
					t.Fatalf("m %v, v %v, s² %v: %v, integrated %v", m, v, s2, got, want)
				}
			}
		}
	}
}

// integratedInformation is the probit label's mutual information with its latent by the
// trapezoid rule over ±10 standard deviations.
func integratedInformation(m, v, s2 float64) float64 {
	const n = 4000
	e := 0.0
	for k := 0; k <= n; k++ {
		z := -10 + 20*float64(k)/n
		w := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * 20 / n
		if k == 0 || k == n {
			w /= 2
		}
		e += w * binaryEntropyPhi((m+math.Sqrt(v)*z)/math.Sqrt(s2))
	}
	return binaryEntropyPhi(m/math.Sqrt(v+s2)) - e
}

// Every single-task kind of the golden model files queries its test rows (the queried rows
// distinct, scores positive and falling) or refuses, naming why.
func TestQueryGoldenKinds(t *testing.T) {
	const golden = "cmd/ivm/testdata/golden/"
	refused := map[string]string{"ordinal": "ordinal", "semisupervised": "semisupervised",
		"binary_constant":  "projected", // widened to a projected model (fit.go)
		"binary_projected": "projected", "multiclass_projected": "projected",
		"regression_projected": "projected"}
	for _, name := range []string{"binary_alg2", "binary_blend", "binary_constant",
		"binary_labels", "binary_probit", "multiclass_ovo", "multiclass_ovr",
		"multiclass_ovr_alg2", "regression_exact", "regression_ivm", "ordinal", "semisupervised",
		"binary_projected", "multiclass_projected", "regression_projected"} {
		f, err := os.Open(golden + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Load(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := dataset.ReadFile(golden+name+".test.csv",
			dataset.ReadOptions{Dim: p.InputDim(), LabelOptional: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		qs, err := p.Query(data.X, 5)
		if want, ok := refused[name]; ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want one naming %q", name, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		seen := map[int]bool{}
		for i, q := range qs {
			if seen[q.Row] || !(q.Score >= 0) || i > 0 && q.Score > qs[i-1].Score+1e-12 {
				t.Errorf("%s: queries %+v", name, qs)
				break
			}
			seen[q.Row] = true
		}
	}
}

// Scoring by variance bounds from the leading active points and solving in full only the
// rows that could win chooses what scoring every row exactly chooses.
func TestQueryBoundsChooseAsExact(t *testing.T) {
	x, y := twoBlobs(240, 3)
	y3 := make([]float64, len(y))
	yr := make([]float64, len(y))
	for i := range y3 {
		y3[i] = float64(i % 3)
		x.Set(i, 1, x.At(i, 1)+3*float64(i%3))
		yr[i] = math.Sin(x.At(i, 0)) + x.At(i, 1)/4
	}
	pool, _ := twoBlobs(500, 11)
	for name, p := range map[string]*Predictor{
		"binary":     fixedFit(t, x, y, Config{Task: Binary}),
		"ovr":        fixedFit(t, x, y3, Config{Decomposition: OneVsRest}),
		"regression": fixedFit(t, x, yr, Config{Task: Regression}),
	} {
		bounded, _, err := p.queryUnits(pool)
		if err != nil {
			t.Fatal(err)
		}
		exact, _, err := p.queryUnits(pool)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range exact {
			if len(u.ranks) == 0 {
				t.Fatalf("%s: the units' variances are not bounds", name)
			}
			if err := u.boundLatents(pool, nil); err != nil {
				t.Fatal(err)
			}
		}
		rb, sb, err := newBatchQuery(bounded, pool).choose(12)
		if err != nil {
			t.Fatal(err)
		}
		re, se, err := newBatchQuery(exact, pool).choose(12)
		if err != nil {
			t.Fatal(err)
		}
		for i := range re {
			if rb[i] != re[i] || math.Abs(sb[i]-se[i]) > 1e-12*(1+se[i]) {
				t.Fatalf("%s: bounded chose %v %v, exact %v %v", name, rb, sb, re, se)
			}
		}
	}
}
