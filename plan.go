package ivm

import (
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
	// Bytes estimates what training allocates, the inputs included.
	Bytes float64
}

// Plan returns what Fit would do with cfg on n rows of dim inputs and targets y.
func (cfg Config) Plan(n, dim int, y []float64) (Plan, error) {
	task, classes, err := chooseTask(cfg.Task, y)
	if err != nil {
		return Plan{}, err
	}
	search := !cfg.FixedKernel && cfg.resolveLearning(task) == Search
	pl := Plan{Task: task, Classes: classes, Learning: Algorithm2,
		Decomposition: cfg.decomposition(n, len(classes), search)}
	if search {
		pl.Learning = Search
	}
	if pl.Decomposition == Projected && (task == Binary || task == MultiClass || task == Regression) {
		pl.Bytes = 8*float64(n)*float64(dim) + projected.Bytes(n, dim, cfg.ActiveSize,
			max(len(classes), 1))
		return pl, nil
	}
	problems := 1
	if task == MultiClass {
		problems = len(classes)
	}
	pl.Bytes = trainingBytes(n, dim, cfg.ActiveSize, problems, cfg.Workers, search)
	return pl, nil
}

// trainingBytes estimates what training IVMs allocates for n rows of dim inputs and the
// given number of binary problems (d = 0: DefaultActiveSize). The default search holds the
// inputs and two scaled copies while it searches (on a subsample, little more) and its
// folds' inner products (search.InnerMemory), then a scaled copy of the final selection's
// candidate rows and the d×candidates selection matrix of every class trained at once;
// Algorithm 2 holds the inputs, a scaled copy and per class trained at once M and two d×N
// companions in its learning objective.
func trainingBytes(n, dim, d, problems, workers int, searched bool) float64 {
	pool := n // the final selection's candidate rows
	if d <= 0 || d > n {
		d = DefaultActiveSize(n, problems)
		if searched {
			d = SearchActiveSize(n, problems)
			pool = SearchCandidates(n, d)
		}
	}
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
