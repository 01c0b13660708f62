package projected

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
)

// additiveRows draws n rows of four inputs — two smooth, a code of 40 values, and one that
// does not matter — and targets that are a sum of one-input effects: a sine, a step, and an
// effect for each code, with noise of sd 0.2.
func additiveRows(rng *rand.Rand, n int) (*mat.Dense, []float64) {
	effect := make([]float64, 40)
	codes := rand.New(rand.NewPCG(1, 2)) // the same effects in every call
	for i := range effect {
		effect[i] = codes.NormFloat64()
	}
	x := mat.NewDense(n, 4, nil)
	y := make([]float64, n)
	for i := range n {
		a, b, c := 2*rng.Float64()-1, 2*rng.Float64()-1, rng.IntN(len(effect))
		x.SetRow(i, []float64{a, b, float64(c), rng.NormFloat64()})
		step := 0.0
		if b > 0.3 {
			step = 1
		}
		y[i] = math.Sin(4*a) + step + effect[c] + 0.2*rng.NormFloat64()
	}
	return x, y
}

// TestNewAdditive: a knot at each value of a code, quantiles of a continuous input, none for
// a constant one; the knots' widths from their spacing; quantiles everywhere past
// maxAdditiveKnots.
func TestNewAdditive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(1000, 3, nil)
	for i := range 1000 {
		x.SetRow(i, []float64{float64(i % 7), rng.NormFloat64(), 5})
	}
	a := newAdditive(x, 0.1, codeValues)
	if len(a.Inputs) != 2 || a.Variance != 0.1 {
		t.Fatalf("additive part of inputs %+v, variance %g: want inputs 0 and 1, 0.1",
			a.Inputs, a.Variance)
	}
	code, cont := a.Inputs[0], a.Inputs[1]
	if code.Input != 0 || !slices.Equal(code.Knots, []float64{0, 1, 2, 3, 4, 5, 6}) ||
		code.Gamma != 2 {
		t.Errorf("the code's knots %v, γ %g: want its 7 values and γ 2", code.Knots, code.Gamma)
	}
	if cont.Input != 1 || len(cont.Knots) != maxKnots || !slices.IsSorted(cont.Knots) {
		t.Errorf("the continuous input's knots %v: want %d sorted quantiles", cont.Knots,
			maxKnots)
	}
	if a.Knots() != 7+maxKnots {
		t.Errorf("size %d, want %d", a.Knots(), 7+maxKnots)
	}
	// 40 inputs of 50 codes would be 2 000 knots: every input gets quantiles instead.
	wide := mat.NewDense(500, 40, nil)
	for i := range 500 {
		for j := range 40 {
			wide.Set(i, j, float64(rng.IntN(50)))
		}
	}
	if s := newAdditive(wide, 1, codeValues).Knots(); s > 40*maxKnots {
		t.Errorf("%d knots for 40 inputs of 50 codes, want at most %d", s, 40*maxKnots)
	}
}

// TestAdditiveLeaveOneOut checks the leave-one-out latents of a system with an additive
// part against systems solved again without each row, and the additive part's file form.
func TestAdditiveLeaveOneOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	n, m := blockRows+40, 30
	x, y := additiveRows(rng, n)
	_, dim := x.Dims()
	k, err := kern.Parse("rbf(gamma=0.5,variance=1)", dim)
	if err != nil {
		t.Fatal(err)
	}
	centres := subset.Dense(x, distinctRows(x, rng.Perm(n), m))
	model := func() *Model {
		return &Model{Kernel: "rbf(gamma=0.5,variance=1)", Lambda: 0.1, Centres: centres,
			Additive: newAdditive(x, 0.3, codeValues), k: k}
	}
	tg := Targets{y: y}
	fitWithout := func(drop int) *Model {
		pr := model()
		sys := tg.system(pr.featureCount())
		rows := slices.Delete(subset.All(n), drop, drop+1)
		if err := sys.addRows(pr, x, nil, rows, tg, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := pr.solve(sys); err != nil {
			t.Fatal(err)
		}
		return pr
	}
	pr := model()
	sys := tg.system(pr.featureCount())
	if err := sys.addRows(pr, x, nil, subset.All(n), tg, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := pr.solve(sys); err != nil {
		t.Fatal(err)
	}
	if r, _ := pr.Additive.Weights.Dims(); r != pr.Additive.Knots() {
		t.Fatalf("%d additive weights for %d knots", r, pr.Additive.Knots())
	}
	loo := sys.leaveOneOut(x, tg.codes(subset.All(n)), pr.allWeights(), pr.featureRows)
	for _, i := range []int{0, 9, blockRows + 5, n - 1} {
		row := mat.DenseCopyOf(x.Slice(i, i+1, 0, dim))
		want := fitWithout(i).Latents(row).At(0, 0)
		if got := loo.At(i, 0); math.Abs(got-want) > 1e-8 {
			t.Errorf("row %d's leave-one-out latent %g, solved without it %g", i, got, want)
		}
	}
	// The file form gives the same latents back.
	pr.setScoreMap(scoreMap{mix: mat.NewDense(1, 1, []float64{1}), offset: []float64{0}})
	back, err := Decode(Encode(pr), 1)
	if err != nil {
		t.Fatal(err)
	}
	a, b := pr.Latents(x), back.Latents(x)
	if !floats.Equal(a.RawMatrix().Data, b.RawMatrix().Data) {
		t.Error("the decoded model's latents differ from the model's")
	}
}

// TestFitAdditive: on targets that are a sum of one-input effects Fit chooses an additive
// part, and it predicts new rows with a quarter less squared error than the rbf alone.
func TestFitAdditive(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	x, y := additiveRows(rng, 6000)
	xt, yt := additiveRows(rng, 2000)
	mse := func() (float64, *Model) {
		tg, err := RealTargets(y)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Fit(x, tg, []Scaling{{StartGamma: 0.25}}, Options{Seed: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := res.Model.Latents(xt)
		s := 0.0
		for i, v := range yt {
			d := res.Model.Scores(f.RawRowView(i))[0] - v
			s += d * d
		}
		return s / float64(len(yt)), res.Model
	}
	with, pr := mse()
	if pr.Additive == nil {
		t.Fatal("no additive part chosen")
	}
	if in := pr.Additive.Inputs; len(in) != 4 || len(in[2].Knots) != 40 {
		t.Errorf("additive inputs %+v: want all four, the code with 40 knots", in)
	}
	saved := additiveVariances
	additiveVariances = nil
	defer func() { additiveVariances = saved }()
	without, pr := mse()
	if pr.Additive != nil {
		t.Fatal("an additive part with no variance to score")
	}
	t.Logf("test MSE %.4f with the additive part, %.4f without (noise 0.04)", with, without)
	if with > 0.75*without {
		t.Errorf("test MSE %.4f with the additive part, %.4f without: want a quarter less",
			with, without)
	}
}

// TestNarrowerBeside: where the targets are broad one-input effects and a narrow interaction,
// the additive part takes the effects and a narrower rbf then predicts the held-out rows
// better than the width chosen for everything.
func TestNarrowerBeside(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	const n, nv = 4000, 800
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		x.SetRow(i, []float64{a, b})
		y[i] = 2*math.Sin(2*a) + 2*b*b + 0.5*math.Sin(6*a)*math.Sin(6*b) + 0.1*rng.NormFloat64()
	}
	tg, err := RealTargets(y)
	if err != nil {
		t.Fatal(err)
	}
	val, rest := subset.All(n)[:nv], subset.All(n)[nv:]
	wide := pick{gamma: 0.05, lambda: 0.01}
	ws := &widthSearch{t: tg, gamma: wide.gamma, fit: rest, val: val}
	xf, xv, err := ws.kernels(x)
	if err != nil {
		t.Fatal(err)
	}
	base := newAdditive(xf, 1, codeValues)
	c, ok := ws.additiveGain(wide.lambda, base, xf, xv)
	if !ok {
		t.Fatal("no additive part chosen beside the wide rbf")
	}
	narrow, step := ws.narrowerBeside(c, base, xf, xv)
	before, after := floats.Sum(c.rows)/nv, floats.Sum(narrow.rows)/nv
	t.Logf("held-out loss %.4f at γ %g, %.4f at %d doublings", before, wide.gamma, after, step)
	if step == 0 || after >= before {
		t.Errorf("held-out loss %.4f at γ %g, %.4f after %d doublings: want a narrower width "+
			"that does better", before, wide.gamma, after, step)
	}
	got, err := withAdditive(x, tg, wide, val, rest)
	if err != nil {
		t.Fatal(err)
	}
	if want := wide.gamma * math.Pow(2, float64(step)); got.additive == nil || got.gamma != want {
		t.Errorf("withAdditive's pick: γ %g, part %v; want γ %g with a part", got.gamma,
			got.additive != nil, want)
	}
}

// TestKnotPlan: codes keep a knot for each value while the knots fit; past maxAdditiveKnots
// the quantiled inputs share what the codes leave, then the code of most values is
// quantiled too.
func TestKnotPlan(t *testing.T) {
	many := func(k, c int) []int { return slices.Repeat([]int{c}, k) }
	for _, c := range []struct {
		counts   []int
		codes    int
		most, q  int
		describe string
	}{
		{[]int{316, 24, 30, 2, 2, 1}, manyCodeValues, manyCodeValues, maxKnots,
			"a code of 316 values and others"},
		{[]int{316, 24, 30, 2, 2, 1}, codeValues, codeValues, maxKnots, "316 values quantiled"},
		{append([]int{300}, many(10, 5000)...), manyCodeValues, manyCodeValues, 10,
			"quantiles share the rest"},
		{[]int{350, 300, 5000}, manyCodeValues, 349, maxKnots, "the larger code quantiled"},
		{many(40, 50), codeValues, 49, 10, "40 codes of 50 values, all quantiled"},
	} {
		most, q := knotPlan(c.counts, c.codes)
		if most != c.most || q != c.q {
			t.Errorf("%s: plan (%d, %d), want (%d, %d)", c.describe, most, q, c.most, c.q)
		}
	}
}
