package ivm

import (
	"math"
	"runtime"

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
	// projected model of every row (binary and regression tasks too).
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
		Decomposition: cfg.decomposition(n, len(classes), searched)}
	if searched {
		pl.Learning = Search
	}
	if pl.Decomposition == Projected && (task == Binary || task == MultiClass || task == Regression) {
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
		selection := float64(classesAtOnce(problems, workers, pool, d)) * 8 * float64(pool) * float64(d)
		return max(3*data+search.InnerMemory(n), data+8*float64(pool)*float64(dim)+selection)
	}
	return 3*data + float64(min(problems, workers))*3*8*float64(n)*float64(d)
}
