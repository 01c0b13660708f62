package exactgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/kern"
)

// exactData returns n rows of dim inputs in [−2, 2] whose target depends on the first
// input only, with noise of standard deviation 0.1.
func exactData(n, dim int, seed uint64) (*mat.Dense, []float64) {
	return sineData(n, dim, rand.NewPCG(seed, 1), 2, 1.5)
}

// sineData returns n rows of dim inputs uniform in [−half, half] drawn from src, and
// targets sin(freq·x₁) plus noise of standard deviation 0.1.
func sineData(n, dim int, src rand.Source, half, freq float64) (*mat.Dense, []float64) {
	rng := rand.New(src)
	x := mat.NewDense(n, dim, nil)
	y := make([]float64, n)
	for i := range y {
		for d := 0; d < dim; d++ {
			x.Set(i, d, 2*half*rng.Float64()-half)
		}
		y[i] = math.Sin(freq*x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	return x, y
}

// The marginal likelihood's gradient agrees with central differences, with one length
// scale and with one per input under their prior.
func TestExactGradient(t *testing.T) {
	x, y := exactData(40, 3, 1)
	for _, ard := range []bool{false, true} {
		e := newExactGP(x, y)
		e.ard = ard
		th := []float64{0.3, -1.5, -2.5, 0.2}
		if ard {
			th = append(th, 0.4, -0.3, 0.1)
		}
		g := make([]float64, len(th))
		e.eval(th, g)
		for k := range th {
			const h = 1e-5
			p, m := append([]float64(nil), th...), append([]float64(nil), th...)
			p[k] += h
			m[k] -= h
			fd := (e.eval(p, nil) - e.eval(m, nil)) / (2 * h)
			if math.Abs(fd-g[k]) > 1e-5*math.Max(1, math.Abs(fd)) {
				t.Errorf("ard %v, θ[%d]: gradient %.8g, central difference %.8g", ard, k, g[k], fd)
			}
		}
	}
}

// The closed-form leave-one-out predictions are those of the GP refitted without the row,
// under the same hyperparameters.
func TestExactLeaveOneOut(t *testing.T) {
	x, y := exactData(30, 2, 2)
	fit, err := fitExact(newExactGP(x, y), true)
	if err != nil {
		t.Fatal(err)
	}
	spec := fit.spec(1)
	k, err := kern.Parse(spec, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := len(y)
	for _, i := range []int{0, 7, n - 1} {
		var rest []int
		for j := 0; j < n; j++ {
			if j != i {
				rest = append(rest, j)
			}
		}
		xr := mat.NewDense(n-1, 2, nil)
		yr := mat.NewVecDense(n-1, nil)
		for r, j := range rest {
			xr.SetRow(r, x.RawRowView(j))
			yr.SetVec(r, y[j])
		}
		xi := mat.NewDense(1, 2, x.RawRowView(i))
		var kk, ks, kii mat.Dense
		// kern leaves the white term's noise out of K (selection adds it to each active
		// point's own value), so it is added here: to K's diagonal and to the row's variance.
		k.K(&kk, xr, xr)
		for r := 0; r < n-1; r++ {
			kk.Set(r, r, kk.At(r, r)+fit.noise)
		}
		k.K(&ks, xr, xi)
		k.K(&kii, xi, xi)
		kii.Set(0, 0, kii.At(0, 0)+fit.noise)
		var chol mat.Cholesky
		if !chol.Factorize(mat.NewSymDense(n-1, kk.RawMatrix().Data)) {
			t.Fatal("K of the other rows is not positive definite")
		}
		var a, v mat.VecDense
		if err := chol.SolveVecTo(&a, yr); err != nil {
			t.Fatal(err)
		}
		ksv := mat.NewVecDense(n-1, ks.RawMatrix().Data)
		if err := chol.SolveVecTo(&v, ksv); err != nil {
			t.Fatal(err)
		}
		mean, variance := mat.Dot(ksv, &a), kii.At(0, 0)-mat.Dot(ksv, &v)
		// The spec rounds to 8 digits; the bias term and the noise floor are in both.
		if math.Abs(mean-fit.looMean[i]) > 1e-5 ||
			math.Abs(variance-fit.looVar[i]) > 1e-5*variance {
			t.Errorf("row %d: leave-one-out %.7g ± %.7g, refitted %.7g ± %.7g",
				i, fit.looMean[i], fit.looVar[i], mean, variance)
		}
	}
}

// The length scale of the input the target depends on is the shortest, and the prior
// keeps the irrelevant inputs' scales finite.
func TestExactLearnsRelevance(t *testing.T) {
	x, y := exactData(150, 3, 3)
	fit, err := fitExact(newExactGP(x, y), true)
	if err != nil {
		t.Fatal(err)
	}
	l := fit.length
	if !(l[0] < l[1] && l[0] < l[2]) || math.IsInf(l[1], 0) || math.IsInf(l[2], 0) {
		t.Errorf("length scales %v: want the first the shortest, all finite", l)
	}
	// The targets here are not standardised: the noise variance is 0.01.
	if fit.noise < 0.005 || fit.noise > 0.02 {
		t.Errorf("noise variance %v, want about 0.01", fit.noise)
	}
}

// RelevanceScaler on more rows than its first fit weights the one input that matters most,
// reports a gain over one width and refines the fit on all the rows; where the inputs matter
// alike it reports next to no gain.
func TestRelevanceScalerGain(t *testing.T) {
	const n = 500
	unequal, y := exactData(n, 3, 21)
	alike := mat.NewDense(n, 3, nil)
	same := make([]float64, n)
	rng := rand.New(rand.NewPCG(22, 1))
	for i := range same {
		for d := range 3 {
			alike.Set(i, d, 4*rng.Float64()-2)
		}
		same[i] = math.Sin(alike.At(i, 0)+alike.At(i, 1)+alike.At(i, 2)) + 0.1*rng.NormFloat64()
	}
	var gains [2]float64
	for i, c := range []struct {
		x *mat.Dense
		y []float64
	}{{unequal, y}, {alike, same}} {
		std, err := dataset.FitScaler(c.x, dataset.ScaleStd)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := RelevanceScaler(c.x, c.y, std, 5, RelevanceRefineRows)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && !strings.Contains(rel.Report.Kernel, fmt.Sprintf("on %d rows", n)) {
			t.Errorf("report %q: want the fit refined on all %d rows", rel.Report.Kernel, n)
		}
		gains[i] = rel.Gain
		if i == 0 && !(rel.Scaler.Weight[0] == 1 && rel.Scaler.Weight[1] < 0.2) {
			t.Errorf("weights %v: want the first input's 1, the others' below 0.2",
				rel.Scaler.Weight)
		}
	}
	if !(gains[0] > 0.05 && gains[1] < 0.01) {
		t.Errorf("gains over one width %v: want above 0.05 for one relevant input of three, "+
			"below 0.01 for three alike", gains)
	}
}
