package ivm

import (
	"math"
	"runtime"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/exactgp"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/projected"
	"github.com/ivmlab/ivm/search"
)

// Plan is what Fit will do with a configuration on given data, resolved before any work:
// for a caller that must decide first (a memory check, a summary of what will be
// trained), so that it asks the library instead of repeating Fit's rules.
type Plan struct {
	// Task and Classes are the task and class labels Fit reads from the targets.
	Task    Task
	Classes []float64
	// Learning is how the kernel is learnt: Search or Algorithm2 (with FixedKernel, one
	// selection and no learning).
	Learning Learning
	// Decomposition is how a multi-class task is split, or Projected where Fit fits a
	// projected model of every row (binary and regression tasks too). A binary task of
	// 2 000–5 000 rows, a one-vs-one multi-class task of 2 500–5 000 or a regression of
	// 700–2 500 may become one after its search, where it predicts the held-out rows
	// better (Fit says which in the Predictor it returns).
	Decomposition Decomposition
	// ActiveSize is d, the active points of each model (the centres of a projected one):
	// Config.ActiveSize reduced to the n rows, as Fit reduces it, or where that is 0 the
	// default Fit starts from (SearchActiveSize for the search's final model, which it may
	// lower; DefaultActiveSize for Algorithm 2; ProjectedCentres). A one-vs-one pair
	// resolves its own on its rows.
	ActiveSize int
	// Bytes estimates what training allocates, the inputs included.
	Bytes float64
}

// Plan returns what Fit would do with cfg on n rows of dim inputs and targets y.
func (cfg Config) Plan(n, dim int, y []float64) (Plan, error) {
	task, classes, err := chooseTask(cfg.Task, y)
	if err != nil {
		return Plan{}, err
	}
	searched := !cfg.FixedKernel && cfg.resolveLearning(task) == Search
	pl := Plan{Task: task, Classes: classes, Learning: Algorithm2,
		Decomposition: cfg.decomposition(n, len(classes), fewestPairRows(y, classes), searched)}
	if searched {
		pl.Learning = Search
	}
	if pl.Decomposition == Projected &&
		(task == Binary || task == MultiClass || task == Regression) {
		pl.ActiveSize = cfg.ActiveSize
		if pl.ActiveSize <= 0 {
			pl.ActiveSize = projected.Centres(n, max(len(classes), 1))
		}
		pl.ActiveSize = min(pl.ActiveSize, n)
		pl.Bytes = 8*float64(n)*float64(dim) + projected.Bytes(n, dim, cfg.ActiveSize,
			max(len(classes), 1))
		return pl, nil
	}
	problems := 1
	if task == MultiClass {
		problems = len(classes)
	}
	pl.ActiveSize = activeSize(n, cfg.ActiveSize, problems, searched)
	pl.Bytes = trainingBytes(n, dim, cfg.ActiveSize, problems, cfg.Workers, searched)
	binary := task == Binary && cfg.Task == TaskAuto && n >= binaryProjectedRows
	pairs := pl.Decomposition == OneVsOne && n > ivmOnlyRows
	if searched && (binary || pairs || task == Regression && n > exactgp.MaxRows) &&
		!cfg.Part.IsPart() && cfg.ActiveSize == 0 && cfg.Decomposition == DecomposeAuto {
		// preferProjected and preferProjectedPairs fit the projected model too, after the
		// search.
		pl.Bytes = max(pl.Bytes, 8*float64(n)*float64(dim)+
			projected.Bytes(n, dim, 0, max(len(classes), 1)))
	}
	return pl, nil
}

// activeSize is the d Fit starts from for Config.ActiveSize d on n rows and the given
// number of binary problems (see Plan.ActiveSize).
func activeSize(n, d, problems int, searched bool) int {
	switch {
	case d > n:
		return n
	case d > 0:
		return d
	case searched:
		return SearchActiveSize(n, problems)
	}
	return DefaultActiveSize(n, problems)
}

// ProbitTask is the task of probit models on targets y, NaN aside: Binary for at most two
// distinct labels (Fit refuses fewer than two), MultiClass (a probit model per class or
// pair of classes) for more integer labels, up to as many as TaskAuto reads as classes. ok
// is false for other targets; labels counts the distinct ones.
func ProbitTask(y []float64) (task Task, labels int, ok bool) {
	distinct := map[float64]bool{}
	integer := true
	for _, v := range y {
		if !math.IsNaN(v) {
			distinct[v] = true
			integer = integer && v == math.Trunc(v)
		}
	}
	switch k := len(distinct); {
	case k <= 2:
		return Binary, k, true
	case integer && k <= maxAutoClasses:
		return MultiClass, k, true
	default:
		return Binary, k, false
	}
}

// trainingBytes estimates what training IVMs allocates for n rows of dim inputs and the
// given number of binary problems (d as activeSize resolves it). The default search holds the
// inputs and two scaled copies while it searches (on a subsample, little more) and its
// folds' inner products (search.InnerMemory), then a scaled copy of the final selection's
// candidate rows and the d×candidates selection matrix of every class trained at once;
// Algorithm 2 holds the inputs, a scaled copy and per class trained at once M and two d×N
// companions in its learning objective.
func trainingBytes(n, dim, d, problems, workers int, searched bool) float64 {
	pool := n // the final selection's candidate rows
	if d <= 0 && searched {
		pool = SearchCandidates(n, SearchActiveSize(n, problems))
	}
	d = activeSize(n, d, problems, searched)
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	data := 8 * float64(n) * float64(dim)
	if searched {
		selection := float64(classesAtOnce(problems, workers, pool, d)) * 8 *
			float64(pool) * float64(d)
		return max(3*data+search.InnerMemory(n), data+8*float64(pool)*float64(dim)+selection)
	}
	return 3*data + float64(min(problems, workers))*3*8*float64(n)*float64(d)
}

// DefaultKernel is the kernel Fit uses when Config.Kernel is empty and Algorithm 2 learns
// it (see engine.DefaultKernel).
func DefaultKernel(dim int) string { return engine.DefaultKernel(dim) }

// DefaultActiveSize is the d Fit uses when Config.ActiveSize is 0 for n training rows and
// the given number of binary problems (one-vs-rest classes; 1 otherwise): every row when
// that costs little (problems·n³ ≤ 10⁹ flops, well under a second: a sparse model gains
// nothing there, and on small sets it throws labels away), else min(n, max(200, 8√n),
// 1250). A fixed d caps the accuracy on larger sets (bench/RESULTS.md records the runs
// behind these sizes), and d growing as √n keeps selection's O(d²n) time growing
// only as n²; past 1 250 (n = 24 000) a class's d×n matrix and time grow too large for a
// 2-core, 2 GB budget.
func DefaultActiveSize(n, problems int) int {
	if float64(max(problems, 1))*math.Pow(float64(n), 3) <= 1e9 {
		return n
	}
	return min(n, max(200, int(math.Round(8*math.Sqrt(float64(n))))), 1250)
}

// searchFinalFlops bounds problems·n·d² of the final model SearchActiveSize grows: about
// 1.5 s of selection on two cores.
const searchFinalFlops = 1e10

// SearchActiveSize is the d of the final model when the default search chose the kernel and
// Config.ActiveSize is 0 (unless the search's held-out loss leaves nothing to gain: see
// search.FlatLoss): DefaultActiveSize (which the search scores its kernels at), grown to
// min(n, 12√n, 1250) and to the largest d with problems·n·d² ≤ 10¹⁰ where either is
// more. The search's cost grows with the d it scores at, the final model's only once; and a
// larger d brings the sparse model closer to the full GP, in its accuracy and most of all in
// its probabilities.
//
// Past candidatesPerActive·d rows the same selection time, problems·d²·n, is spent on a larger
// d chosen from fewer candidates: d' = ∛(d²·n/candidatesPerActive) active points of
// SearchCandidates(n, d') rows.
func SearchActiveSize(n, problems int) int {
	d := DefaultActiveSize(n, problems)
	grown := int(math.Sqrt(searchFinalFlops / float64(max(problems, 1)) / float64(max(n, 1))))
	root := min(1250, int(math.Round(12*math.Sqrt(float64(n)))))
	d = min(n, max(d, grown, root))
	if n <= candidatesPerActive*d {
		return d
	}
	return int(math.Cbrt(float64(d) * float64(d) * float64(n) / candidatesPerActive))
}

// candidatesPerActive is how many candidate rows per active point the default final selection keeps
// on large sets (SearchCandidates). Selection costs d²·N per class, and past about ten candidates
// per active point that time buys more as active points than as candidates. A large pool also
// offers the greedy selection more rare, atypical rows to spend active points on.
const candidatesPerActive = 10

// SearchCandidates is how many of n training rows the default final selection of d active
// points chooses from: all of them up to candidatesPerActive·d, else that many, drawn at
// random (see SearchActiveSize).
func SearchCandidates(n, d int) int { return min(n, candidatesPerActive*max(d, 1)) }

// candidateRows returns, in ascending order, the pool of rows the final selection chooses
// from when it is smaller than all n rows (nil otherwise): a random subset, the same for
// every class and every part of a partitioned training.
func candidateRows(n, pool int, seed uint64) []int {
	if pool >= n {
		return nil
	}
	return subset.Random(n, pool, seed, 0xca9d1)
}

// classMemory bounds the memory that the classes Fit trains side by side may hold in their
// d×N selection matrices (8·N·d bytes each): past it, fewer classes train at once, each
// with more of the workers (selection parallelises over rows), so the time is about the
// same and a 60 000-row, d = 1 225 multi-class fit stays within 2 GB.
const classMemory = 1 << 30

// classesAtOnce is how many of problems binary problems Fit trains side by side with the
// given workers on n rows with d active points each (see classMemory).
func classesAtOnce(problems, workers, n, d int) int {
	return max(1, min(problems, workers, int(classMemory/(8*float64(n)*float64(max(d, 1))))))
}
