package ivm

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/enum"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/multiclass"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/search"
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
// the one-vs-rest prediction time for no gain (bench/RESULTS.md records the runs).
const ovoMaxRows = 5000

// ivmOnlyRows is the most training rows of a regression or binary task the default search
// fits with an IVM model alone. Above it a regression is the projected model of every row
// (AutoDecomposition), which with its additive and local parts predicted better for less
// CPU, and a binary task tries that model beside the IVM (preferProjected).
const ivmOnlyRows = 2500

// AutoDecomposition is the decomposition DecomposeAuto means for a task of n training rows
// and k classes (0: a regression) whose kernels the default search learns: for a
// classification OneVsOne up to ovoMaxRows rows, Projected above (OneVsRest for fewer than
// 3 classes); for a regression one model up to ivmOnlyRows rows, Projected above.
//
// One-vs-one with a kernel searched per pair closes most of the gap one-vs-rest leaves to
// libsvm's one-vs-one SVM where classes overlap in different ways per pair, at about the
// same training cost. Above, where each one-vs-rest IVM's selection grows as d²n per
// class, the projected model's one fit for all the classes is cheaper by several times and
// as accurate or more.
func AutoDecomposition(n, k int) Decomposition {
	switch {
	case n > ovoMaxRows || k == 0 && n > ivmOnlyRows:
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
// classes, the fewest rows of any two of which are pairRows: Decomposition resolved,
// one-vs-rest instead of an automatic projected model for a partitioned training
// (Config.Part), and instead of an automatic one-vs-one where a pair has too few rows for
// its search to choose a kernel (a few labelled rows of many classes, as active learning
// starts from): each one-vs-rest model sees every row.
func (cfg *Config) decomposition(n, k, pairRows int, searched bool) Decomposition {
	dc := cfg.Decomposition.resolve(n, k, searched)
	auto := cfg.Decomposition == DecomposeAuto
	switch {
	case dc == Projected && auto && (cfg.Part.IsPart() || k == 2 && cfg.Task == Binary):
		return OneVsRest
	case dc == OneVsOne && auto && search.CheckRows(pairRows) != nil:
		return OneVsRest
	}
	return dc
}

// fewestPairRows is the fewest rows of y that any two of the classes have between them.
func fewestPairRows(y, classes []float64) int {
	if len(classes) < 2 {
		return len(y)
	}
	counts := make([]int, len(classes))
	for c, rows := range subset.ByClass(y, classes) {
		counts[c] = len(rows)
	}
	slices.Sort(counts)
	return counts[0] + counts[1]
}

// fitPairs trains p, a multi-class task, one-vs-one: pair j's binary Predictor is Fit on
// the rows of its two classes alone with cfg's settings (or, for a partitioned training,
// only the pairs of cfg.Part's slice).
func (p *Predictor) fitPairs(x mat.Matrix, y []float64, cfg Config) error {
	k := len(p.Classes)
	pairs := multiclass.PairCount(k)
	if err := cfg.Part.check(MultiClass, pairs); err != nil {
		return err
	}
	first, last := cfg.Part.Range(pairs)
	p.Part = cfg.Part
	fitted := make([]*Predictor, pairs)
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rows := subset.ByClass(y, p.Classes)
	biggest := 0
	for j := first; j < last; j++ {
		a, b := multiclass.PairOf(j, k)
		biggest = max(biggest, len(rows[a])+len(rows[b]))
	}
	parallel := classesAtOnce(last-first, workers, biggest, SearchActiveSize(biggest, 1))
	var mu sync.Mutex
	errs := make([]error, pairs)
	pool.ForEach(last-first, parallel, func(i int) {
		j := first + i
		a, b := multiclass.PairOf(j, k)
		idx := slices.Concat(rows[a], rows[b])
		slices.Sort(idx)
		pc := cfg
		pc.Task, pc.Part, pc.Decomposition, pc.pair = Binary, Part{}, DecomposeAuto, true
		pc.Workers = max(1, workers/parallel)
		pc.ActiveSize = min(cfg.ActiveSize, len(idx))
		pc.Progress = nil
		if cfg.Progress != nil {
			pc.Progress = func(pr Progress) {
				pr.Problem, pr.Problems, pr.Class, pr.Against, pr.Pair =
					j, pairs, p.Classes[b], p.Classes[a], true
				mu.Lock()
				defer mu.Unlock()
				cfg.Progress(pr)
			}
		}
		fitted[j], errs[j] = fit(subset.Dense(x, idx), subset.Of(y, idx), pc)
		if errs[j] == nil {
			fitted[j].Training.Rows = len(idx)
		}
	})
	for j := first; j < last; j++ {
		a, b := multiclass.PairOf(j, k)
		if errs[j] != nil {
			return fmt.Errorf("ivm: classes %g and %g: %w", p.Classes[a], p.Classes[b], errs[j])
		}
		for _, w := range fitted[j].Warnings {
			p.Warnings = append(p.Warnings,
				fmt.Sprintf("classes %g and %g: %s", p.Classes[a], p.Classes[b], w))
		}
		fitted[j].Warnings = nil
	}
	p.Kind = &OneVsOneKind{Pairs: fitted, LabelNoise: pairsLabelNoise(fitted)}
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
			sum += binaryLabelNoise(pp)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// OneVsOneKind is a one-vs-one multi-class predictor: a binary predictor per pair of its
// classes, their probabilities coupled (multiclass.OneVsOne).
type OneVsOneKind struct {
	// Pairs holds a binary predictor (*SingleKind or *BlendKind) per pair of classes a < b
	// (Classes[a] its class −1, Classes[b] its class +1), in libsvm's order (0,1), (0,2), …,
	// (0,K−1), (1,2), …, (K−2,K−1) (multiclass.PairOf); each has its own scaler, kernel,
	// sharpness and label noise. A part's pairs outside its slice are nil.
	Pairs []*Predictor
	// LabelNoise is the weight ε of a uniform distribution over the K classes mixed into the
	// coupled probabilities, p_c = (1−ε) p'_c + ε/K: the mean of the pairs' own
	// (pairsLabelNoise).
	LabelNoise float64
}

// checkedBinary is a binary predictor as multiclass.OneVsOne combines it, on inputs checked
// once for all the pairs.
type checkedBinary struct{ p *Predictor }

func (b checkedBinary) Predict(x mat.Matrix) ([]noise.Prediction, error) {
	return b.p.Kind.predict(b.p, x)
}

func (b checkedBinary) PredictLabels(x mat.Matrix) ([]noise.Prediction, error) {
	return b.p.Kind.predictLabels(b.p, x)
}

// combination is the pairs as multiclass.OneVsOne combines them.
func (k *OneVsOneKind) combination(classes []float64) *multiclass.OneVsOne {
	o := &multiclass.OneVsOne{Classes: classes, Pairs: make([]multiclass.Binary, len(k.Pairs)),
		LabelNoise: k.LabelNoise}
	for j, pp := range k.Pairs {
		o.Pairs[j] = checkedBinary{pp}
	}
	return o
}

// InputDim is the number of inputs the pairs take.
func (k *OneVsOneKind) InputDim() int {
	for _, pp := range k.Pairs {
		if pp != nil {
			return pp.InputDim()
		}
	}
	return 0
}

// predict predicts checked rows: each pair's own prediction, coupled. Latent and LatentVar
// hold each pair's latent mean and variance (a blended pair's probit model's), in Pairs'
// order (positive: the pair's second class).
func (k *OneVsOneKind) predict(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	out, err := k.combination(p.Classes).Predict(x)
	if err != nil {
		return nil, fmt.Errorf("ivm: %w", err)
	}
	return out, nil
}

// predictLabels labels checked rows by the pairs' votes (multiclass.OneVsOne.Vote); Latent
// holds the pairs' latent means.
func (k *OneVsOneKind) predictLabels(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	out, err := k.combination(p.Classes).Vote(x)
	if err != nil {
		return nil, fmt.Errorf("ivm: %w", err)
	}
	return out, nil
}

// check validates the pairs against p's task and classes.
func (k *OneVsOneKind) check(p *Predictor) error {
	return checkPairs(p, k.Pairs, calibration{Sharpness: 1, LabelNoise: k.LabelNoise})
}

// encode writes the pairs under "pairs" and their coupled probabilities' label noise.
func (k *OneVsOneKind) encode(_ *Predictor, f *fileJSON) error {
	f.LabelNoise = k.LabelNoise
	for _, pp := range k.Pairs {
		pj, err := encodePair(pp)
		if err != nil {
			return err
		}
		f.Pairs = append(f.Pairs, *pj)
	}
	return nil
}

// submodels lists each pair's model, or a blended pair's members'.
func (k *OneVsOneKind) submodels(*Predictor) []Submodel {
	var out []Submodel
	for _, pp := range k.Pairs {
		if pp == nil {
			continue
		}
		for _, sm := range pp.Submodels() {
			name := fmt.Sprintf("classes %g and %g", pp.Classes[0], pp.Classes[1])
			if sm.Name != "" {
				name += " (" + sm.Name + ")"
			}
			if sm.Pair == nil {
				sm.Pair = pp
			}
			sm.Name = name
			out = append(out, sm)
		}
	}
	return out
}

// Submodel is one of a Predictor's IVM models with what names it.
type Submodel struct {
	// Name is "" for a predictor's single model, "class 3" for a one-vs-rest model,
	// "classes 1 and 3" for a one-vs-one pair's, "labels" or "probit" for a blend's label
	// regression and probit model, and "classes 1 and 3 (labels)" for a blended pair's.
	Name  string
	Model *engine.Model
	// Trace is the model's learning trace (nil for a fixed or searched kernel).
	Trace []engine.IterTrace
	// Pair is the one-vs-one pair's or blend member's binary predictor holding the model
	// (its scaling and calibration), nil for other predictors.
	Pair *Predictor
}

// Submodels lists p's IVM models in order: the single one, one per one-vs-rest class, one
// per one-vs-one pair, or one per blend member. A part's models outside its slice are left
// out.
func (p *Predictor) Submodels() []Submodel {
	if p.Kind == nil {
		return nil
	}
	return p.Kind.submodels(p)
}

func traceOf(traces [][]engine.IterTrace, c int) []engine.IterTrace {
	if c < len(traces) {
		return traces[c]
	}
	return nil
}
