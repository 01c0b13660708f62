package ivm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
)

// pairwiseGain scores probabilities as one-vs-one pairs do: the class frequencies gain
// nothing, and each row's figure is the mean over the other classes.
func TestPairwiseGain(t *testing.T) {
	priors := []float64{0.5, 0.25, 0.25}
	p := mat.NewDense(2, 3, []float64{0.5, 0.25, 0.25, 0.5, 0.25, 0.25})
	if g, _ := pairwiseGain(p, []int{0, 1}, priors); math.Abs(g) > 1e-12 {
		t.Errorf("the priors' gain %v, want 0", g)
	}
	// Row 0, class 0: against class 1 ln(0.8/0.9) − ln(2/3), against class 2 ln(0.8/0.9) −
	// ln(2/3).
	p = mat.NewDense(1, 3, []float64{0.8, 0.1, 0.1})
	want := math.Log(0.8/0.9) - math.Log(2.0/3)
	if g, _ := pairwiseGain(p, []int{0}, priors); math.Abs(g-want) > 1e-12 {
		t.Errorf("gain %v, want %v", g, want)
	}
	pairs := []*Predictor{
		{Baseline: &calib.Baseline{Prior: 0.7, Model: 0.5, SE: 0.03, Rows: 100}},
		{Baseline: &calib.Baseline{Prior: 0.6, Model: 0.5, SE: 0.04, Rows: 300}}}
	g, se, ok := pairsGain(pairs)
	if wantG, wantSE := (100*0.2+300*0.1)/400, math.Hypot(100*0.03, 300*0.04)/400; !ok ||
		math.Abs(g-wantG) > 1e-12 || math.Abs(se-wantSE) > 1e-12 {
		t.Errorf("pairs' gain %v ± %v (%v), want %v ± %v", g, se, ok, wantG, wantSE)
	}
	if _, _, ok := pairsGain(append(pairs, &Predictor{})); ok {
		t.Error("a pair without a held-out figure was compared")
	}
}

// Classes set by a code of many values (a storm, a school) and a smooth effect: the
// projected model of every row tells them apart better than one-vs-one's active sets, and
// Fit takes it.
func TestPreferProjectedPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("fits one-vs-one and projected models of 3 000 rows")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	const codes, classes = 40, 3
	effect := mat.NewDense(codes, classes, nil)
	for i := range codes {
		for c := range classes {
			effect.Set(i, c, 2*rng.NormFloat64())
		}
	}
	scores := func(code int, v float64) []float64 {
		z := mat.Row(nil, code, effect)
		z[0] += 2 * math.Sin(6*v)
		calib.Softmax(z, 1)
		return z
	}
	rows := func(n int) (*mat.Dense, []float64) {
		x, y := mat.NewDense(n, 2, nil), make([]float64, n)
		for i := range n {
			code, v := rng.IntN(codes), rng.Float64()
			x.Set(i, 0, float64(code))
			x.Set(i, 1, v)
			u, p := rng.Float64(), scores(code, v)
			for y[i] = 0; int(y[i]) < classes-1 && u > p[int(y[i])]; y[i]++ {
				u -= p[int(y[i])]
			}
		}
		return x, y
	}
	x, y := rows(3000)
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if asProjected(p) == nil {
		t.Fatalf("Fit made %T, want the projected model", p.Kind)
	}
	ovo, err := Fit(x, y, Config{Decomposition: OneVsOne})
	if err != nil {
		t.Fatal(err)
	}
	xt, yt := rows(2000)
	losses := make([]float64, 3) // the projected model's, one-vs-one's, the truth's
	for j, q := range []*Predictor{p, ovo} {
		preds, err := q.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		for i, pr := range preds {
			losses[j] -= math.Log(pr.Prob[int(yt[i])]) / float64(len(yt))
		}
	}
	for i := range yt {
		losses[2] -= math.Log(scores(int(xt.At(i, 0)), xt.At(i, 1))[int(yt[i])]) /
			float64(len(yt))
	}
	t.Logf("test log loss: projected %.4f, one-vs-one %.4f, the true distribution's %.4f",
		losses[0], losses[1], losses[2])
	if losses[0] >= losses[1] || losses[0] > losses[2]+0.15 {
		t.Errorf("test log loss %.4f, want below one-vs-one's %.4f and within 0.15 of the "+
			"true distribution's %.4f", losses[0], losses[1], losses[2])
	}
}

// Three overlapping Gaussian classes, which the pairs' IVMs draw as well as every row does:
// one-vs-one stays (the projected model would need a gain beyond twice the standard error).
func TestPreferProjectedPairsKeepsPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("fits one-vs-one and projected models of 2 700 rows")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	x, y := mat.NewDense(2700, 2, nil), make([]float64, 2700)
	for i := range y {
		c := i % 3
		y[i] = float64(c)
		x.Set(i, 0, float64(c%2)*1.5+rng.NormFloat64())
		x.Set(i, 1, float64(c/2)*1.5+rng.NormFloat64())
	}
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Kind.(*OneVsOneKind); !ok {
		t.Errorf("Fit made %T, want one-vs-one kept", p.Kind)
	}
}
