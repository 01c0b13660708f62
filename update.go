package ivm

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/multiclass"
	"github.com/ivmlab/ivm/noise"
)

// UpdateOptions configures Predictor.Update. The zero value keeps each model's active set
// size, kernel, noise model and calibration.
type UpdateOptions struct {
	// ActiveSize is each model's active set size after the update: 0 keeps each model's own,
	// unless it is the size Fit chooses for the rows the model has seen, which grows by the
	// new rows' share of the size Fit would choose for all the rows (grownActiveSize); a
	// larger one grows them (to at most their active and new rows).
	ActiveSize int
	// MaxSwaps caps each model's swaps of an active point for a new row: 0 means a fifth of
	// its active set size where the set does not grow and none where it does, a negative
	// value none (engine.ExtendOptions).
	MaxSwaps int
	// Criterion is the selection score: CriterionAuto is Fit's (expected entropy for binary
	// and multi-class tasks, entropy otherwise).
	Criterion engine.CriterionChoice
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Relearn learns each model's kernel again, for a binary, multi-class or regression
	// model. A model that holds every row it has seen as an active point, whose sites tell
	// their targets (a label regression, a probit model, a regression, a one-vs-rest model
	// of such probit models: refitHeld), is fitted again as Fit fits one on those rows and
	// the new ones. Another runs Algorithm 2
	// on its sites and the new rows (engine.Relearn, every new row a candidate, no swaps),
	// and its probabilities become those of a model whose kernel Algorithm 2 learnt (ivm
	// train -kernel-choice alg2): sharpness 1, no softmax, the label noise kept.
	Relearn bool
}

// ErrNotUpdatable is the error of Update for a model whose kind holds no active set that new
// rows can join.
var ErrNotUpdatable = errors.New("ivm: this model cannot be updated")

// Update returns the predictor updated with the labelled rows x and their targets y (labels
// among p.Classes; regression values), p unchanged: each IVM model's new rows become
// candidates for its active set and its sites, with its kernel, noise model and calibration
// kept (engine.Extend; no old training row is needed). A one-vs-rest model updates each
// class's model with the labels coded for that class, a one-vs-one model each pair with the
// rows of its two classes, a blend each member. A projected model cannot be updated
// (ErrNotUpdatable). The update is appended to Training.Updates with its row count, start
// and seconds; the caller fills in the file it read.
func (p *Predictor) Update(x mat.Matrix, y []float64, opt UpdateOptions) (*Predictor, error) {
	start := time.Now()
	if err := p.checkUpdate(x, y, opt); err != nil {
		return nil, err
	}
	u, ok := p.Kind.(updatable)
	if !ok {
		return nil, notUpdatable(p.Kind)
	}
	up := updateRun{opt: opt, task: p.Task, first: p.Training.AllRows(),
		seen: p.Training.AllRows()}
	if up.opt.Workers <= 0 {
		up.opt.Workers = runtime.GOMAXPROCS(0)
	}
	kind, err := u.update(p, x, y, &up)
	if err != nil {
		return nil, err
	}
	q := *p
	q.Kind, q.Warnings = kind, nil
	q.Training.Args = slices.Clone(p.Training.Args)
	n, _ := x.Dims()
	q.Training.Updates = append(slices.Clone(p.Training.Updates), dataset.Update{Rows: n,
		Time: start.UTC().Format(time.RFC3339), Seconds: time.Since(start).Seconds(),
		Relearn: opt.Relearn})
	return &q, nil
}

// checkUpdate refuses what no update can use: Predict's refusals, options out of range,
// as many targets as rows, and targets that are not the task's.
func (p *Predictor) checkUpdate(x mat.Matrix, y []float64, opt UpdateOptions) error {
	if err := p.checkInputs(x); err != nil {
		return err
	}
	if n, _ := x.Dims(); len(y) != n || n == 0 {
		return fmt.Errorf("ivm: %d targets for %d new rows", len(y), n)
	}
	if opt.ActiveSize < 0 {
		return fmt.Errorf("ivm: active set size %d", opt.ActiveSize)
	}
	if opt.Relearn {
		if err := relearnRefusal(p); err != nil {
			return err
		}
	}
	for i, v := range y {
		switch {
		case math.IsNaN(v) && p.Task == SemiSupervised:
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("ivm: new row %d has target %v; "+
				"a %v model is updated with labelled rows",
				i, v, p.Task)
		case p.Task != Regression && !slices.Contains(p.Classes, v):
			return fmt.Errorf("ivm: new row %d has label %v, not one of the model's classes %v; "+
				"a new class needs a model trained on it", i, v, p.Classes)
		}
	}
	return nil
}

// refitHeld relearns a one-vs-rest model whose classes' models each hold every row it has
// seen (SingleKind.refitHeld): a row's class is the one whose model's site says +1. It is
// fitted again as Fit fits one, on those rows and the new ones, with the inputs as its
// scaling makes them. ok is false where a class's model holds fewer points or the rows'
// classes cannot be told.
func (k *OneVsRestKind) refitHeld(p *Predictor, x mat.Matrix, y []float64,
	up *updateRun) (kind Kind, ok bool, err error) {
	first := k.Models[0]
	d := first.Size()
	if first.Active == nil || d != up.seen {
		return nil, false, nil
	}
	pos := make(map[int]int, d) // a row's position in the first class's model
	for i, r := range first.Active {
		pos[r] = i
	}
	labels := make([]float64, d)
	for i := range labels {
		labels[i] = math.NaN()
	}
	for c, m := range k.Models {
		if _, probit := m.Noise.(*noise.Probit); !probit || m.Size() != d || m.Active == nil {
			return nil, false, nil
		}
		for j, positive := range positiveSites(m) {
			i, found := pos[m.Active[j]]
			if !found {
				return nil, false, nil
			}
			if positive {
				if !math.IsNaN(labels[i]) {
					return nil, false, nil // two classes claim the row
				}
				labels[i] = p.Classes[c]
			}
		}
	}
	if slices.ContainsFunc(labels, math.IsNaN) {
		return nil, false, nil
	}
	fitted, err := fitAgain(first.XActive, labels, k.Scaler, x, y, Config{Task: MultiClass,
		Decomposition: OneVsRest, Workers: up.opt.Workers}, k)
	if err != nil {
		return nil, true, err
	}
	out := *fitted.(*OneVsRestKind)
	out.Scaler = k.Scaler
	for _, m := range out.Models {
		renumberRefit(m.Active, first.Active, up.first)
	}
	return &out, true, nil
}

// fitAgain fits cfg, with no scaling of its own, to a model's active inputs xa (scaled) with
// their targets and the new rows x scaled by sc with theirs, and returns the kind, which
// must be of was's type.
func fitAgain(xa *mat.Dense, targets []float64, sc *dataset.Scaler, x mat.Matrix,
	y []float64, cfg Config, was Kind) (Kind, error) {
	xs, err := sc.Apply(x)
	if err != nil {
		return nil, err
	}
	var all mat.Dense
	all.Stack(xa, xs)
	cfg.Scale = dataset.ScaleNone
	q, err := Fit(&all, append(slices.Clip(targets), y...), cfg)
	if err != nil {
		return nil, err
	}
	if reflect.TypeOf(q.Kind) != reflect.TypeOf(was) {
		return nil, fmt.Errorf("ivm: the model fitted again is a %T, not a %T", q.Kind, was)
	}
	return q.Kind, nil
}

// renumberRefit numbers the active rows of a model fitted again on the held rows, numbered
// held (nil: the numbers are kept), and then the new rows: row r of that fit is held[r],
// or first + r − len(held) for a new row.
func renumberRefit(active, held []int, first int) {
	if held == nil {
		return
	}
	for i, r := range active {
		if r < len(held) {
			active[i] = held[r]
		} else {
			active[i] = first + r - len(held)
		}
	}
}

// relearnRefusal says why the kernels of p cannot be relearnt (nil where they can): its task.
func relearnRefusal(p *Predictor) error {
	if p.Task != Binary && p.Task != MultiClass && p.Task != Regression {
		return fmt.Errorf("ivm: relearning the kernel of a %v model is not supported; "+
			"train again on the old and new rows", p.Task)
	}
	return nil
}

// notUpdatable says why kind k cannot be updated and what to do instead.
func notUpdatable(k Kind) error {
	if _, ok := k.(*ProjectedKind); ok {
		return fmt.Errorf("%w: a projected model regresses every training row through shared "+
			"kernel centres and holds none of them, so new rows have no active set to join; "+
			"train again on the old and new rows (ivm train; with -multiclass ovr, "+
			"Config.Decomposition OneVsRest, it trains IVM models that update can extend)",
			ErrNotUpdatable)
	}
	return fmt.Errorf("%w: its kind (%T) holds no IVM active set", ErrNotUpdatable, k)
}

// updatable is a Kind whose IVM models new rows can join.
type updatable interface {
	// update returns the kind updated with the checked rows x and targets y of p's task.
	update(p *Predictor, x mat.Matrix, y []float64, up *updateRun) (Kind, error)
}

// updateRun is what every model of one Update shares: the options, the number of the first
// new row in the models' Active (the rows seen before), and for grownActiveSize the rows the
// models were fitted to (0: unknown, sizes kept) and how many binary models Fit sized their
// active sets for (0: one).
type updateRun struct {
	opt            UpdateOptions
	task           Task
	first          int
	seen, problems int
	// columns holds the kernel columns over the new rows that the models share (nil: none).
	columns *engine.ColumnCache
}

// extend updates model m with the scaled rows xs and coded targets yc on workers goroutines.
func (up *updateRun) extend(m *engine.Model, xs *mat.Dense, yc []float64,
	workers int) (*engine.Model, error) {
	auto := engine.Entropy
	if up.task == Binary || up.task == MultiClass {
		auto = engine.ExpectedEntropy
	}
	size, swaps := up.opt.ActiveSize, up.opt.MaxSwaps
	if size <= 0 {
		n, _ := xs.Dims()
		size = grownActiveSize(m.Size(), up.seen, up.seen+n, max(up.problems, 1))
	}
	if size > m.Size() && swaps == 0 {
		swaps = -1 // a swap costs several inclusions (bench/RESULTS.md, "Update")
	}
	opt := engine.ExtendOptions{ActiveSize: max(size, 0), MaxSwaps: swaps,
		Criterion: up.opt.Criterion.Resolve(auto), Workers: workers, FirstRow: up.first,
		Columns: up.columns}
	if up.opt.Relearn {
		out, _, err := engine.Relearn(m, xs, yc, opt, engine.LoopOptions{Iters: relearnIters,
			Workers: workers})
		return out, err
	}
	out, _, err := engine.Extend(m, xs, yc, opt)
	return out, err
}

// relearnIters is the number of Algorithm 2's outer iterations of an update that relearns
// the kernel: fewer than the papers' eight, for each costs a selection and the update starts
// from a kernel already learnt (bench/RESULTS.md, "Relearning the kernel").
const relearnIters = 4

// grownActiveSize is the active set size an update gives a model of d active points fitted
// to nOld rows, nAll with the new, one of problems binary models. Where d is the size Fit
// chooses for nOld rows (DefaultActiveSize for a kernel given, SearchActiveSize for one
// searched), the new rows get their share of the size Fit would choose for all the rows,
// d_all·(nAll − nOld)/nAll points, and the model grows at least to d_all: the old points
// were chosen without the new rows, so a model of d_all points that keeps them all covers
// the new rows more thinly than Fit would. Else d, a size the user chose, is kept.
func grownActiveSize(d, nOld, nAll, problems int) int {
	var all int
	switch {
	case nOld <= 0 || nAll <= nOld:
		return d
	case d == DefaultActiveSize(nOld, problems):
		all = DefaultActiveSize(nAll, problems)
	case d == SearchActiveSize(nOld, problems):
		all = SearchActiveSize(nAll, problems)
	default:
		return d
	}
	share := int(math.Round(float64(all) * float64(nAll-nOld) / float64(nAll)))
	return max(all, d+share)
}

// update extends the model with the rows' targets coded as Fit codes them.
func (k *SingleKind) update(p *Predictor, x mat.Matrix, y []float64,
	up *updateRun) (Kind, error) {
	if up.opt.Relearn {
		if kind, ok, err := k.refitHeld(p, x, y, up); ok {
			return kind, err
		}
		if k.Logistic != nil {
			return nil, fmt.Errorf("ivm: the label regression holds %d of the %d rows it has "+
				"seen; relearning it needs them all: train again on the old and new rows",
				k.Model.Size(), up.seen)
		}
	}
	xs, err := k.Scaler.Apply(x)
	if err != nil {
		return nil, err
	}
	yc, _ := codeTargets(p.Task, p.Classes, y, 0)
	m, err := up.extend(k.Model, xs, yc, up.opt.Workers)
	if err != nil {
		return nil, err
	}
	q := *k
	q.Model = m
	if up.opt.Relearn {
		q.Sharpness = 1 // the search's a fitted the old kernel's outputs
	}
	return &q, nil
}

// refitHeld relearns a model that holds every row it has seen as an active point whose
// target its site tells (heldTargets): it is fitted again as Fit fits one, on those rows and
// the new rows x (targets y), with the inputs as its scaling makes them, and stays the model
// it was (a label regression, a probit model or a regression). ok is false where the model
// does not hold them all or its sites do not tell its targets.
func (k *SingleKind) refitHeld(p *Predictor, x mat.Matrix, y []float64,
	up *updateRun) (kind Kind, ok bool, err error) {
	m := k.Model
	d := m.Size()
	targets, ok := k.heldTargets(p)
	// A label regression holds every row by construction; another model only where the
	// rows it has seen are counted (older files' pairs do not count theirs).
	if !ok || d != up.seen && (up.seen > 0 || k.Logistic == nil) {
		return nil, false, nil
	}
	cfg := Config{Task: p.Task, Workers: up.opt.Workers}
	if k.Logistic != nil {
		// Past exactgp.MaxRows rows Fit makes it a probit model, as for as many rows.
		cfg.Task, cfg.labelsAlways = TaskAuto, true
	}
	fitted, err := fitAgain(m.XActive, targets, k.Scaler, x, y, cfg, k)
	if err != nil {
		return nil, true, err
	}
	out := *fitted.(*SingleKind)
	out.Scaler = k.Scaler
	renumberRefit(out.Model.Active, m.Active, up.first)
	return &out, true, nil
}

// heldTargets returns the targets of the model's active points where its sites tell them:
// a Gaussian site is the target less the noise model's bias (a label regression's labels
// are coded ±1), and a probit site tells its label's sign (positiveSites).
func (k *SingleKind) heldTargets(p *Predictor) ([]float64, bool) {
	m := k.Model
	label := func(positive bool) float64 {
		if positive {
			return p.Classes[len(p.Classes)-1]
		}
		return p.Classes[0]
	}
	out := make([]float64, m.Size())
	switch nm := m.Noise.(type) {
	case *noise.Gaussian:
		for i, s := range m.SiteM {
			out[i] = s + nm.Bias
			if k.Logistic != nil {
				if math.Abs(math.Abs(out[i])-1) > 1e-6 {
					return nil, false
				}
				out[i] = label(out[i] > 0)
			}
		}
		return out, p.Task == Regression || k.Logistic != nil
	case *noise.Probit:
		for i, positive := range positiveSites(m) {
			out[i] = label(positive)
		}
		return out, p.Task == Binary
	}
	return nil, false
}

// positiveSites says for each active point of a probit model whether its label was +1: its
// site's mean lies above the latent mean at its inclusion for +1, below it for −1
// (engine.Model.InclusionMeans).
func positiveSites(m *engine.Model) []bool {
	out := make([]bool, m.Size())
	for i, mu := range m.InclusionMeans() {
		out[i] = m.SiteM[i] > mu
	}
	return out
}

// update extends each class's model with the labels coded for that class, the classes side
// by side.
func (k *OneVsRestKind) update(p *Predictor, x mat.Matrix, y []float64,
	up *updateRun) (Kind, error) {
	if up.opt.Relearn {
		if kind, ok, err := k.refitHeld(p, x, y, up); ok {
			return kind, err
		}
	}
	xs, err := k.Scaler.Apply(x)
	if err != nil {
		return nil, err
	}
	models := make([]*engine.Model, len(k.Models))
	parallel := min(len(models), up.opt.Workers)
	classes := *up
	classes.problems = len(models)
	// The classes' models include many of the same new rows, each with the same kernel.
	classes.columns = engine.NewColumnCache(xs)
	up = &classes
	err = pool.ForEachErr(len(models), parallel, func(c int) error {
		yc, _ := codeTargets(MultiClass, p.Classes, y, c)
		m, err := up.extend(k.Models[c], xs, yc, max(1, up.opt.Workers/parallel))
		if err != nil {
			return fmt.Errorf("ivm: class %g against the rest: %w", p.Classes[c], err)
		}
		models[c] = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	q := *k
	q.Models = models
	if up.opt.Relearn {
		q.Sharpness, q.Softmax = 1, false // the search's calibration fitted the old kernels
	}
	return &q, nil
}

// update updates each pair with the new rows of its two classes; a pair without any keeps
// its model. New rows keep their numbers in the new rows of all classes.
func (k *OneVsOneKind) update(p *Predictor, x mat.Matrix, y []float64,
	up *updateRun) (Kind, error) {
	rows := subset.ByClass(y, p.Classes)
	pairs := make([]*Predictor, len(k.Pairs))
	parallel := min(len(pairs), up.opt.Workers)
	err := pool.ForEachErr(len(pairs), parallel, func(j int) error {
		a, b := multiclass.PairOf(j, len(p.Classes))
		idx := slices.Concat(rows[a], rows[b])
		pairs[j] = k.Pairs[j]
		if len(idx) == 0 {
			return nil
		}
		slices.Sort(idx)
		pp := k.Pairs[j]
		u, ok := pp.Kind.(updatable)
		if !ok {
			return notUpdatable(pp.Kind)
		}
		pu := *up
		// A pair's active set was sized for its own rows (0 in files written before they were
		// counted: its size is kept).
		pu.task, pu.opt.Workers, pu.problems = Binary, max(1, up.opt.Workers/parallel), 1
		pu.seen = pp.Training.Rows
		kind, err := u.update(pp, subset.Dense(x, idx), subset.Of(y, idx), &pu)
		if err != nil {
			return fmt.Errorf("ivm: classes %g and %g: %w", p.Classes[a], p.Classes[b], err)
		}
		renumberRows(kind, idx, up.first)
		q := *pp
		q.Kind = kind
		if q.Training.Rows > 0 {
			q.Training.Rows += len(idx)
		}
		pairs[j] = &q
		return nil
	})
	if err != nil {
		return nil, err
	}
	q := *k
	q.Pairs = pairs
	return &q, nil
}

// renumberRows numbers the new rows in the active sets of a pair's kind by their rows in all
// the new rows: row first + j of the pair's is row first + idx[j] of all.
func renumberRows(k Kind, idx []int, first int) {
	for _, sm := range k.submodels(nil) {
		for i, a := range sm.Model.Active {
			if a >= first {
				sm.Model.Active[i] = first + idx[a-first]
			}
		}
	}
}

// update updates each member of the blend with the rows; the blend's equal weights and each
// member's calibration, chosen on the training rows, are kept.
func (k *BlendKind) update(p *Predictor, x mat.Matrix, y []float64,
	up *updateRun) (Kind, error) {
	members := make([]*Predictor, len(k.Members))
	for j, mp := range k.Members {
		u, ok := mp.Kind.(updatable)
		if !ok {
			return nil, notUpdatable(mp.Kind)
		}
		mu := *up
		mu.task = Binary
		if sk, ok := mp.Kind.(*SingleKind); ok && sk.Logistic != nil {
			mu.task = Regression // the label regression: its rows' order only, as Fit's
		}
		kind, err := u.update(mp, x, y, &mu)
		if err != nil {
			return nil, err
		}
		q := *mp
		q.Kind = kind
		members[j] = &q
	}
	return &BlendKind{Members: members}, nil
}
