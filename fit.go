package ivm

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/exactgp"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/projected"
	"github.com/ivmlab/ivm/search"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Fit trains a Predictor on the rows of x with targets y (NaN marks an unlabelled row,
// for SemiSupervised). With TaskAuto the task is: semi-supervised when some targets are
// NaN (the labelled ones must have two values); binary for two distinct values; regression
// when a target is not an integer; multi-class for 3 to 50 distinct integers; regression
// above that. By default d is DefaultActiveSize, and for binary, multi-class and
// regression tasks the kernel, the input scaling and the selection criterion are chosen by
// Search (see package search), whose final model has SearchActiveSize active points chosen from
// SearchCandidates rows. Where all of at most 700 rows are active, a regression task gets
// the exact GP's maximum-likelihood rbfard kernel instead (package exactgp), a binary task
// with TaskAuto the regression of its labels where that predicts left-out rows better
// (labels.go), and a classification above 5 000 rows or a regression above 2 500 a
// projected model (projected.Model, AutoDecomposition; a binary task of 2 000–5 000 rows,
// a one-vs-one multi-class task of 2 500–5 000 or a regression of 700–2 500 where it
// predicts held-out rows better, preferProjected and preferProjectedPairs). Other
// tasks, or a Kernel or Learn.Iters given, standardise the inputs and learn the kernel
// (DefaultKernel if none is given) by Algorithm 2.
func Fit(x mat.Matrix, y []float64, cfg Config) (*Predictor, error) {
	p, err := fit(x, y, cfg)
	if err != nil {
		return nil, err
	}
	if p.Training.Rows == 0 {
		// Update grows an active set of the size chosen for these rows (grownActiveSize).
		p.Training.Rows, _ = x.Dims()
	}
	return p, nil
}

// fit is Fit without the provenance: one-vs-one's pairs are fitted by it.
func fit(x mat.Matrix, y []float64, cfg Config) (*Predictor, error) {
	n, dim, err := checkTraining(x, y)
	if err != nil {
		return nil, err
	}
	task, classes, err := chooseTask(cfg.Task, y)
	if err != nil {
		return nil, err
	}
	if err := cfg.checkTask(task); err != nil {
		return nil, err
	}
	p := &Predictor{Task: task, Classes: classes}
	search := !cfg.FixedKernel && cfg.resolveLearning(task) == Search
	switch dc := cfg.decomposition(n, len(classes), fewestPairRows(y, classes), search); {
	case task == MultiClass && dc == OneVsOne:
		if err := p.fitPairs(x, y, cfg); err != nil {
			return nil, err
		}
		return p.preferProjectedPairs(x, y, cfg)
	case (task == MultiClass || task == Binary || task == Regression) && dc == Projected:
		if err := p.fitProjectedKind(x, y, &cfg); err != nil {
			return nil, err
		}
		return p, nil
	case dc == Projected:
		return nil, fmt.Errorf("ivm: a projected model is for a binary, multi-class or "+
			"regression task, not a %v one", task)
	}
	return p.fitModels(x, y, cfg, dim)
}

// modelFit is a Predictor in the making on the paths of IVM models (one model,
// one-vs-rest, a blend): the predictor and the input scaling and calibration its kind will
// hold, which the search and the label regression choose before any model is fitted.
type modelFit struct {
	*Predictor
	calibration
	models []*engine.Model
	traces [][]engine.IterTrace
}

// predictor sets the predictor's kind to the fitted models' and returns it.
func (f *modelFit) predictor() *Predictor {
	f.Kind = newModelsKind(f.Task, f.models, f.traces, f.calibration)
	return f.Predictor
}

// selection is what the final selection of Fit's IVM models uses: the kernel spec, the
// criterion, the active set size d, the candidate rows (nil: all) and, for a blend, the
// label regression that is the probit model's partner.
type selection struct {
	spec      string
	criterion engine.Criterion
	d, dFinal int
	rows      []int
	partner   *labelMember
}

// fitModels fits p's IVM models (one model, one per class, or a blend) with the kernel
// given, learnt by Algorithm 2 or chosen by the search, and sets p's kind.
func (p *Predictor) fitModels(x mat.Matrix, y []float64, cfg Config, dim int) (*Predictor, error) {
	f := &modelFit{Predictor: p, calibration: calibration{Sharpness: 1}}
	var err error
	if f.Scaler, err = dataset.FitScaler(x, cfg.Scale); err != nil {
		return nil, err
	}
	sel, err := f.prepare(x, &cfg, dim)
	if err != nil {
		return nil, err
	}
	if !cfg.FixedKernel && cfg.resolveLearning(p.Task) == Search {
		if q, err := f.searchKernel(x, y, &cfg, sel); q != nil || err != nil {
			return q, err
		}
	}
	// One scaled copy of the inputs, made after the search: the search scales only the rows
	// it uses, so a large data set is never held in two scalings at once.
	var xs *mat.Dense
	if sel.rows != nil {
		xs, err = subset.Scaled(x, f.Scaler, sel.rows)
		y = subset.Of(y, sel.rows)
	} else {
		xs, err = f.Scaler.Apply(x)
	}
	if err != nil {
		return nil, err
	}
	if sel.partner != nil {
		if err := f.fitBlend(xs, y, &cfg, sel); err != nil {
			return nil, err
		}
		return p, nil
	}
	if err := f.fitProblems(xs, y, &cfg, sel.spec, sel.criterion, sel.d); err != nil {
		return nil, err
	}
	for _, m := range f.models {
		if m != nil && sel.rows != nil {
			for i, r := range m.Active {
				m.Active[i] = sel.rows[r] // provenance: the training row
			}
		}
	}
	return f.predictor(), nil
}

// prepare checks the kernel, the active set size, the criterion, the part and the learning
// before any work, and returns the selection they make before a search.
func (f *modelFit) prepare(x mat.Matrix, cfg *Config, dim int) (*selection, error) {
	task := f.Task
	spec, err := cfg.kernelSpec(task, dim)
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	d, dFinal, err := f.activeSizes(cfg.ActiveSize, n)
	if err != nil {
		return nil, err
	}
	autoCrit := engine.Entropy
	if task == Binary || task == MultiClass {
		autoCrit = engine.ExpectedEntropy
	}
	if cfg.Criterion < engine.CriterionAuto || cfg.Criterion > engine.CriterionExpected {
		return nil, fmt.Errorf("ivm: unknown selection criterion %v", cfg.Criterion)
	}
	if err := cfg.Part.check(task, f.problems()); err != nil {
		return nil, err
	}
	if cfg.Learning == Search && (cfg.Kernel != "" || task == Ordinal || task == SemiSupervised) {
		return nil, fmt.Errorf("ivm: the search learns rbf+bias+white kernels for binary, "+
			"multi-class and regression tasks, not a given kernel or a %s task; "+
			"use Algorithm 2", task)
	}
	return &selection{spec: spec, criterion: cfg.Criterion.Resolve(autoCrit), d: d, dFinal: dFinal},
		nil
}

// searchKernel chooses the kernel, scaling, criterion and calibration by the search and
// sets the final selection's (sel): the final d, its candidate rows, a binary task's label
// regression. It returns a projected predictor instead where widenToProjected makes one.
// The final selection uses the kernel found: cfg.FixedKernel is set.
func (f *modelFit) searchKernel(x mat.Matrix, y []float64, cfg *Config, sel *selection) (*Predictor,
	error) {
	spec, criterion, score, dFinal, err := f.search(x, y, cfg, sel.d, sel.dFinal, sel.criterion)
	if err != nil {
		return nil, err
	}
	if q, err := f.widenToProjected(x, y, *cfg); q != nil || err != nil {
		return q, err
	}
	if q, err := f.preferProjected(x, y, *cfg); q != nil || err != nil {
		return q, err
	}
	n, _ := x.Dims()
	if cfg.labelRegression(f.Task, n, sel.d, score) {
		if spec, criterion, sel.partner, err = f.chooseLabels(x, y, cfg, score, spec,
			criterion); err != nil {
			return nil, err
		}
	}
	cfg.FixedKernel = true // the final selection, with the kernel found
	sel.spec, sel.criterion, sel.d = spec, criterion, dFinal
	if cfg.ActiveSize == 0 {
		sel.rows = candidateRows(n, SearchCandidates(n, sel.d), cfg.Learn.Seed)
	}
	return nil, nil
}

// widenToProjected returns, where the search's kernels did not beat the constant predictor
// on a classification task whose kind Fit chose (TaskAuto, a single model), a projected
// model of every row instead: its wider kernels and its least-squares fit of every label
// find weak, smooth effects that an active set chosen by information gain misses, and
// where it does not beat the constant predictor either it becomes that predictor. nil
// where the search's model stands.
func (p *Predictor) widenToProjected(x mat.Matrix, y []float64, cfg Config) (*Predictor, error) {
	n, _ := x.Dims()
	if p.Baseline == nil || p.Baseline.Beaten() || cfg.Task != TaskAuto || cfg.pair ||
		cfg.Part.IsPart() || p.Task != Binary && p.Task != MultiClass || n < 2*projected.MinRows {
		return nil, nil
	}
	q := &Predictor{Task: p.Task, Classes: p.Classes}
	if err := q.fitProjectedKind(x, y, &cfg); err != nil {
		return nil, err
	}
	if q.Baseline.Beaten() {
		q.Warnings = append(q.Warnings, "the search's kernels did not beat the constant predictor "+
			"on held-out rows; a projected model of every row did, and is the model")
	}
	return q, nil
}

// preferProjected returns, for a binary task of more than ivmOnlyRows rows whose kind Fit
// chose (of at least binaryProjectedRows rows and rareClassRows of each class up to
// ivmOnlyRows) or a regression of more than exactgp.MaxRows (projected anyway above
// ivmOnlyRows), a projected model of every row where its held-out gain over the constant
// predictor exceeds the search's by more than the larger of their standard errors (binary
// above ivmOnlyRows: is at least the search's); nil where the search's model stands. Each
// gain is measured against the constant predictor on its own held-out rows, so that the two
// compare though the rows differ. Its additive part and every row draw codes and
// interactions (a school, a player) that an active set misses.
func (p *Predictor) preferProjected(x mat.Matrix, y []float64, cfg Config) (*Predictor,
	error) {
	n, _ := x.Dims()
	binary := p.Task == Binary && cfg.Task == TaskAuto && (n > ivmOnlyRows ||
		n >= binaryProjectedRows && rarerClassRows(y, p.Classes) >= rareClassRows)
	regression := p.Task == Regression && n > exactgp.MaxRows
	// A d given (ActiveSize) asks for an IVM of d active points, a decomposition given
	// (-multiclass ovr) for IVM models.
	if p.Baseline == nil || cfg.pair || cfg.Part.IsPart() || cfg.ActiveSize != 0 ||
		cfg.Decomposition != DecomposeAuto || !binary && !regression {
		return nil, nil
	}
	q := &Predictor{Task: p.Task, Classes: p.Classes}
	if err := q.fitProjectedKind(x, y, &cfg); err != nil {
		return nil, err
	}
	if !projectedWins(p.Baseline, q.Baseline, binary && n > ivmOnlyRows) {
		return nil, nil
	}
	return q, nil
}

// binaryProjectedRows and rareClassRows bound the binary tasks of at most ivmOnlyRows rows
// that try the projected model (preferProjected): at least the first's rows, and at least
// the second's in their rarer class. Below them the held-out rows, and a rare class's most
// of all, are too few to tell the two models apart.
const (
	binaryProjectedRows = 2000
	rareClassRows       = 200
)

// rarerClassRows is how many of the labels y are of the rarer of the two classes.
func rarerClassRows(y, classes []float64) int {
	first := 0
	for _, v := range y {
		if v == classes[0] {
			first++
		}
	}
	return min(first, len(y)-first)
}

// projectedWins says whether a projected model of held-out figures q replaces the search's
// model of figures p (preferProjected): its gain over the constant predictor must exceed the
// search's by the larger of their standard errors, or for a binary task equal it at least.
// The binary search's gain is the best of its kernels on the rows that chose them, and so
// flatters it; the projected model's is measured on rows its choices did not see.
func projectedWins(p, q *calib.Baseline, binary bool) bool {
	gp, gq := p.Prior-p.Model, q.Prior-q.Model
	if binary {
		return gq >= gp
	}
	return gq-gp > max(p.SE, q.SE)
}

// FitRows is Fit on inputs given as rows.
func FitRows(rows [][]float64, y []float64, cfg Config) (*Predictor, error) {
	x, err := denseRows(rows)
	if err != nil {
		return nil, err
	}
	return Fit(x, y, cfg)
}

func denseRows(rows [][]float64) (*mat.Dense, error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, errors.New("ivm: no inputs")
	}
	dim := len(rows[0])
	x := mat.NewDense(len(rows), dim, nil)
	for i, r := range rows {
		if len(r) != dim {
			return nil, fmt.Errorf("ivm: row %d has %d values, row 1 has %d", i+1, len(r), dim)
		}
		x.SetRow(i, r)
	}
	return x, nil
}

// problem is one binary (or regression, ordinal, semi-supervised) training run of Fit.
type problem struct {
	index, count int
	class        float64
	y            []float64
	d            int
	spec         string
	transform    engine.Transform
	criterion    engine.Criterion
	workers      int
	cfg          *Config
	report       func(Progress)
	noise        string // the noise model's name
}

func (pb *problem) run(x *mat.Dense, task Task) (*engine.Model, []engine.IterTrace, error) {
	_, dim := x.Dims()
	k, err := kern.Parse(pb.spec, dim)
	if err != nil {
		return nil, nil, err
	}
	if err := pb.transform.Apply(k); err != nil {
		return nil, nil, err
	}
	nm, err := noise.ByName(pb.noise)
	if err != nil {
		return nil, nil, err
	}
	switch m := nm.(type) {
	case *noise.Probit:
		m.ZeroBias = pb.cfg.ZeroBias
	case *noise.NullCategory:
		m.ZeroBias, m.Split = pb.cfg.ZeroBias, pb.cfg.SplitGamma
	case *noise.Gaussian:
		if v := stat.Variance(pb.y, nil); task == Regression && v > 0 {
			// The default noise variance, 10⁻⁶, is for targets of unit scale: against the
			// prior variance of targets in the millions (prices in dollars) it vanishes in
			// rounding, an included point's posterior variance comes out 0 and selection
			// stops with a numerical breakdown. So it scales with the targets' variance
			// (here, not in noise.Gaussian, whose default is the reference toolbox's).
			m.Variance = noise.GaussianVariance * v
		}
	}
	pr := Progress{Problem: pb.index, Problems: pb.count, Class: pb.class, ActiveSize: pb.d,
		Selections: 1}
	step := func(size int) {
		if size == 1 {
			pr.Selection++
		}
		pr.Included = size
		pb.report(pr)
	}
	if pb.cfg.FixedKernel {
		s, err := engine.NewSelector(
			x,
			pb.y,
			k,
			nm,
			engine.Options{Workers: pb.workers, Criterion: pb.criterion,
				Step: step},
		)
		if err != nil {
			return nil, nil, err
		}
		if err := search.SelectActive(s, pb.d); err != nil {
			return nil, nil, err
		}
		m, err := s.Model()
		pr.Done = true
		pb.report(pr)
		return m, nil, err
	}
	lo := pb.cfg.Learn
	lo.ActiveSize, lo.Workers, lo.Criterion, lo.Step = pb.d, pb.workers, pb.criterion, step
	iters := lo.Iters
	if iters == 0 {
		iters = 8
		if task == SemiSupervised {
			iters = 15 // the extensions paper's setting for the null category model
		}
		lo.Iters = iters
	}
	pr.Selections, pr.Iters = iters+1, iters
	if lo.NoiseIters > 0 {
		pr.Selections += iters
	}
	lo.Progress = func(tr engine.IterTrace) {
		t := tr
		pr.Trace = &t
		pb.report(pr)
		pr.Trace = nil
	}
	m, res, err := engine.Learn(x, pb.y, k, nm, lo)
	if err != nil {
		return nil, nil, err
	}
	pr.Done = true
	pb.report(pr)
	return m, res.Trace, nil
}

// checkTraining checks the training inputs and targets before anything is fitted.
func checkTraining(x mat.Matrix, y []float64) (n, dim int, err error) {
	if x == nil {
		return 0, 0, errors.New("ivm: no inputs")
	}
	n, dim = x.Dims()
	if n == 0 {
		return 0, 0, errors.New("ivm: no training points")
	}
	if len(y) != n {
		return 0, 0, fmt.Errorf("ivm: %d targets for %d input rows", len(y), n)
	}
	return n, dim, engine.CheckFinite(x)
}

// activeSizes returns the d the search scores kernels at and the d of the final model for
// Config.ActiveSize d of n rows (0: DefaultActiveSize and SearchActiveSize).
func (p *modelFit) activeSizes(d, n int) (dSearch, dFinal int, err error) {
	switch {
	case d < 0:
		return 0, 0, fmt.Errorf("ivm: active set size %d", d)
	case d == 0:
		return DefaultActiveSize(n, p.problems()), SearchActiveSize(n, p.problems()), nil
	case d > n:
		p.Warnings = append(p.Warnings,
			fmt.Sprintf("active set size %d exceeds the %d training points; using d = %d", d, n, n))
		return n, n, nil
	}
	return d, d, nil
}

// search chooses the kernel, the input scaling, the criterion and the calibration by the
// held-out search (package search) and sets p's scaler, sharpness and label noise.
// The score is the chosen kernel's held-out −ln p(y) per row, dFinal the final model's
// active set size (see search.Result).
func (p *modelFit) search(x mat.Matrix, y []float64, cfg *Config, d, dFinal int,
	criterion engine.Criterion) (string, engine.Criterion, float64, int, error) {
	task, problems := p.Task, p.problems()
	auto := cfg.Criterion == engine.CriterionAuto
	if auto && task == Regression {
		criterion = engine.Entropy
	}
	before := 0 // evaluations reported before the search's own (the relevance fit's)
	report := func(r search.Report) {
		if cfg.Progress != nil {
			cfg.Progress(Progress{Problems: problems, Search: before + r.Evals,
				SearchKernel: r.Kernel, SearchScore: r.Score, SearchPrior: r.Prior})
		}
	}
	if n, dim := x.Dims(); task == Regression && d == n && n <= exactgp.MaxRows && dim > 0 {
		spec, crit, score, err := p.searchExact(x, y, cfg)
		return spec, crit, score, dFinal, err
	}
	scalers := []*dataset.Scaler{p.Scaler}
	if cfg.Scale == dataset.ScaleAuto {
		mm, err := dataset.FitScaler(x, dataset.ScaleMinMax)
		if err != nil {
			return "", 0, 0, 0, err
		}
		scalers = append(scalers, mm)
		if _, dim := x.Dims(); task == Regression && dim > 1 {
			// A candidate only: where its fit fails the others remain.
			if rel, err := exactgp.RelevanceScaler(x, y, p.Scaler, cfg.Learn.Seed,
				0); err == nil {
				scalers = append(scalers, rel.Scaler)
				report(rel.Report)
				before = rel.Report.Evals
			}
		}
	}
	res, err := search.Kernel(x, scalers, y,
		search.Task{Regression: task == Regression, Classes: p.Classes}, d, dFinal,
		search.Options{Seed: cfg.Learn.Seed, Workers: cfg.Workers, ZeroBias: cfg.ZeroBias,
			Criterion: criterion, ChooseCriterion: auto && task != Regression,
			ActiveSizeGiven: cfg.ActiveSize != 0, Candidates: SearchCandidates,
			Trace: cfg.SearchTrace, Progress: report})
	if err != nil {
		return "", 0, 0, 0, err
	}
	p.Scaler = res.Scaler
	p.Sharpness, p.LabelNoise, p.Softmax = res.Sharpness, res.LabelNoise, res.Softmax
	if p.Baseline = res.Baseline; !p.Baseline.Beaten() {
		p.Warnings = append(p.Warnings, p.Baseline.Warning())
	}
	return res.Spec, res.Criterion, res.Score, res.ActiveSize, nil
}

// labelMember is a binary task's label regression to be fitted with its kernel spec.
type labelMember struct {
	p    *modelFit
	spec string
}

// chooseLabels fits a binary task's label regression (labels.go) on the inputs as the search
// scaled them and compares its leave-one-out log loss with probit, the held-out log loss of
// the probit search's kernel (both at the least label noise). Taken alone, it sets p's
// logistic map, label noise and sharpness and returns its kernel spec and the entropy
// criterion (every row is active: the criterion orders them only); blended with the probit
// model (blend.go), it returns spec and criterion as they were, for the probit member, and
// the label regression as the partner; else spec and criterion alone.
func (p *modelFit) chooseLabels(x mat.Matrix, y []float64, cfg *Config, probit float64,
	spec string, criterion engine.Criterion) (string, engine.Criterion, *labelMember, error) {
	yc, _ := codeTargets(Binary, p.Classes, y, 0)
	res, err := exactgp.FitLabels(x, p.Scaler, yc)
	if errors.Is(err, calib.ErrNoLogistic) {
		return spec, criterion, nil, nil
	}
	if err != nil {
		return "", 0, nil, err
	}
	decision := "the probit model kept"
	alone := cfg.labelsAlways || (res.LOOLoss < probit && !cfg.pair)
	blend := !cfg.labelsAlways && blendable(res.LOOLoss, probit) && !cfg.Part.IsPart()
	switch {
	case blend:
		decision = "blended with the probit model"
	case alone:
		decision = "taken"
	}
	if cfg.Progress != nil {
		cfg.Progress(Progress{Problems: 1, Search: res.Evals,
			SearchKernel: fmt.Sprintf("%s, the labels regressed, scored leaving one row out "+
				"(the probit search's kernel: %.4f; %s)", res.Spec, probit, decision),
			SearchScore: res.LOOLoss})
	}
	switch {
	case blend:
		labels := &modelFit{Predictor: &Predictor{Task: Binary, Classes: p.Classes},
			calibration: calibration{Scaler: p.Scaler, Sharpness: 1, LabelNoise: res.LabelNoise,
				Logistic: &res.Logistic}}
		return spec, criterion, &labelMember{p: labels, spec: res.Spec}, nil
	case alone:
		p.Logistic, p.LabelNoise, p.Sharpness = &res.Logistic, res.LabelNoise, 1
		return res.Spec, engine.Entropy, nil, nil
	}
	return spec, criterion, nil, nil
}

// searchExact is search for a regression task whose rows are all active: the exact GP's
// marginal likelihood chooses the kernel, with a length scale per input (package exactgp), on
// inputs scaled by p.Scaler. Its one progress report counts the likelihood's evaluations
// and scores the leave-one-out predictions.
func (p *modelFit) searchExact(
	x mat.Matrix,
	y []float64,
	cfg *Config,
) (string, engine.Criterion, float64,
	error) {
	n, _ := x.Dims()
	if err := search.CheckRows(n); err != nil {
		return "", 0, 0, err
	}
	xs, err := p.Scaler.Apply(x)
	if err != nil {
		return "", 0, 0, err
	}
	res, err := exactgp.Regression(xs, y)
	if err != nil {
		return "", 0, 0, err
	}
	if cfg.Progress != nil {
		cfg.Progress(Progress{Problems: 1, Search: res.Evals,
			SearchKernel: res.Spec + ", by the marginal likelihood, scored leaving one row out",
			SearchScore:  res.LOOLoss})
	}
	p.Sharpness = res.Sharpness
	return res.Spec, engine.Entropy, res.LOOLoss, nil
}

// fitProblems fits p's binary problems (one per class for multi-class, or only a
// partitioned training's slice of them) on the scaled inputs xs with the kernel spec.
func (p *modelFit) fitProblems(xs *mat.Dense, y []float64, cfg *Config, spec string,
	criterion engine.Criterion, d int) error {
	// A partitioned training dispatches only its slice of the problems. Everything above
	// (task, classes, scaling, the kernel search, d, sharpness) and anything else shared by
	// all classes must be computed from the whole data in every part, so that the merged
	// parts are the single run's model; the per-class results do not depend on the workers
	// a job gets.
	n, _ := xs.Dims()
	problems, task, classes := p.problems(), p.Task, p.Classes
	first, last := cfg.Part.Range(problems)
	p.Part = cfg.Part
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel := classesAtOnce(last-first, workers, n, d)
	var mu sync.Mutex
	report := func(pr Progress) {
		if cfg.Progress != nil {
			mu.Lock()
			defer mu.Unlock()
			cfg.Progress(pr)
		}
	}
	p.models = make([]*engine.Model, problems)
	p.traces = make([][]engine.IterTrace, problems)
	errs := make([]error, problems)
	pool.ForEach(last-first, parallel, func(i int) {
		c := first + i
		job := problem{index: c, count: problems, d: d, spec: spec, transform: cfg.Transform,
			criterion: criterion, workers: max(1, workers/parallel), cfg: cfg, report: report,
			noise: p.noiseName(p.Task)}
		job.y, job.class = codeTargets(task, classes, y, c)
		p.models[c], p.traces[c], errs[c] = job.run(xs, task)
	})
	for c, err := range errs {
		if err != nil {
			if problems > 1 {
				return fmt.Errorf("ivm: class %g against the rest: %w", classes[c], err)
			}
			return err
		}
	}
	return nil
}
