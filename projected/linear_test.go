package projected

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/subset"
)

// TestNewtonLogistic: at the fitted weights the penalised log loss's gradient vanishes, and
// moving any weight either way raises the objective. The last column is unpenalised.
func TestNewtonLogistic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 800, 4
	design := mat.NewDense(n, d, nil)
	y := make([]bool, n)
	for i := range n {
		row := []float64{rng.NormFloat64(), 3 * rng.NormFloat64(), rng.Float64(), 1}
		design.SetRow(i, row)
		z := 0.8*row[0] - 0.2*row[1] + 0.5
		y[i] = rng.Float64() < 1/(1+math.Exp(-z))
	}
	ridge := []float64{1, 1, 1, 0}
	theta, err := newtonLogistic(design, y, ridge)
	if err != nil {
		t.Fatal(err)
	}
	objective := func(th []float64) float64 {
		s := 0.0
		for i := range n {
			s += logLoss(floats.Dot(design.RawRowView(i), th), y[i])
		}
		for j, r := range ridge {
			s += 0.5 * r * th[j] * th[j]
		}
		return s
	}
	grad := make([]float64, d)
	for i := range n {
		p := 1 / (1 + math.Exp(-floats.Dot(design.RawRowView(i), theta)))
		if y[i] {
			p--
		}
		floats.AddScaled(grad, p, design.RawRowView(i))
	}
	for j := range d {
		grad[j] += ridge[j] * theta[j]
	}
	if g := floats.Norm(grad, math.Inf(1)); g > 1e-6 {
		t.Errorf("gradient %v at the fitted weights %v: want 0", grad, theta)
	}
	f := objective(theta)
	for j := range d {
		for _, h := range []float64{-1e-3, 1e-3} {
			moved := append([]float64(nil), theta...)
			moved[j] += h
			if objective(moved) <= f {
				t.Errorf("weight %d moved by %g: objective %v, not above %v", j, h,
					objective(moved), f)
			}
		}
	}
	if math.Abs(theta[0]-0.8) > 0.25 || math.Abs(theta[1]+0.2) > 0.1 {
		t.Errorf("weights %v: want about 0.8 and −0.2 for the first two", theta)
	}
}

// tiltedRows draws rows of 12 inputs, long-tailed amounts, indicators and normal values,
// whose log odds are a weak linear function of them all (tiltedLogOdds).
func tiltedRows(rng *rand.Rand, n int) (*mat.Dense, []int) {
	const dim = 12
	x := mat.NewDense(n, dim, nil)
	y := make([]int, n)
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			switch j % 3 {
			case 0:
				row[j] = math.Exp(rng.NormFloat64())
			case 1:
				row[j] = float64(rng.IntN(2))
			default:
				row[j] = rng.NormFloat64()
			}
		}
		if rng.Float64() < 1/(1+math.Exp(-tiltedLogOdds(row))) {
			y[i] = 1
		}
	}
	return x, y
}

// tiltedLogOdds is the log odds of class 1 at a row of tiltedRows.
func tiltedLogOdds(row []float64) float64 {
	z := -1.5
	for j, v := range row {
		z += 0.15 * v * float64(j%2*2-1)
	}
	return z
}

// TestWithLinear: a model whose held-out probabilities are the base rate everywhere gets a
// linear part, and its tilted probabilities predict new rows nearly as well as the true
// log odds; held-out probabilities that are the true ones get no tilt worth a standard error.
func TestWithLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := tiltedRows(rng, 5000)
	xt, yt := tiltedRows(rng, 5000)
	tg, err := ClassTargets(y, 2)
	if err != nil {
		t.Fatal(err)
	}
	cal := subset.All(3000)
	rate := calib.ClassPriors(y, 2)
	res := &Result{Model: &Model{}, cal: cal, heldOutClasses: subset.Of(y, cal),
		heldOut: mat.NewDense(len(cal), 2, nil)}
	for i := range cal {
		res.heldOut.SetRow(i, rate)
	}
	if err := res.withLinear(x, tg, subset.All(5000)); err != nil {
		t.Fatal(err)
	}
	l := res.Model.Linear
	if l == nil {
		t.Fatal("no linear part beside the base rate")
	}
	tilted, truth, base := 0.0, 0.0, 0.0
	for i, c := range yt {
		p := slices.Clone(rate)
		l.Tilt(p, xt.RawRowView(i))
		tilted -= math.Log(p[c])
		base -= math.Log(rate[c])
		q := 1 / (1 + math.Exp(-tiltedLogOdds(xt.RawRowView(i))))
		truth -= math.Log([]float64{1 - q, q}[c])
	}
	n := float64(len(yt))
	t.Logf("test log loss: base rate %.4f, tilted %.4f, true log odds %.4f; held out %.4f "+
		"against %.4f", base/n, tilted/n, truth/n, res.Baseline.Model, res.Baseline.Prior)
	if tilted/n > truth/n+0.01 || !res.Baseline.Beaten() {
		t.Errorf("tilted base rate: test log loss %.4f against the truth's %.4f, held out "+
			"%.4f against %.4f: want within 0.01 and beaten", tilted/n, truth/n,
			res.Baseline.Model, res.Baseline.Prior)
	}

	res = &Result{Model: &Model{}, cal: cal, heldOutClasses: subset.Of(y, cal),
		heldOut: mat.NewDense(len(cal), 2, nil)}
	for i, r := range cal {
		q := 1 / (1 + math.Exp(-tiltedLogOdds(x.RawRowView(r))))
		res.heldOut.SetRow(i, []float64{1 - q, q})
	}
	if err := res.withLinear(x, tg, subset.All(5000)); err != nil {
		t.Fatal(err)
	}
	if res.Model.Linear != nil {
		t.Errorf("a linear part beside the true probabilities: %+v", res.Model.Linear)
	}
}

// TestDecodeLinear: a linear part survives its file form, and Decode refuses one of the wrong
// shape, not finite, or beside a regression, naming the fault.
func TestDecodeLinear(t *testing.T) {
	file := func() *File {
		return &File{KernelSpec: "rbf(gamma=1,variance=1)", Lambda: 0.1,
			Mix: [][]float64{{1, 0}, {0, 1}}, Offset: []float64{0, 0},
			Centres: [][]float64{{1, 2}}, Weights: [][]float64{{0.5, -0.5}},
			Linear: &LinearFile{Weights: [][]float64{{0, 0.3}, {0, -0.2}}, Bias: []float64{0,
				0.1}, Power: 0.8}}
	}
	pr, err := Decode(file(), 2)
	if err != nil {
		t.Fatal(err)
	}
	back := Encode(pr).Linear
	if want := file().Linear; !slices.Equal(back.Bias, want.Bias) || back.Power != want.Power ||
		!slices.Equal(back.Weights[1], want.Weights[1]) {
		t.Errorf("linear part %+v after its file form, want %+v", back, want)
	}
	p := []float64{0.4, 0.6}
	pr.Linear.Tilt(p, []float64{1, 1})
	z := 0.8*math.Log(0.6/0.4) + 0.3 - 0.2 + 0.1
	if q := 1 / (1 + math.Exp(-z)); math.Abs(p[1]-q) > 1e-12 || math.Abs(p[0]+p[1]-1) > 1e-12 {
		t.Errorf("tilted probabilities %v, want %v for class 1", p, q)
	}
	for name, c := range map[string]struct {
		edit    func(*File)
		classes int
		want    string
	}{
		"rows":       {func(f *File) { f.Linear.Weights = f.Linear.Weights[:1] }, 2, "1 rows"},
		"row width":  {func(f *File) { f.Linear.Weights[0] = []float64{1} }, 2, "row 1 has 1"},
		"biases":     {func(f *File) { f.Linear.Bias = []float64{1} }, 2, "1 biases"},
		"power":      {func(f *File) { f.Linear.Power = math.NaN() }, 2, "NaN"},
		"weight":     {func(f *File) { f.Linear.Weights[1][1] = math.Inf(1) }, 2, "+Inf"},
		"regression": {func(f *File) {}, 1, "not a regression"},
	} {
		f := file()
		if c.classes == 1 {
			f.Mix, f.Offset, f.Weights = [][]float64{{1}}, []float64{0}, [][]float64{{1}}
		}
		c.edit(f)
		if _, err := Decode(f, c.classes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}
