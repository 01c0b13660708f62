package engine_test

// The toy experiments of the IVM paper §4.1 (Lawrence, Seeger & Herbrich 2005) as tests of
// Algorithm 2 (Learn): data from package dataset's generators with fixed seeds (seed 1 of
// each, the first tried), the paper's kernels, active set sizes and four outer iterations,
// the default objective and the paper's entropy criterion, and the paper's qualitative
// findings as assertions.
//
// Seeds: each test was also run with data seeds 2–5 (and every criterion and objective);
// the pass counts are recorded at each test. Failures on other seeds are properties of
// particular draws or of the objective, described there, not reasons to change the
// criteria.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/toys"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// toyRun is one Learn run on a toy problem.
type toyRun struct {
	x    *mat.Dense
	y    []float64
	spec string
	nm   noise.Model
	opt  engine.LearnOptions
}

// learnToy runs Learn, logs the trace and the learnt parameters, and returns the kernel's
// natural parameters by name ("rbfard.scale1", …).
func learnToy(t *testing.T, r toyRun) map[string]float64 {
	t.Helper()
	_, dim := r.x.Dims()
	k, err := kern.Parse(r.spec, dim)
	if err != nil {
		t.Fatal(err)
	}
	names := k.ParamNames()
	_, res, err := engine.Learn(r.x, r.y, k, r.nm, r.opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Trace {
		if tr.Final {
			t.Logf("final (best after %d iterations): held-out ln p %.4f", res.Best, tr.HeldOut)
			continue
		}
		t.Logf("iter %d: held-out ln p %.4f from %s", tr.Iter, tr.HeldOut,
			fmtParams(names, tr.KernelParams))
		t.Logf("        kernel objective %.4f → %.4f in %d steps; noise %.4f → %.4f in %d; "+
			"halvings %d, rejected %v; EP failures %d, unconverged %d; noise parameters %.4g",
			tr.KernelBefore, tr.KernelAfter, tr.KernelSteps,
			tr.NoiseBefore, tr.NoiseAfter, tr.NoiseSteps,
			tr.Halvings, tr.Rejected, tr.EPFailures, tr.EPUnconverged, tr.NoiseParams)
	}
	p := make([]float64, k.NumParams())
	k.Params(p)
	t.Logf("learnt kernel: %s", fmtParams(names, p))
	np := make([]float64, r.nm.NumParams())
	r.nm.Params(np)
	t.Logf("learnt noise %s: %v = %.4g", r.nm.Name(), r.nm.ParamNames(), np)
	out := make(map[string]float64, len(p))
	for i, n := range names {
		out[n] = p[i]
	}
	return out
}

func fmtParams(names []string, p []float64) string {
	var b strings.Builder
	for i, v := range p {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%.4g", names[i], v)
	}
	return b.String()
}

// sharedScales checks that the RBF-ARD and linear-ARD scales were learnt as one (they are
// tied by default) and returns them.
func sharedScales(t *testing.T, p map[string]float64) [2]float64 {
	t.Helper()
	var s [2]float64
	for d, n := range []string{"scale1", "scale2"} {
		s[d] = p["rbfard."+n]
		if l := p["linard."+n]; l != s[d] {
			t.Errorf("%s: rbfard %g, linard %g; want them shared", n, s[d], l)
		}
	}
	return s
}

func toyRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// §4.1.1, Fig. 2 left: y is a GP draw with RBF-ARD scales [0, 1] plus noise of variance
// 0.001. An RBF-ARD + linear-ARD model with shared scales, d = 50, four outer iterations,
// should find the first input irrelevant, the second relevant and no linear trend (paper:
// θ_rbf 1.22, γ 18.0, θ_lin 9.63e−9, α = [9.22e−11, 1.00]).
//
// Seeds 1–5: the scales pass on all five with the default objective (FullData), θ_lin <
// 1e−3 on four (seed 4 keeps θ_lin ≈ 14.7 from the first outer iteration on, with α ≈
// [1e−11, 1.00], γ 26.4). With EPEvidence or FixedSites (identical here: the Gaussian
// sites are exact) seeds 3 and 5 end with everything explained by white noise (θ_white
// 0.63 and 0.96, θ_rbf < 1e−3, scales still 0.999). The criterion makes no difference:
// regression models score ExpectedEntropy as Entropy.
func TestToyRegressionIrrelevantInput(t *testing.T) {
	x, y, err := toys.Regression(500, [2]float64{0, 1}, toyRand(1))
	if err != nil {
		t.Fatal(err)
	}
	p := learnToy(t, toyRun{x, y, "rbfard(gamma=1,variance=1)+linard(variance=1)+bias+white",
		noise.NewGaussian(0),
		engine.LearnOptions{ActiveSize: 50, Iters: 4, Criterion: engine.Entropy}})
	s := sharedScales(t, p)
	if math.Abs(s[0]-0) > 0.1 || math.Abs(s[1]-1) > 0.1 {
		t.Errorf("learnt input scales %.3g, want [0, 1] within 0.1", s)
	}
	if v := p["linard.variance"]; v >= 1e-3 {
		t.Errorf("linear variance θ_lin = %.3g, want < 1e-3 (linear part switched off)", v)
	}
}

// §4.1.1, Fig. 2 right: scales [1, 0.2], d = 100 as in the paper (paper: θ_rbf 1.12, γ
// 22.5, θ_lin 9.12e−6, α = [1.00, 0.163]).
//
// Seeds 1–5: all pass with the default objective, at d = 100 (α₂ 0.210, 0.207, 0.134,
// 0.285, 0.231) and at d = 50 (0.167, 0.183, 0.164, 0.269, 0.189). With EPEvidence or
// FixedSites four of five pass at d = 100 (seed 2: α₂ ≈ 0.30–0.32) and three of five at
// d = 50 (seeds 1 and 4 keep α₂ ≈ 0.999).
func TestToyRegressionScales(t *testing.T) {
	x, y, err := toys.Regression(500, [2]float64{1, 0.2}, toyRand(1))
	if err != nil {
		t.Fatal(err)
	}
	p := learnToy(t, toyRun{x, y, "rbfard(gamma=1,variance=1)+linard(variance=1)+bias+white",
		noise.NewGaussian(0),
		engine.LearnOptions{ActiveSize: 100, Iters: 4, Criterion: engine.Entropy}})
	s := sharedScales(t, p)
	if math.Abs(s[0]-1) > 0.1 || math.Abs(s[1]-0.2) > 0.1 {
		t.Errorf("learnt input scales %.3g, want [1, 0.2] within 0.1", s)
	}
}

// §4.1.2, Fig. 3 right: 500 points uniform on the unit square, labels from a GP draw with
// RBF variance 100 and γ = 10 through the probit. An RBF model (with a bias and a white
// term, which carries the probit's slope) and d = 200 should recover γ (paper: 8.51; the
// process variance is not identified through the probit squashing, paper 6.54).
//
// Seeds 1–5, γ: default objective, Entropy 10.1, 2.64, 11.8, 6.38, 8.00 (4 of 5);
// ExpectedEntropy 2.37, 2.68, 12.1, 6.72, 9.73 (3 of 5). EPEvidence: Entropy 4 of 5,
// ExpectedEntropy 4 of 5; FixedSites: 4 of 5 each. Seed 2 fails with every setting (γ
// 1.7–2.8): its draw labels 421 of the 500 points +1.
func TestToyClassificationGP(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: learns a kernel on the paper's classification toy")
	}
	x, y, err := toys.ClassificationGP(500, toyRand(1))
	if err != nil {
		t.Fatal(err)
	}
	p := learnToy(t, toyRun{x, y, "rbf(gamma=1,variance=1)+bias+white", noise.NewProbit(),
		engine.LearnOptions{ActiveSize: 200, Iters: 4, Criterion: engine.Entropy}})
	if g := p["rbf.gamma"]; g < 5 || g > 15 {
		t.Errorf("learnt inverse width γ = %.3g, want in [5, 15] (true 10)", g)
	}
}

// §4.1.3, Fig. 4 left: seven categories of 50 points, isotropic unit Gaussians 3 apart
// along the second input. An RBF-ARD + linear-ARD (+ bias + white) model with shared
// scales, ordinal noise with its parameters learnt, d = 200 and four outer iterations
// should switch the RBF off and the first input off (paper: θ_rbf 8.85e−5, α = [6.03e−8,
// 1.00]).
//
// Seeds 1–5: default objective with Entropy, 4 of 5 (seed 5: θ_rbf 2.23 with γ 0.086:
// the first outer iteration is rejected by the held-out safeguard after three halvings
// and learning stops there); EPEvidence with Entropy 5 of 5; FixedSites with Entropy 4 of
// 5 (seed 5: θ_rbf 0.035). With ExpectedEntropy the first input is switched off on every
// seed, but the RBF stays on with γ → 0.006–0.02 and θ_rbf 0.2–8 (1 of 5 pass with
// EPEvidence or FixedSites, 0 of 5 with the default objective): an RBF of tiny γ is a
// constant plus θ_rbf·γ·xᵀdiag(α)x', a bias and a linear kernel in disguise.
//
// With the reference demo's 30 points per category (210 points, d = 200, only 10 held
// out) the default objective fails on seed 1 (θ_rbf 0.60, α₁ 0.64: the safeguard halves
// back every iteration) and passes with LastIterate.
func TestToyOrdinalLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: learns a kernel and the noise on the paper's ordinal toy")
	}
	x, y, err := toys.Ordinal(50, 7, toyRand(1))
	if err != nil {
		t.Fatal(err)
	}
	p := learnToy(t, toyRun{x, y, "rbfard(gamma=1,variance=1)+linard(variance=1)+bias+white",
		noise.NewOrdinal(),
		engine.LearnOptions{ActiveSize: 200, Iters: 4, NoiseIters: 100, Criterion: engine.Entropy}})
	if v := p["rbfard.variance"]; v >= 1e-2 {
		t.Errorf("RBF variance θ_rbf = %.3g, want < 1e-2 (RBF switched off)", v)
	}
	s := sharedScales(t, p)
	if lo, hi := math.Min(s[0], s[1]), math.Max(s[0], s[1]); lo >= 0.1 || hi <= 0.5 {
		t.Errorf("learnt input scales %.3g, want one < 0.1 and the other > 0.5", s)
	}
	if s[0] > s[1] {
		t.Errorf("learnt input scales %.3g: the first input (irrelevant) kept, "+
			"the second switched off", s)
	}
}
