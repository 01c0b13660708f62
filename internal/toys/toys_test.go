package toys

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func meanVar(v []float64) (m, s2 float64) {
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s2 += (x - m) * (x - m)
	}
	return m, s2 / float64(len(v)-1)
}

func column(x *mat.Dense, j int) []float64 {
	return mat.Col(nil, j, x)
}

// The empirical covariance of many draws matches the kernel matrix, and a draw at
// far-apart points has the kernel's variance.
func TestSampleGPMoments(t *testing.T) {
	rng := newRand(1)
	x := mat.NewDense(3, 1, []float64{0, 0.3, 1})
	k, err := kern.NewRBF(2, 4)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	k.K(&want, x, nil)
	const draws = 20000
	var got [3][3]float64
	for range draws {
		f, err := SampleGP(x, k, rng)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			for j := range 3 {
				got[i][j] += f[i] * f[j] / draws
			}
		}
	}
	for i := range 3 {
		for j := range 3 {
			// Standard error of a covariance estimate: √((K_ii K_jj + K_ij²)/draws) ≤ 0.04.
			if w := want.At(i, j); math.Abs(got[i][j]-w) > 0.15 {
				t.Errorf("cov(f_%d, f_%d) = %.3f, kernel %.3f", i, j, got[i][j], w)
			}
		}
	}

	// 2000 points 10 apart with γ = 1: independent, variance 4.
	n := 2000
	xs := mat.NewDense(n, 1, nil)
	for i := range n {
		xs.Set(i, 0, 10*float64(i))
	}
	f, err := SampleGP(xs, k, rng)
	if err != nil {
		t.Fatal(err)
	}
	m, v := meanVar(f)
	if math.Abs(m) > 0.2 || math.Abs(v-4) > 0.4 {
		t.Errorf("draw at independent points: mean %.3f, variance %.3f, want 0 and 4", m, v)
	}
}

// A smooth kernel on many close points is singular in floating point: SampleNormal
// factorises it with a small jitter and says so; the draw is smooth and has the right scale.
func TestSampleNormalJitter(t *testing.T) {
	n := 300
	x := mat.NewDense(n, 1, nil)
	for i := range n {
		x.Set(i, 0, float64(i)/float64(n))
	}
	k, _ := kern.NewRBF(1, 1)
	var kx mat.Dense
	k.K(&kx, x, nil)
	f, jitter, err := SampleNormal(symmetric(&kx, n), newRand(2))
	if err != nil {
		t.Fatal(err)
	}
	if jitter <= 0 || jitter > MaxJitter {
		t.Errorf("jitter %g, want in (0, %g]", jitter, MaxJitter)
	}
	for i := 1; i < n; i++ {
		if math.Abs(f[i]-f[i-1]) > 0.05 {
			t.Fatalf("draw not smooth: f[%d] = %g, f[%d] = %g", i-1, f[i-1], i, f[i])
		}
	}

	// A well-conditioned matrix needs none.
	_, jitter, err = SampleNormal(mat.NewSymDense(2, []float64{2, 1, 1, 2}), newRand(2))
	if err != nil || jitter != 0 {
		t.Errorf("identity-like covariance: jitter %g, error %v", jitter, err)
	}
}

func TestSampleErrors(t *testing.T) {
	rng := newRand(3)
	for name, cov := range map[string]*mat.SymDense{
		"indefinite": mat.NewSymDense(2, []float64{1, 2, 2, 1}),
		"negative":   mat.NewSymDense(2, []float64{-1, 0, 0, -1}),
		"NaN":        mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1}),
		"Inf":        mat.NewSymDense(1, []float64{math.Inf(1)}),
	} {
		if _, _, err := SampleNormal(cov, rng); err == nil {
			t.Errorf("%s covariance: no error", name)
		}
	}
	if _, _, err := SampleNormal(mat.NewSymDense(1, []float64{1}), nil); err == nil {
		t.Error("nil rng: no error")
	}
	ard, err := kern.Parse("rbfard", 3)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(4, 2, nil)
	if _, err := SampleGP(x, ard, rng); err == nil {
		t.Error("3-D ARD kernel on 2-D inputs: no error")
	}
	rbf, _ := kern.NewRBF(1, 1)
	if _, err := SampleGP(nil, rbf, rng); err == nil {
		t.Error("nil inputs: no error")
	}
	if _, err := SampleGP(x, nil, rng); err == nil {
		t.Error("nil kernel: no error")
	}
	if _, err := SampleGP(x, rbf, nil); err == nil {
		t.Error("nil rng: no error")
	}

	if _, err := TwoGaussianMixture(0, rng); err == nil {
		t.Error("TwoGaussianMixture(0): no error")
	}
	for _, s := range [][2]float64{{-0.1, 1}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if _, _, err := Regression(10, s, rng); err == nil {
			t.Errorf("Regression scales %v: no error", s)
		}
	}
	if _, _, err := Regression(-1, [2]float64{1, 1}, rng); err == nil {
		t.Error("Regression(-1): no error")
	}
	if _, _, err := ClassificationGP(0, rng); err == nil {
		t.Error("ClassificationGP(0): no error")
	}
	if _, _, err := ClassificationGP(5, nil); err == nil {
		t.Error("ClassificationGP nil rng: no error")
	}
	for _, c := range [][2]int{{0, 3}, {5, 1}, {-1, 3}} {
		if _, _, err := Ordinal(c[0], c[1], rng); err == nil {
			t.Errorf("Ordinal(%d, %d): no error", c[0], c[1])
		}
	}
	if _, _, err := ClassificationMixture(0, rng); err == nil {
		t.Error("ClassificationMixture(0): no error")
	}
	if _, _, err := ClassificationMixture(3, nil); err == nil {
		t.Error("ClassificationMixture nil rng: no error")
	}
}

// Every generator gives the same data for the same seed and different data for another.
func TestToysReproducible(t *testing.T) {
	gens := map[string]func(*rand.Rand) (*mat.Dense, []float64, error){
		"TwoGaussianMixture": func(r *rand.Rand) (*mat.Dense, []float64, error) {
			x, err := TwoGaussianMixture(50, r)
			return x, nil, err
		},
		"Regression": func(r *rand.Rand) (*mat.Dense, []float64, error) {
			return Regression(80, [2]float64{1, 0.2}, r)
		},
		"ClassificationGP": func(r *rand.Rand) (*mat.Dense, []float64, error) {
			return ClassificationGP(80, r)
		},
		"Ordinal": func(r *rand.Rand) (*mat.Dense, []float64, error) { return Ordinal(10, 4, r) },
		"ClassificationMixture": func(r *rand.Rand) (*mat.Dense, []float64, error) {
			return ClassificationMixture(10, r)
		},
	}
	for name, gen := range gens {
		x1, y1, err := gen(newRand(7))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		x2, y2, _ := gen(newRand(7))
		x3, _, _ := gen(newRand(8))
		if !mat.Equal(x1, x2) || !slices.Equal(y1, y2) {
			t.Errorf("%s: two runs with seed 7 differ", name)
		}
		if mat.Equal(x1, x3) {
			t.Errorf("%s: seeds 7 and 8 give the same inputs", name)
		}
	}
}

func TestTwoGaussianMixture(t *testing.T) {
	n := 4001
	x, err := TwoGaussianMixture(n, newRand(4))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != n || c != 2 {
		t.Fatalf("%d×%d, want %d×2", r, c, n)
	}
	half := (n + 1) / 2
	for comp, rows := range [][2]int{{0, half}, {half, n}} {
		want := []float64{-1, 1}[comp]
		for d := range 2 {
			m, v := meanVar(column(x, d)[rows[0]:rows[1]])
			if math.Abs(m-want) > 0.05 || math.Abs(v-0.25) > 0.03 {
				t.Errorf("component %d, input %d: mean %.3f variance %.3f, want %g and 0.25",
					comp, d, m, v, want)
			}
		}
	}
}

func TestToyRegression(t *testing.T) {
	n := 400
	for _, scales := range [][2]float64{{0, 1}, {1, 0.2}, {1, 0}} {
		x, y, err := Regression(n, scales, newRand(5))
		if err != nil {
			t.Fatalf("scales %v: %v", scales, err)
		}
		if r, c := x.Dims(); r != n || c != 2 || len(y) != n {
			t.Fatalf("scales %v: x %d×%d, y %d, want %d×2, %d", scales, r, c, len(y), n, n)
		}
		// y has roughly the prior's variance 1 + 0.001 (one draw: loose bounds).
		if _, v := meanVar(y); v < 0.1 || v > 5 {
			t.Errorf("scales %v: variance of y %.3f, want about 1", scales, v)
		}
		// With a zero scale, f is constant along that input: points whose other input is
		// within 1e-3 differ only by the noise (sd √0.002 ≈ 0.045) and f's change over
		// 1e-3, however far apart they are along the irrelevant input.
		for irr := range 2 {
			if scales[irr] != 0 {
				continue
			}
			other := 1 - irr
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			sort.Slice(idx, func(a, b int) bool {
				return x.At(idx[a], other) < x.At(idx[b], other)
			})
			pairs := 0
			for a := 1; a < n; a++ {
				i, j := idx[a-1], idx[a]
				if x.At(j, other)-x.At(i, other) > 1e-3 || math.Abs(x.At(i, irr)-x.At(j, irr)) < 1 {
					continue
				}
				pairs++
				if d := math.Abs(y[i] - y[j]); d > 0.25 {
					t.Errorf("scales %v: points %d and %d differ by %.3f along input %d "+
						"but %g in y", scales, i, j, x.At(i, irr)-x.At(j, irr), irr+1, d)
				}
			}
			if pairs == 0 {
				t.Errorf("scales %v: no pairs to compare", scales)
			}
		}
	}
}

// Within a regression draw the residual between nearly coincident points has the noise
// variance: y_i − y_j ≈ ε_i − ε_j when x_i ≈ x_j.
func TestToyRegressionNoise(t *testing.T) {
	n := 1200
	x, y, err := Regression(n, [2]float64{0, 1}, newRand(6))
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return x.At(idx[a], 1) < x.At(idx[b], 1) })
	var d []float64
	for a := 1; a < n; a += 2 {
		i, j := idx[a-1], idx[a]
		if x.At(j, 1)-x.At(i, 1) < 1e-3 {
			d = append(d, y[i]-y[j])
		}
	}
	if len(d) < 100 {
		t.Fatalf("only %d close pairs", len(d))
	}
	ss := 0.0
	for _, v := range d {
		ss += v * v
	}
	v := ss / float64(len(d)) / 2
	t.Logf("noise variance from %d close pairs: %.5f", len(d), v)
	if math.Abs(v-RegressionNoise) > 0.3*RegressionNoise {
		t.Errorf("noise variance from %d close pairs %.5f, want %g", len(d), v, RegressionNoise)
	}
}

func TestToyClassificationGP(t *testing.T) {
	n := 500
	x, y, err := ClassificationGP(n, newRand(1))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != n || c != 2 || len(y) != n {
		t.Fatalf("x %d×%d, y %d", r, c, len(y))
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			t.Fatalf("label %d is %g", i, v)
		}
		for d := range 2 {
			if u := x.At(i, d); u < 0 || u >= 1 {
				t.Fatalf("x[%d][%d] = %g outside [0, 1)", i, d, u)
			}
		}
	}
	// One draw of a smooth function may be positive on almost all of the square or on
	// almost none (7 of 500 points positive with seed 9), but over many draws the classes
	// are balanced.
	pos, total := 0, 0
	for s := uint64(100); s < 140; s++ {
		_, ys, err := ClassificationGP(200, newRand(s))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range ys {
			if v == 1 {
				pos++
			}
		}
		total += len(ys)
	}
	if f := float64(pos) / float64(total); f < 0.35 || f > 0.65 {
		t.Errorf("%d of %d labels over 40 draws positive", pos, total)
	}
	for d := range 2 {
		if m, v := meanVar(column(x, d)); math.Abs(m-0.5) > 0.05 || math.Abs(v-1.0/12) > 0.015 {
			t.Errorf("input %d: mean %.3f variance %.4f, want 0.5 and 1/12", d+1, m, v)
		}
	}
	// Labels follow a smooth function: the nearest neighbour mostly has the same label.
	same := 0
	for i := range n {
		best, bj := math.Inf(1), -1
		for j := range n {
			if j == i {
				continue
			}
			d := math.Hypot(x.At(i, 0)-x.At(j, 0), x.At(i, 1)-x.At(j, 1))
			if d < best {
				best, bj = d, j
			}
		}
		if y[bj] == y[i] {
			same++
		}
	}
	if same < 3*n/4 {
		t.Errorf("only %d of %d nearest neighbours share the label", same, n)
	}
}

func TestToyOrdinal(t *testing.T) {
	per, c := 400, 5
	x, y, err := Ordinal(per, c, newRand(10))
	if err != nil {
		t.Fatal(err)
	}
	if r, cols := x.Dims(); r != per*c || cols != 2 || len(y) != per*c {
		t.Fatalf("x %d×%d, y %d", r, cols, len(y))
	}
	counts := make([]int, c)
	for _, v := range y {
		if v != math.Trunc(v) || v < 0 || int(v) >= c {
			t.Fatalf("label %g", v)
		}
		counts[int(v)]++
	}
	for k, cnt := range counts {
		if cnt != per {
			t.Errorf("category %d has %d points, want %d", k, cnt, per)
		}
		rows := x.Slice(k*per, (k+1)*per, 0, 2).(*mat.Dense)
		want := [2]float64{0, OrdinalSpacing * (float64(k) - float64(c-1)/2)}
		for d := range 2 {
			m, v := meanVar(column(rows, d))
			if math.Abs(m-want[d]) > 0.2 || math.Abs(v-1) > 0.2 {
				t.Errorf("category %d input %d: mean %.3f variance %.3f, want %g and 1",
					k, d+1, m, v, want[d])
			}
		}
	}
}

func TestToyClassificationMixture(t *testing.T) {
	per := 500
	x, y, err := ClassificationMixture(per, newRand(11))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 3*per || c != 2 || len(y) != 3*per {
		t.Fatalf("x %d×%d, y %d", r, c, len(y))
	}
	pos := 0
	for _, v := range y {
		if v == 1 {
			pos++
		} else if v != -1 {
			t.Fatalf("label %g", v)
		}
	}
	if pos != 2*per {
		t.Errorf("%d positive, want %d", pos, 2*per)
	}
	// The class is decided by the second input alone: thresholding |x₂| at half the offset
	// classifies almost every point, and the first input has the same distribution in
	// both classes.
	wrong := 0
	var x1pos, x1neg []float64
	for i, v := range y {
		if (math.Abs(x.At(i, 1)) > MixtureOffset/2) != (v == 1) {
			wrong++
		}
		if v == 1 {
			x1pos = append(x1pos, x.At(i, 0))
		} else {
			x1neg = append(x1neg, x.At(i, 0))
		}
	}
	if wrong > 3*per/100 {
		t.Errorf("|x₂| > %d misclassifies %d of %d", MixtureOffset/2, wrong, 3*per)
	}
	mp, vp := meanVar(x1pos)
	mn, vn := meanVar(x1neg)
	if math.Abs(mp) > 0.15 || math.Abs(mn) > 0.15 || math.Abs(vp-1) > 0.2 || math.Abs(vn-1) > 0.2 {
		t.Errorf("first input: positive mean %.3f var %.3f, negative mean %.3f var %.3f; "+
			"want 0 and 1", mp, vp, mn, vn)
	}
}
