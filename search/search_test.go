package search

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// Folds are stratified: every class is dealt evenly over them.
func TestDealFoldsStratifies(t *testing.T) {
	y := make([]float64, 90)
	for i := range y {
		y[i] = float64(i % 3)
		if i < 30 {
			y[i] = 5 // a class of 30 rows
		}
	}
	assign := dealFolds(y, true, searchFolds, rand.New(rand.NewPCG(1, 1)))
	count := map[[2]float64]int{}
	for i, f := range assign {
		count[[2]float64{y[i], float64(f)}]++
	}
	for key, n := range count {
		total := 0
		for i := range y {
			if y[i] == key[0] {
				total++
			}
		}
		if math.Abs(float64(n)-float64(total)/searchFolds) > 1 {
			t.Errorf("class %v has %d of its %d rows in fold %v", key[0], n, total, key[1])
		}
	}
}

// With exact sites (Gaussian noise) the posterior does not depend on the order of the
// inclusions, so IncludeAll and a greedy Select of every point give the same model.
func TestIncludeAllMatchesSelectingEveryPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 60
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
		y[i] = math.Sin(x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	var mus [2][]float64
	for i := range mus {
		k, err := kern.Parse("rbf(gamma=0.5)+bias+white(variance=0.01)", 2)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.NewSelector(x, y, k, noise.NewGaussian(0), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			err = s.IncludeAll()
		} else {
			err = s.Select(n)
		}
		if err != nil {
			t.Fatal(err)
		}
		mus[i] = append([]float64(nil), s.Mean()...)
	}
	for i := range mus[0] {
		if math.Abs(mus[0][i]-mus[1][i]) > 1e-8 {
			t.Fatalf("posterior mean %d: %v in index order, %v in greedy order",
				i, mus[0][i], mus[1][i])
		}
	}
}

// The pattern search moves on a lattice: a kernel reached again by another path is the
// same kernel, scored once; and it follows a diagonal ridge that a search by one parameter
// at a time cannot climb.
func TestPatternFollowsRidge(t *testing.T) {
	scored := map[searchParams]int{}
	// The score falls along γ·√variance = const towards large variances, and rises off it.
	f := func(p searchParams) float64 {
		off := math.Log2(p.gamma) + 0.5*math.Log2(p.variance)
		return off*off - 0.01*math.Log2(p.variance)
	}
	s := &searcher{memo: map[searchParams]float64{}, outs: map[searchParams][][2][]float64{}}
	evals := 0
	c := &climb{s: s, evals: &evals, origin: searchParams{gamma: 1, variance: 1, white: 1}}
	s.scoreFunc = func(p searchParams) float64 { scored[p]++; evals++; return f(p) }
	c.p = c.params(c.at, engine.Entropy)
	c.best, _ = s.score(c.p)
	if err := c.pattern(false); err != nil {
		t.Fatal(err)
	}
	for p, k := range scored {
		if k > 1 {
			t.Errorf("kernel %+v scored %d times", p, k)
		}
	}
	if c.at[1] < 8 || c.at[0] != -c.at[1]/2 {
		t.Errorf("pattern search ended at lattice point %v, "+
			"want along the ridge γ = variance^-½ with variance ≥ 2⁴", c.at)
	}
}

// A classifier's search never scores a kernel whose variance is above searchMaxVariance,
// however far the held-out score keeps falling towards sharper kernels (separable rows); a
// regression's may.
func TestSearchBoundsProbitVariance(t *testing.T) {
	for _, regression := range []bool{false, true} {
		s := &searcher{regression: regression, memo: map[searchParams]float64{},
			outs: map[searchParams][][2][]float64{}}
		evals, highest := 0, 0.0
		c := &climb{s: s, evals: &evals, origin: searchParams{gamma: 1, variance: 1, white: 1}}
		s.scoreFunc = func(p searchParams) float64 {
			evals++
			highest = max(highest, p.variance)
			return -math.Log(p.variance)
		}
		c.p = c.params(c.at, engine.Entropy)
		c.best, _ = s.score(c.p)
		if err := c.pattern(false); err != nil {
			t.Fatal(err)
		}
		if !regression && (highest > searchMaxVariance || c.p.variance < searchMaxVariance/4) {
			t.Errorf("binary: scored variances up to %g, ended at %g; "+
				"want the highest within (%g/4, %g]", highest, c.p.variance,
				float64(searchMaxVariance), float64(searchMaxVariance))
		}
		if regression && highest <= searchMaxVariance {
			t.Errorf("regression: the search stopped at variance %g", highest)
		}
	}
}

// Calibration never leaves a class impossible: even outputs without a mistake get label
// noise 0.001, and outputs with a confident mistake get more.
func TestCalibrationLabelNoiseFloor(t *testing.T) {
	s := &searcher{valClass: []int{1, 1, 1, 0, 0, 0, 1, 0}}
	clean := [][2][]float64{{{0.9, 0.8, 0.95, 0.1, 0.2, 0.05, 0.7, 0.3}, nil}}
	if c := s.calibration(clean); c.eps != calib.LabelNoiseLevels[0] || c.softmax {
		t.Errorf("calibration %+v on outputs without a mistake, want the least label noise, %v, "+
			"and no softmax (binary)", c, calib.LabelNoiseLevels[0])
	}
	wrong := [][2][]float64{{{0.9, 0.8, 0.95, 0.1, 0.2, 0.05, 0.7, 1 - 1e-12}, nil}}
	if c := s.calibration(wrong); c.eps <= calib.LabelNoiseLevels[0] {
		t.Errorf("label noise %v with a confident mistake, want more than %v",
			c.eps, calib.LabelNoiseLevels[0])
	}
}

// One-vs-rest calibration takes the softmax of the scores z_c unless the power of the q_c
// fits the validation rows clearly better. Rows between two classes (both q_c near ½, one
// score ahead) are what the softmax gets right and the power cannot; rows whose wrong class
// scores highest while both are positive cost the power little (Φ is flat there) and the
// softmax much.
func TestCalibrationSoftmaxChoice(t *testing.T) {
	// outputs builds three one-vs-rest problems' outputs, q_c = Φ(z_c) and the scores z_c,
	// from rows of scores.
	outputs := func(z [][3]float64) [][2][]float64 {
		out := make([][2][]float64, 3)
		for _, row := range z {
			for c := range out {
				out[c][0] = append(out[c][0], distuv.UnitNormal.CDF(row[c]))
				out[c][1] = append(out[c][1], row[c])
			}
		}
		return out
	}
	var between, flat [][3]float64
	var valClass []int
	for i := range 300 {
		k, next := i%3, (i+1)%3
		b, f := [3]float64{-3, -3, -3}, [3]float64{-4, -4, -4}
		// Between class k and the next: both near 0, k ahead by 0.3 (behind on every
		// sixth row, a mistake).
		b[k], b[next] = 0.15, -0.15
		if i%6 == 5 {
			b[k], b[next] = -0.15, 0.15
		}
		// Half the rows clear but all scores negative, half a mistake between two
		// positive scores.
		f[k] = -1
		if i%2 == 1 {
			f[k], f[next] = 0.5, 1.5
		}
		between, flat = append(between, b), append(flat, f)
		valClass = append(valClass, k)
	}
	s := &searcher{valClass: valClass}
	cb := s.calibration(outputs(between))
	if !cb.softmax {
		t.Errorf("rows between two classes: calibration %+v, want the softmax", cb)
	}
	if got, power := s.logLoss(outputs(between), cb),
		s.logLoss(outputs(between), s.fitCalib(outputs(between), false)); got >= power {
		t.Errorf("rows between two classes: log loss %v with %+v, not below the power family's %v",
			got, cb, power)
	}
	cf := s.calibration(outputs(flat))
	if cf.softmax {
		t.Errorf("mistakes between positive scores: calibration %+v, want the power family", cf)
	}
	if got, soft := s.logLoss(outputs(flat), cf),
		s.logLoss(outputs(flat), s.fitCalib(outputs(flat), true)); got >= soft {
		t.Errorf("mistakes between positive scores: log loss %v with %+v, "+
			"not below the softmax's %v", got, cf, soft)
	}
}

// The covering sharpness keeps the 95 % intervals covering the validation targets: with
// standard normal residuals of unit predicted variance it is near 1; with heavy tails it
// widens the intervals (a < 1).
func TestCoveringSharpness(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 2000
	s := &searcher{regression: true, yVal: make([]float64, n)}
	mu, vs := make([]float64, n), make([]float64, n)
	for i := range s.yVal {
		s.yVal[i], vs[i] = rng.NormFloat64(), 1
	}
	a := s.coveringSharpness([][2][]float64{{mu, vs}})
	if a < 0.8 || a > 1.05 {
		t.Errorf("normal residuals: covering sharpness %v, want about 1 (a little below)", a)
	}
	for i := range s.yVal {
		s.yVal[i] = rng.NormFloat64() / math.Sqrt(rng.ExpFloat64()) // heavy-tailed
	}
	if a := s.coveringSharpness([][2][]float64{{mu, vs}}); a >= 0.8 {
		t.Errorf("heavy-tailed residuals: covering sharpness %v, "+
			"want the intervals widened (a < 0.8)", a)
	}
}

// The final-size check moves to the sharper kernel only on a gain larger than its standard
// error: the mean of the paired differences and the error of that mean.
func TestPairedGain(t *testing.T) {
	a := []float64{1, 2, 3, 4}
	b := []float64{0.5, 1.5, 2.5, 3.5}
	if m, se := calib.PairedGain(a, b); m != 0.5 || se != 0 {
		t.Errorf("constant gain: %v ± %v, want 0.5 ± 0", m, se)
	}
	b = []float64{0, 2, 3, 5}
	// differences 1, 0, 0, −1: mean 0, sd √(2/3), se √(2/3)/2
	if m, se := calib.PairedGain(a, b); m != 0 || math.Abs(se-math.Sqrt(2.0/3)/2) > 1e-15 {
		t.Errorf("noisy gain: %v ± %v, want 0 ± %v", m, se, math.Sqrt(2.0/3)/2)
	}
}

// On one held-out fold of a large set, finalSize validates on more rows than the search:
// rows of the same fold, none of them the search's, with their classes, drawn alike by
// every searcher of the same seed.
func TestFinalValidationRows(t *testing.T) {
	n := 30000
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		x.Set(i, 0, float64(i)) // the row's index, to recognise it after scaling
		x.Set(i, 1, rng.NormFloat64())
		y[i] = float64(i % 3)
	}
	sc, err := dataset.FitScaler(x, dataset.ScaleNone)
	if err != nil {
		t.Fatal(err)
	}
	task := Task{Classes: []float64{0, 1, 2}}
	s, _, err := newSearcher(x, sc, y, task, 500, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.folds) != 1 || s.xValExtra == nil {
		t.Fatalf("%d folds, extra validation rows %v: want one fold with extra rows",
			len(s.folds), s.xValExtra != nil)
	}
	nVal, _ := s.folds[0].xVal.Dims()
	nExtra, _ := s.xValExtra.Dims()
	if nVal != searchMaxVal || nVal+nExtra != finalValRows(n) || len(s.valClassExtra) != nExtra {
		t.Errorf("%d search + %d extra validation rows (%d classes), want %d + %d",
			nVal, nExtra, len(s.valClassExtra), searchMaxVal, finalValRows(n)-searchMaxVal)
	}
	rowOf := func(m *mat.Dense, i int) int { return int(m.At(i, 0)) }
	seen := map[int]bool{}
	for i := range nVal {
		seen[rowOf(s.folds[0].xVal, i)] = true
	}
	nFit, _ := s.folds[0].xFit.Dims()
	fit := map[int]bool{}
	for i := range nFit {
		fit[rowOf(s.folds[0].xFit, i)] = true
	}
	for i := range nExtra {
		r := rowOf(s.xValExtra, i)
		if seen[r] || fit[r] {
			t.Fatalf("extra validation row %d is also a search validation or fitting row", r)
		}
		seen[r] = true
		if s.valClassExtra[i] != r%3 {
			t.Fatalf("extra validation row %d has class %d, want %d", r, s.valClassExtra[i], r%3)
		}
	}
	fs := s.withFinalVal(s.foldsAt(1250, n))
	if v, _ := fs.folds[0].xVal.Dims(); v != nVal+nExtra || len(fs.valClass) != v {
		t.Errorf("final searcher validates %d rows with %d classes, want %d",
			v, len(fs.valClass), nVal+nExtra)
	}
	if v, _ := s.folds[0].xVal.Dims(); v != nVal || len(s.valClass) != nVal {
		t.Errorf("the search's own validation rows changed to %d", v)
	}
	again, _, err := newSearcher(x, sc, y, task, 500, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(again.folds[0].xFit, s.folds[0].xFit) ||
		!mat.Equal(again.xValExtra, s.xValExtra) {
		t.Error("the rows drawn differ between two searchers of the same seed")
	}
}

// InnerMemory bounds what the searcher's folds hold: three folds of two thirds of the
// rows below searchCVRows, one of at most searchMaxFit rows above, none past the budget.
func TestSearchInnerBytes(t *testing.T) {
	for _, n := range []int{6, 145, 1999, 2000, 2001, 3220, 4500, 10000} {
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(i % 2)
		}
		x := mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			x.Set(i, 0, float64(i))
		}
		sc, err := dataset.FitScaler(x, dataset.ScaleStd)
		if err != nil {
			t.Fatal(err)
		}
		s, _, err := newSearcher(x, sc, y, Task{Classes: []float64{0, 1}}, min(n, 200), Options{})
		if err != nil {
			t.Fatal(err)
		}
		held := 0.0
		for _, fd := range s.folds {
			if in := fd.inner.get(); in != nil {
				held += kern.InnerBytes(in.X().RawMatrix().Rows)
			}
		}
		if bound := InnerMemory(n); held > bound || held == 0 && bound < searchInnerBytes {
			t.Errorf("n = %d: the folds hold %.0f bytes of inner products, bound %.0f",
				n, held, bound)
		}
	}
}

// The calibration's losses from the cached logarithms (powerLogs) are, bit for bit, those of
// sharpening each row's probabilities afresh, a NaN output's row included; a binary
// model's NaN output makes the log loss +Inf.
func TestLossesFromPowerLogs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, problems := range []int{1, 4} {
		rows := 50
		s := &searcher{valClass: make([]int, rows)}
		out := make([][2][]float64, problems)
		for c := range out {
			out[c][0] = make([]float64, rows)
			for i := range out[c][0] {
				out[c][0][i] = rng.Float64()
			}
		}
		for i := range s.valClass {
			s.valClass[i] = rng.IntN(max(problems, 2))
		}
		out[0][0][7] = math.NaN()
		cal := probMap{a: 2.7, eps: 0.003}
		got := s.rowLosses(out, cal)
		for i, k := range s.valClass {
			q := make([]float64, max(problems, 2))
			if problems == 1 {
				q[0], q[1] = 1-out[0][0][i], out[0][0][i]
			} else {
				for c := range out {
					q[c] = out[c][0][i]
				}
			}
			calib.Sharpen(q, cal.a)
			calib.MixUniform(q, cal.eps)
			want := -math.Log(math.Max(q[k], 1e-12))
			if got[i] != want && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
				t.Fatalf("%d problems, row %d: loss %v, want %v", problems, i, got[i], want)
			}
		}
		if v := s.logLoss(out, cal); problems == 1 && !math.IsInf(v, 1) {
			t.Errorf("%d problems: log loss %v with a NaN output, want +Inf", problems, v)
		}
	}
}
