package ivm

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/enum"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
)

// Decomposition says how a multi-class task is split into binary problems.
type Decomposition int

const (
	// DecomposeAuto is AutoDecomposition's choice when the default search learns the
	// kernels, and OneVsRest (the papers' decomposition) with Algorithm 2 or a fixed kernel.
	DecomposeAuto Decomposition = iota
	// OneVsRest fits one model per class, telling it from all the others; the class
	// probabilities are the models' p(y=+1), sharpened and normalised, or their softmax.
	OneVsRest
	// OneVsOne fits one binary Predictor per pair of classes on the rows of those two
	// classes alone, each with its own kernel, scaling and calibration (libsvm's
	// decomposition), and couples the pairwise probabilities into class probabilities by
	// Wu, Lin and Weng's second method (JMLR 5, 2004; libsvm's -b 1).
	OneVsOne
	// Projected regresses every class's one-vs-rest code, ±1, with one Gaussian process
	// seen through a few thousand shared centres (projected.Model): one fit for all the
	// classes, its kernel and calibration searched on held-out rows.
	Projected
)

var decompositionNames = []string{"auto", "ovr", "ovo", "projected"}

// String returns the name ParseDecomposition accepts.
func (dc Decomposition) String() string {
	return enum.String("Decomposition", decompositionNames, int(dc))
}

// ParseDecomposition parses "auto" (or ""), "ovr", "ovo" or "projected".
func ParseDecomposition(s string) (Decomposition, error) {
	v, err := enum.Parse("ivm", "multi-class decomposition", decompositionNames, s)
	return Decomposition(v), err
}

// ovoMaxRows is the most training rows DecomposeAuto splits one-vs-one. Below it the pair
// problems are small enough that every pair's own kernel search costs about what the
// one-vs-rest search does; above it the K(K−1)/2 models cost more to train and K/2 times
// the one-vs-rest prediction time for no gain (measured in bench/RESULTS.md, search for
// "Third pass on the defaults").
const ovoMaxRows = 5000

// AutoDecomposition is the decomposition DecomposeAuto means for a multi-class task of n
// training rows and k classes whose kernels the default search learns: OneVsOne up to
// ovoMaxRows rows, Projected above (OneVsRest for fewer than 3 classes).
//
// One-vs-one with a kernel searched per pair closes most of the gap one-vs-rest leaves to
// libsvm's one-vs-one SVM where classes overlap in different ways per pair, at about the
// same training cost (bench/RESULTS.md, "One-vs-one: the evidence"). Above, where each
// one-vs-rest IVM's selection grows as d²n per class, the projected model's one fit for
// all the classes is cheaper by several times and as accurate or more (bench/RESULTS.md,
// "Eleventh pass").
func AutoDecomposition(n, k int) Decomposition {
	switch {
	case n > ovoMaxRows:
		return Projected
	case k < 3:
		return OneVsRest
	}
	return OneVsOne
}

// resolve returns the decomposition dc means for a multi-class task of n rows and k
// classes; search says whether the default search learns the kernels.
func (dc Decomposition) resolve(n, k int, search bool) Decomposition {
	switch {
	case dc != DecomposeAuto:
		return dc
	case search:
		return AutoDecomposition(n, k)
	}
	return OneVsRest
}

// decomposition is the decomposition Fit uses for a multi-class task of n rows and k
// classes: Decomposition resolved, one-vs-rest instead of an automatic projected model for
// a partitioned training (Config.Part).
func (cfg *Config) decomposition(n, k int, search bool) Decomposition {
	dc := cfg.Decomposition.resolve(n, k, search)
	if dc == Projected && cfg.Decomposition == DecomposeAuto &&
		(cfg.Part.IsPart() || k == 2 && cfg.Task == Binary) {
		return OneVsRest
	}
	return dc
}

// pairOf returns the classes (a, b), a < b, of pair j of k classes, in the order
// (0,1), (0,2), …, (0,k−1), (1,2), …, (k−2,k−1): libsvm's.
func pairOf(j, k int) (a, b int) {
	for a = 0; j >= k-1-a; a++ {
		j -= k - 1 - a
	}
	return a, a + 1 + j
}

// pairCount is the number of pairs of k classes.
func pairCount(k int) int { return k * (k - 1) / 2 }

// fitPairs trains p, a multi-class task, one-vs-one: pair j's binary Predictor is Fit on
// the rows of its two classes alone with cfg's settings (or, for a partitioned training,
// only the pairs of cfg.Part's slice).
func (p *Predictor) fitPairs(x mat.Matrix, y []float64, cfg Config) error {
	k := len(p.Classes)
	pairs := pairCount(k)
	if err := cfg.Part.check(MultiClass, pairs); err != nil {
		return err
	}
	first, last := cfg.Part.Range(pairs)
	p.Part, p.Scaler = cfg.Part, nil
	p.Pairs = make([]*Predictor, pairs)
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rows := subset.ByClass(y, p.Classes)
	biggest := 0
	for j := first; j < last; j++ {
		a, b := pairOf(j, k)
		biggest = max(biggest, len(rows[a])+len(rows[b]))
	}
	parallel := classesAtOnce(last-first, workers, biggest, SearchActiveSize(biggest, 1))
	var mu sync.Mutex
	errs := make([]error, pairs)
	pool.ForEach(last-first, parallel, func(i int) {
		j := first + i
		a, b := pairOf(j, k)
		idx := slices.Concat(rows[a], rows[b])
		slices.Sort(idx)
		pc := cfg
		pc.Task, pc.Part, pc.Decomposition, pc.pair = Binary, Part{}, DecomposeAuto, true
		pc.Workers = max(1, workers/parallel)
		pc.ActiveSize = min(cfg.ActiveSize, len(idx))
		pc.Progress = nil
		if cfg.Progress != nil {
			pc.Progress = func(pr Progress) {
				pr.Problem, pr.Problems, pr.Class, pr.Against, pr.Pair = j, pairs, p.Classes[b], p.Classes[a],
					true
				mu.Lock()
				defer mu.Unlock()
				cfg.Progress(pr)
			}
		}
		p.Pairs[j], errs[j] = Fit(subset.Dense(x, idx), subset.Of(y, idx), pc)
	})
	for j := first; j < last; j++ {
		a, b := pairOf(j, k)
		if errs[j] != nil {
			return fmt.Errorf("ivm: classes %g and %g: %w", p.Classes[a], p.Classes[b], errs[j])
		}
		for _, w := range p.Pairs[j].Warnings {
			p.Warnings = append(p.Warnings, fmt.Sprintf("classes %g and %g: %s", p.Classes[a], p.Classes[b],
				w))
		}
		p.Pairs[j].Warnings = nil
	}
	p.LabelNoise = pairsLabelNoise(p.Pairs)
	return nil
}

// pairsLabelNoise is the label noise mixed into coupled probabilities: the mean of the
// pairs' own, which each chose on its held-out rows. A pair's ε bounds what one confident
// pairwise mistake costs; coupling several confident pairs can still put a class's
// probability far below any pair's ε, and the mix bounds that as it does for one-vs-rest.
// A partitioned training's part uses only its pairs, so MergeParts recomputes it.
func pairsLabelNoise(pairs []*Predictor) float64 {
	sum, n := 0.0, 0
	for _, pp := range pairs {
		if pp != nil {
			sum += pp.labelNoise()
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// predictPairs predicts the rows of x with a one-vs-one predictor: each pair's own
// prediction, coupled. Mean and Var hold each pair's latent mean and variance (a blended
// pair's probit model's), in Pairs' order (positive: the pair's second class).
func (p *Predictor) predictPairs(x mat.Matrix) ([]Prediction, error) {
	n, _ := x.Dims()
	k, pairs := len(p.Classes), len(p.Pairs)
	out := make([]Prediction, n)
	r := make([][]float64, n)
	for i := range out {
		out[i].Mean, out[i].Var = make([]float64, pairs), make([]float64, pairs)
		r[i] = make([]float64, k*k)
	}
	for j, pp := range p.Pairs {
		preds, err := pp.predictBinary(x) // x was checked once for all pairs
		if err != nil {
			a, b := pairOf(j, k)
			return nil, fmt.Errorf("ivm: classes %g and %g: %w", p.Classes[a], p.Classes[b], err)
		}
		a, b := pairOf(j, k)
		for i, q := range preds {
			last := len(q.Mean) - 1 // a blended pair's probit model, as every other pair's
			out[i].Mean[j], out[i].Var[j] = q.Mean[last], q.Var[last]
			r[i][a*k+b], r[i][b*k+a] = q.Prob[0], q.Prob[1]
		}
	}
	cp := newCoupler(k)
	for i := range out {
		out[i].Prob = cp.couple(r[i])
		calib.MixUniform(out[i].Prob, p.LabelNoise)
		out[i].Label = p.Classes[floats.MaxIdx(out[i].Prob)]
	}
	return out, nil
}

// votePairs is PredictLabels for a one-vs-one predictor: each pair votes for the class its
// latent mean's sign picks; the label is the class with the most votes, the first of
// those tied (libsvm's rule). Mean holds the pairs' latent means.
func (p *Predictor) votePairs(x mat.Matrix) ([]Prediction, error) {
	n, _ := x.Dims()
	k := len(p.Classes)
	out := make([]Prediction, n)
	votes := make([][]int, n)
	for i := range out {
		out[i].Mean, votes[i] = make([]float64, len(p.Pairs)), make([]int, k)
	}
	for j, pp := range p.Pairs {
		a, b := pairOf(j, k)
		preds, err := pp.labelsBinary(x) // x was checked once for all pairs
		if err != nil {
			return nil, fmt.Errorf("ivm: classes %g and %g: %w", p.Classes[a], p.Classes[b], err)
		}
		for i, q := range preds {
			out[i].Mean[j] = q.Mean[len(q.Mean)-1] // a blended pair's probit model's
			if q.Label == pp.Classes[1] {
				votes[i][b]++
			} else {
				votes[i][a]++
			}
		}
	}
	for i := range out {
		best := 0
		for c, v := range votes[i] {
			if v > votes[i][best] {
				best = c
			}
		}
		out[i].Label = p.Classes[best]
	}
	return out, nil
}

// minPairProb bounds the pairwise probabilities coupling sees to [minPairProb,
// 1 − minPairProb], as libsvm does: a pair probability of exactly 0 or 1 would make the
// system singular.
const minPairProb = 1e-7

// coupler solves Wu, Lin and Weng's second coupling problem for k classes: the p on the
// simplex minimising Σ_i Σ_{j≠i} (r_ji p_i − r_ij p_j)², with r_ij = p(i | i or j, x). Its
// optimum solves the (k+1)×(k+1) linear system [Q 1; 1ᵀ 0] [p; b] = [0; 1] with
// Q_ii = Σ_{j≠i} r_ji² and Q_ij = −r_ji r_ij.
type coupler struct {
	k   int
	a   *mat.Dense
	rhs *mat.VecDense
	sol *mat.VecDense
}

func newCoupler(k int) *coupler {
	rhs := mat.NewVecDense(k+1, nil)
	rhs.SetVec(k, 1)
	return &coupler{k: k, a: mat.NewDense(k+1, k+1, nil), rhs: rhs, sol: mat.NewVecDense(k+1, nil)}
}

// couple returns the class probabilities for the pairwise ones r (r[i·k+j] = r_ij).
func (c *coupler) couple(r []float64) []float64 {
	k := c.k
	at := func(i, j int) float64 { return min(max(r[i*k+j], minPairProb), 1-minPairProb) }
	for i := range k {
		qii := 0.0
		for j := range k {
			if j == i {
				continue
			}
			qii += at(j, i) * at(j, i)
			c.a.Set(i, j, -at(j, i)*at(i, j))
		}
		c.a.Set(i, i, qii)
		c.a.Set(i, k, 1)
		c.a.Set(k, i, 1)
	}
	c.a.Set(k, k, 0)
	p := make([]float64, k)
	if err := c.sol.SolveVec(c.a, c.rhs); err != nil {
		// Q is positive definite for pairwise probabilities inside (0, 1) (Wu, Lin and
		// Weng, Theorem 2), so the system is regular; should rounding make it singular,
		// the votes of the pairs are the answer.
		return c.votes(r)
	}
	for i := range p {
		p[i] = math.Max(c.sol.AtVec(i), minPairProb)
	}
	floats.Scale(1/floats.Sum(p), p)
	return p
}

// votes returns the normalised pairwise votes Σ_j r_ij for a system that cannot be solved.
func (c *coupler) votes(r []float64) []float64 {
	k := c.k
	p := make([]float64, k)
	for i := range k {
		for j := range k {
			if j != i {
				p[i] += r[i*k+j]
			}
		}
	}
	floats.Scale(1/floats.Sum(p), p)
	return p
}

// Submodel is one of a Predictor's IVM models with what names it.
type Submodel struct {
	// Name is "" for a predictor's single model, "class 3" for a one-vs-rest model,
	// "classes 1 and 3" for a one-vs-one pair's, "labels" or "probit" for a blend's label
	// regression and probit model, and "classes 1 and 3 (labels)" for a blended pair's.
	Name  string
	Model *Model
	// Trace is the model's learning trace (nil for a fixed or searched kernel).
	Trace []IterTrace
	// Pair is the one-vs-one pair's or blend member's binary predictor holding the model
	// (its scaling and calibration), nil for other predictors.
	Pair *Predictor
}

// Submodels lists p's IVM models in order: the single one, one per one-vs-rest class, one
// per one-vs-one pair, or one per blend member. A part's models outside its slice are left
// out.
func (p *Predictor) Submodels() []Submodel {
	var out []Submodel
	for _, mp := range p.Blend {
		name := "probit"
		if mp.Logistic != nil {
			name = "labels"
		}
		out = append(out, Submodel{Name: name, Model: mp.Models[0], Trace: traceOf(mp.Traces, 0),
			Pair: mp})
	}
	for _, pp := range p.Pairs {
		switch {
		case pp == nil:
		case pp.Blend != nil:
			for _, sm := range pp.Submodels() {
				sm.Name = fmt.Sprintf("classes %g and %g (%s)", pp.Classes[0], pp.Classes[1], sm.Name)
				out = append(out, sm)
			}
		default:
			out = append(out, Submodel{Name: fmt.Sprintf("classes %g and %g", pp.Classes[0], pp.Classes[1]),
				Model: pp.Models[0], Trace: traceOf(pp.Traces, 0), Pair: pp})
		}
	}
	for c, m := range p.Models {
		if m == nil {
			continue
		}
		s := Submodel{Model: m, Trace: traceOf(p.Traces, c)}
		if len(p.Models) > 1 && c < len(p.Classes) {
			s.Name = fmt.Sprintf("class %g", p.Classes[c])
		}
		out = append(out, s)
	}
	return out
}

func traceOf(traces [][]IterTrace, c int) []IterTrace {
	if c < len(traces) {
		return traces[c]
	}
	return nil
}
