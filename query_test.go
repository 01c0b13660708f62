package ivm

import (
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/special"
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
	return queriedBy(t, p, pool, k, ScoreEPIG)
}

// queriedBy is queried scored by score.
func queriedBy(t *testing.T, p *Predictor, pool *mat.Dense, k int, score QueryScore) []Query {
	t.Helper()
	qs, err := p.Query(pool, k, QueryOptions{Score: score})
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
// by what its label tells about its neighbours' labels; its batch takes one of three copies of
// a row far from the training rows (where one label tells much of the latent) and then one of
// two copies of another far row, not a second copy of the first; the predictions are
// Predict's.
func TestQueryBinaryBoundaryAndSpread(t *testing.T) {
	x, y := mirroredBlobs(60) // classes at x₁ = ∓1, boundary x₁ = 0
	p := fixedFit(t, x, y, Config{Task: Binary, ActiveSize: 240})
	a, b := []float64{0, 5}, []float64{0, -5}
	pool := rows([]float64{-2.5, 0}, a, []float64{2.5, 0}, a, b, a, b)
	qs := queried(t, p, pool, 7)
	isA := map[int]bool{1: true, 3: true, 5: true}
	if !isA[qs[0].Row] || qs[1].Row != 4 && qs[1].Row != 6 {
		t.Errorf("rows %v: want a copy of %v, then one of %v: %+v", queryRows(qs), a, b, qs)
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
	// Rows in pairs of neighbours: the boundary's score is many times the deep rows'.
	near := queried(t, p, rows([]float64{-2.5, 0}, []float64{-2.4, 0.1}, []float64{0.1, 0},
		[]float64{0.15, 0.05}, []float64{2.5, 0}, []float64{2.4, 0.1}), 6)
	if near[0].Row != 2 && near[0].Row != 3 || !(near[0].Score > 1e3*near[2].Score) {
		t.Errorf("query: %+v, want row 2 or 3 with a clear score", near)
	}
}

// soleScore is the query score by score of a pool of one row.
func soleScore(t *testing.T, p *Predictor, row []float64, score QueryScore) float64 {
	return queriedBy(t, p, rows(row), 1, score)[0].Score
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

// sineRegression is a regression of sin(3x) and a little noise at 150 rows of x in [−1, 1],
// its kernel fixed, the rows drawn from seed.
func sineRegression(t *testing.T, seed uint64) *Predictor {
	rng := rand.New(rand.NewPCG(4, seed))
	x := mat.NewDense(150, 1, nil)
	y := make([]float64, 150)
	for i := range y {
		x.Set(i, 0, 2*rng.Float64()-1)
		y[i] = math.Sin(3*x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	return fixedFit(t, x, y, Config{Task: Regression})
}

// Scored by BALD, a regression queries rows far from its training data first, and one of
// each far region before a second copy of either.
func TestQueryRegressionFarAndSpread(t *testing.T) {
	p := sineRegression(t, 5)
	top, other := []float64{4}, []float64{-4}
	if soleScore(t, p, top, ScoreBALD) < soleScore(t, p, other, ScoreBALD) {
		top, other = other, top
	}
	pool := rows([]float64{0}, top, []float64{0.5}, top, other, top, []float64{-0.5})
	qs := queriedBy(t, p, pool, 3, ScoreBALD)
	if got := queryRows(qs[:2]); got[0] != 1 || got[1] != 4 {
		t.Errorf("rows %v: want a copy of %v, then %v: %+v", queryRows(qs), top, other, qs)
	}
	if !(qs[0].Score > 2*qs[2].Score) {
		t.Errorf("scores %v: the far rows' should dominate", qs)
	}
	if math.IsNaN(qs[0].Prediction.Var) || qs[0].Prediction.Var <= 0 {
		t.Errorf("prediction %+v", qs[0].Prediction)
	}
}

// Scored by EPIG, a regression's row is scored by what its observation tells about the pool's
// other rows' observations: two copies of a row share −½ ln(1 − ρ²) nats, ρ² = v²/(v + σ²)²
// with v the learnable latent variance and σ² the noise (white included), averaged over the
// two targets; a far row whose observation tells the pool nothing comes after a copy.
func TestQueryRegressionEPIG(t *testing.T) {
	p := sineRegression(t, 6)
	pool := rows([]float64{1.3}, []float64{1.3})
	units, err := p.queryUnits()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.queryLatents(units, pool, true); err != nil {
		t.Fatal(err)
	}
	vs := make([]float64, 1)
	if _, err := units[0].conditionalVars(pool, []int{0}, vs); err != nil {
		t.Fatal(err)
	}
	l := units[0].link
	v, noise := vs[0]-l.white, l.white+l.noiseVar
	want := -0.5 * math.Log(1-v*v/((v+noise)*(v+noise))) / 2
	if got := queried(t, p, pool, 1)[0].Score; math.Abs(got-want) > 1e-9*want || !(want > 0) {
		t.Errorf("score of a copy: %g, want %g", got, want)
	}
	qs := queried(t, p, rows([]float64{1.3}, []float64{-9}, []float64{1.3}), 3)
	if qs[2].Row != 1 || !(qs[1].Score < qs[0].Score) || !(qs[2].Score < 1e-3*qs[1].Score) {
		t.Errorf("query %+v: want both copies before the far row, the second's score below "+
			"the first's", qs)
	}
}

// The batch rule's variance after a chosen row is the variance of a model that holds the
// chosen row as an active point with the site's precision, and so are a row's covariances
// with the targets: conditionalVars agrees with the engine's factorisation.
func TestQueryConditionalVariance(t *testing.T) {
	x, y := twoBlobs(120, 7)
	p := fixedFit(t, x, y, Config{Task: Binary, ActiveSize: 20})
	sk := asSingle(p)
	pool := rows([]float64{0.2, 0.3}, []float64{0.4, 0.1}, []float64{-1, 2}, []float64{3, -3})
	units, err := p.queryUnits()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.queryLatents(units, pool, true); err != nil {
		t.Fatal(err)
	}
	u := units[0]
	if err := u.setTargets(pool, []int{1, 3}); err != nil {
		t.Fatal(err)
	}
	if err := u.include(pool, 0); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 4)
	cd, err := u.conditionalVars(pool, []int{1, 2, 3}, got)
	if err != nil {
		t.Fatal(err)
	}
	covs := cd.covs
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
	proj := grown.Projections(pool.Slice(1, 4, 0, 2))
	var prior mat.Dense
	m.Kernel.K(&prior, pool.Slice(1, 4, 0, 2), rows(pool.RawRowView(1), pool.RawRowView(3)))
	for i := range 3 {
		for j, tj := range []int{0, 2} {
			cov := prior.At(i, j) - floats.Dot(proj.RawRowView(i), proj.RawRowView(tj))
			if g := covs.At(i, j); math.Abs(g-cov) > 1e-9*(1+math.Abs(cov)) {
				t.Errorf("rows %d, %d: covariance %v, the grown model's %v", i+1, tj+1, g, cov)
			}
		}
	}
	if math.Abs(u.targets.vs[1]-want[2]) > 1e-9*(1+want[2]) {
		t.Errorf("target row 3: variance %v, the grown model's %v", u.targets.vs[1], want[2])
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
	_, err = ord.Query(pool, 2, QueryOptions{})
	if err == nil || !strings.Contains(err.Error(), "ordinal") {
		t.Errorf("ordinal: %v", err)
	}
	proj, err := Fit(x, y3, Config{Decomposition: Projected, ActiveSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, score := range []QueryScore{ScoreEPIG, ScoreBALD} {
		qs, err := proj.Query(pool, 2, QueryOptions{Score: score})
		if err != nil || len(qs) != 2 || len(qs[0].Prediction.Prob) != 3 || !(qs[0].Score > 0) {
			t.Errorf("projected, %v: %+v, %v", score, qs, err)
		}
	}
	// A projected model whose file has no query part (written before it had one) refuses,
	// naming the remedy.
	asProjected(proj).Projected.Query = nil
	_, err = proj.Query(pool, 2, QueryOptions{})
	if err == nil || !strings.Contains(err.Error(), "query part") {
		t.Errorf("projected without its query part: %v", err)
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
		_, err := p.Query(tc.pool, tc.k, QueryOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("k %d: error %v, want %q", tc.k, err, tc.want)
		}
	}
	var none *mat.Dense
	for _, pool := range []mat.Matrix{none, nil} {
		_, err := p.Query(pool, 1, QueryOptions{})
		if err == nil || !strings.Contains(err.Error(), "no rows") {
			t.Errorf("no pool: %v", err)
		}
	}
	if qs := queried(t, p, rows([]float64{0, 1}), 5); qs[0].Row != 0 {
		t.Errorf("k above the pool: %+v", qs)
	}
}

// What one probit label tells about another, from the ADF update and Houlsby et al.'s
// entropies, is close to their exact mutual information, from the joint probabilities of two
// correlated Gaussian latents' signs. Near-copies (correlation 0.99) are underestimated:
// their moment-matched update leaves the second label less certain than it is.
func TestProbitLabelInformation(t *testing.T) {
	worst := 0.0
	for _, s2 := range []float64{0.01, 0.1, 1} {
		for _, ma := range []float64{0, 0.5, 2} {
			for _, mb := range []float64{0, -1, 1.5} {
				for _, va := range []float64{0.05, 1, 4} {
					for _, rho := range []float64{0, 0.3, 0.8, 0.99} {
						vb := 2.0
						c := rho * math.Sqrt(va*vb)
						l := newProbitLabel(ma, va+s2)
						got := l.information(mb, vb, c, s2, 0)
						want := pairInformation(ma, mb, va+s2, vb+s2, c)
						tol := 0.02 + 0.15*want
						if rho > 0.9 {
							tol = 1e-6 + 0.45*want
						} else {
							worst = max(worst, math.Abs(got-want))
						}
						if math.Abs(got-want) > tol {
							t.Errorf("m %v %v, v %v %v, c %v, s² %v: %v, exact %v",
								ma, mb, va, vb, c, s2, got, want)
						}
					}
				}
			}
		}
	}
	t.Logf("largest difference below correlation 0.9: %.4f nats", worst)
}

// pairInformation is the mutual information of the signs of two Gaussians of means ma, mb,
// variances sa2, sb2 and covariance c, by the trapezoid rule over the first.
func pairInformation(ma, mb, sa2, sb2, c float64) float64 {
	const n = 8000
	sa, cond := math.Sqrt(sa2), math.Sqrt(sb2-c*c/sa2)
	var joint [2][2]float64 // [a positive][b positive]
	for k := 0; k <= n; k++ {
		z := -10 + 20*float64(k)/n
		w := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * 20 / n
		if k == 0 || k == n {
			w /= 2
		}
		a := 0
		if ma+sa*z > 0 {
			a = 1
		}
		pb := special.Phi((mb + c*z/sa) / cond)
		joint[a][1] += w * pb
		joint[a][0] += w * (1 - pb)
	}
	info := 0.0
	for a := range 2 {
		for b := range 2 {
			pa, pb := joint[a][0]+joint[a][1], joint[0][b]+joint[1][b]
			if p := joint[a][b]; p > 0 {
				info += p * math.Log(p/(pa*pb))
			}
		}
	}
	return info
}

// Every single-task kind of the golden model files queries its test rows (the queried rows
// distinct, scores positive and falling) or refuses, naming why.
func TestQueryGoldenKinds(t *testing.T) {
	const golden = "cmd/ivm/testdata/golden/"
	refused := map[string]string{"ordinal": "ordinal", "semisupervised": "semisupervised"}
	for _, name := range []string{"binary_alg2", "binary_blend", "binary_constant",
		"binary_labels", "binary_probit", "multiclass_ovo", "multiclass_ovr",
		"multiclass_ovr_alg2", "regression_exact", "regression_ivm", "ordinal", "semisupervised",
		"binary_projected", "multiclass_projected", "regression_projected"} {
		// binary_constant: widened to a projected model (fit.go), the constant predictor,
		// which keeps its query part (gzipped, as the larger files are).
		f, err := os.Open(golden + name + ".json")
		var r io.Reader = f
		if errors.Is(err, fs.ErrNotExist) {
			if f, err = os.Open(golden + name + ".json.gz"); err == nil {
				r, err = gzip.NewReader(f)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		p, err := Load(r)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := dataset.ReadFile(golden+name+".test.csv",
			dataset.ReadOptions{Dim: p.InputDim(), LabelOptional: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		qs, err := p.Query(data.X, 5, QueryOptions{})
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

// Scored by the information about a row's own latent (a regression, or a classifier by
// BALD), variance bounds from the leading active points, solving in full only the rows that
// could win, choose what scoring every row exactly chooses.
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
		"binary":               fixedFit(t, x, y, Config{Task: Binary}),
		"ovr":                  fixedFit(t, x, y3, Config{Decomposition: OneVsRest}),
		"regression":           fixedFit(t, x, yr, Config{Task: Regression}),
		"projected binary":     projectedOf(t, x, y, Binary),
		"projected classes":    projectedOf(t, x, y3, MultiClass),
		"projected regression": projectedOf(t, x, yr, Regression),
	} {
		rb, sb := boundedChoice(t, p, pool, false)
		re, se := boundedChoice(t, p, pool, true)
		for i := range re {
			if rb[i] != re[i] || math.Abs(sb[i]-se[i]) > 1e-12*(1+se[i]) {
				t.Fatalf("%s: bounded chose %v %v, exact %v %v", name, rb, sb, re, se)
			}
		}
	}
}

// projectedOf is a projected model of 40 centres of x and y.
func projectedOf(t *testing.T, x *mat.Dense, y []float64, task Task) *Predictor {
	t.Helper()
	p, err := Fit(x, y, Config{Task: task, Decomposition: Projected, ActiveSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// boundedChoice is the 12 rows p's units choose from the pool by the information about
// their latents, starting from bounds on the variances or, exact, from the variances.
func boundedChoice(t *testing.T, p *Predictor, pool *mat.Dense, exact bool) ([]int,
	[]float64) {
	t.Helper()
	units, err := p.queryUnits()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.queryLatents(units, pool, false); err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if len(u.ranks) == 0 {
			t.Fatal("the units' variances are not bounds")
		}
		if exact {
			if err := u.boundLatents(pool, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := newBatchQuery(units, pool, false)
	if err != nil {
		t.Fatal(err)
	}
	rows, scores, err := b.choose(12)
	if err != nil {
		t.Fatal(err)
	}
	return rows, scores
}

// BALD's closed form (Houlsby et al.'s approximation of the expected entropy) is within
// 0.005 nats of the mutual information integrated numerically, and grows with the variance.
func TestProbitInformation(t *testing.T) {
	for _, s2 := range []float64{1e-6, 0.01, 0.1, 1} {
		for m := 0.0; m <= 6; m += 0.25 {
			prev := -1.0
			for v := 1e-4; v < 100; v *= 1.3 {
				got := probitInformation(m, v, s2)
				if got < prev-1e-12 {
					t.Fatalf("m %v, s² %v: information falls from %v to %v at v %v",
						m, s2, prev, got, v)
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

// The two scores choose differently where they should: of a pool with a far row alone and
// a tight group of rows near the boundary, BALD takes the far row first (its latent is the
// least known), EPIG a row of the group (its label tells about the others'); an unknown
// score name is refused.
func TestQueryScores(t *testing.T) {
	x, y := mirroredBlobs(60)
	p := fixedFit(t, x, y, Config{Task: Binary, ActiveSize: 240})
	pool := rows([]float64{0, 6}, []float64{0.1, 0}, []float64{0.15, 0.05}, []float64{0.05, 0.1},
		[]float64{0.1, -0.05}, []float64{-2.5, 0})
	bald, err := p.Query(pool, 1, QueryOptions{Score: ScoreBALD})
	if err != nil {
		t.Fatal(err)
	}
	epig, err := p.Query(pool, 1, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bald[0].Row != 0 || epig[0].Row < 1 || epig[0].Row > 4 {
		t.Errorf("BALD chose %+v, EPIG %+v: want the far row, then one of the group", bald, epig)
	}
	if _, err := ParseQueryScore("entropy"); err == nil {
		t.Error("ParseQueryScore(entropy): no error")
	}
	for _, s := range []QueryScore{ScoreAuto, ScoreEPIG, ScoreBALD} {
		if got, err := ParseQueryScore(s.String()); err != nil || got != s {
			t.Errorf("ParseQueryScore(%q) = %v, %v", s, got, err)
		}
	}
}

// The default score is BALD for a classifier of queryManyClasses classes or more and EPIG
// otherwise: an 8-class model's default query is its BALD query.
func TestQueryScoreAuto(t *testing.T) {
	classes := func(k int) []float64 {
		c := make([]float64, k)
		for i := range c {
			c[i] = float64(i)
		}
		return c
	}
	for _, c := range []struct {
		p    *Predictor
		want QueryScore
	}{
		{&Predictor{Task: Binary, Classes: classes(2)}, ScoreEPIG},
		{&Predictor{Task: Regression}, ScoreEPIG},
		{&Predictor{Task: MultiClass, Classes: classes(queryManyClasses - 1)}, ScoreEPIG},
		{&Predictor{Task: MultiClass, Classes: classes(queryManyClasses)}, ScoreBALD},
	} {
		if got := ScoreAuto.resolve(c.p); got != c.want {
			t.Errorf("%v of %d classes: %v, want %v", c.p.Task, len(c.p.Classes), got, c.want)
		}
		if got := ScoreEPIG.resolve(c.p); got != ScoreEPIG {
			t.Errorf("ScoreEPIG resolved to %v", got)
		}
	}
	rng := rand.New(rand.NewPCG(8, 8))
	x := mat.NewDense(160, 2, nil)
	y := make([]float64, 160)
	for i := range y {
		y[i] = float64(i % queryManyClasses)
		a := 2 * math.Pi * y[i] / queryManyClasses
		x.SetRow(i, []float64{3*math.Cos(a) + rng.NormFloat64(), 3*math.Sin(a) + rng.NormFloat64()})
	}
	p := fixedFit(t, x, y, Config{Decomposition: OneVsRest})
	pool, _ := twoBlobs(40, 9)
	auto := queriedBy(t, p, pool, 5, ScoreAuto)
	bald := queriedBy(t, p, pool, 5, ScoreBALD)
	for i := range auto {
		if auto[i].Row != bald[i].Row || auto[i].Score != bald[i].Score {
			t.Fatalf("default query %+v, BALD's %+v", auto, bald)
		}
	}
}

// A regression with a local part queries by BALD unless told otherwise, through its local
// part, whose variance is the model's predictive variance σ²: a row's score is what an
// observation tells about its latent, ½ ln(σ²/σ²_n) with σ²_n the local part's noise, so that
// the rows the model is least sure of come first. Two copies of a row: the second is scored
// as if the first's label were known.
func TestQueryLocalPart(t *testing.T) {
	p, xt, _ := localSeries(t)
	if ScoreAuto.resolve(p) != ScoreBALD {
		t.Fatalf("a regression with a local part queries by %v", ScoreAuto.resolve(p))
	}
	pool := mat.DenseCopyOf(xt.Slice(0, 40, 0, 2))
	preds, err := p.Predict(pool)
	if err != nil {
		t.Fatal(err)
	}
	noise := asProjected(p).Projected.Local.NoiseVariance()
	best, bestRow := 0.0, -1
	for i, pr := range preds {
		got, want := soleScore(t, p, pool.RawRowView(i), ScoreAuto), 0.5*math.Log(pr.Var/noise)
		if math.Abs(got-want) > 1e-9*(1+want) {
			t.Errorf("row %d: score %v, want ½ ln(σ²/σ²_n) = %v", i, got, want)
		}
		if got > best {
			best, bestRow = got, i
		}
	}
	qs := queriedBy(t, p, pool, 5, ScoreAuto)
	if qs[0].Row != bestRow || qs[0].Score != best {
		t.Errorf("first row %d scored %v, want row %d's %v", qs[0].Row, qs[0].Score, bestRow,
			best)
	}
	r := pool.RawRowView(bestRow)
	twice := queriedBy(t, p, rows(r, r), 2, ScoreAuto)
	v, n := preds[bestRow].Var-noise, noise
	want := 0.5 * math.Log1p(v*n/(v+n)/n) // the latent's variance given the first label
	if math.Abs(twice[1].Score-want) > 1e-9 {
		t.Errorf("the second copy scored %v, want %v", twice[1].Score, want)
	}
}
