package multitask

import (
	"errors"
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// Task is one task's training data and noise model.
type Task struct {
	// Name is the task's label (as written in the data file); it names the task in model
	// files and errors.
	Name string
	// X holds the task's inputs (N_m×D) and Y its targets (length N_m).
	X *mat.Dense
	Y []float64
	// Noise is the task's own noise model (each task needs its own instance: its Init sets
	// data-dependent start-up parameters such as the Gaussian bias, the mean of the task's
	// targets).
	Noise noise.Model
	// Rows optionally maps the task's rows to the rows of the file they came from
	// (provenance in model files); nil means 0 … N_m−1.
	Rows []int
}

// Step records one inclusion of the multi-task selection.
type Step struct {
	// Task is the index of the task the point belongs to, Index its 0-based row within
	// the task (−1 in a model read from a file), Row its row in the file (Task.Rows).
	Task, Index, Row int
	// Delta is the entropy reduction of the point in bits; Ties is how many candidates
	// (over all tasks) had exactly that score.
	Delta float64
	Ties  int
}

// Selector runs Algorithm 3 of the extensions paper: one engine.Selector per task, all on the
// same kernel, with every inclusion chosen across tasks.
type Selector struct {
	Kernel kern.Kernel
	Tasks  []Task

	sels    []*engine.Selector
	steps   []Step
	workers int
}

// NewSelector prepares the multi-task selection of the tasks with kernel k. It calls every
// task's noise model's Init on the task's targets and scores every point against the prior,
// tasks in parallel. opt is passed to the tasks' selectors; opt.Workers also bounds the
// goroutines across tasks.
func NewSelector(tasks []Task, k kern.Kernel, opt engine.Options) (*Selector, error) {
	if len(tasks) == 0 {
		return nil, errors.New("multitask: no tasks")
	}
	if k == nil {
		return nil, errors.New("multitask: NewSelector needs a kernel")
	}
	dim := -1
	for m, t := range tasks {
		if t.X == nil || t.Noise == nil {
			return nil, fmt.Errorf("multitask: task %d (%q) needs inputs and a noise model",
				m, t.Name)
		}
		for j := 0; j < m; j++ {
			if tasks[j].Noise == t.Noise {
				return nil, fmt.Errorf("multitask: tasks %q and %q share one noise model "+
					"instance; each task needs its own", tasks[j].Name, t.Name)
			}
		}
		n, c := t.X.Dims()
		if dim >= 0 && c != dim {
			return nil, fmt.Errorf("multitask: task %q has %d input columns, task %q %d", t.Name, c,
				tasks[0].Name, dim)
		}
		dim = c
		if t.Rows != nil && len(t.Rows) != n {
			return nil, fmt.Errorf("multitask: task %q has %d rows but %d row numbers", t.Name, n,
				len(t.Rows))
		}
	}
	s := &Selector{Kernel: k, Tasks: tasks, sels: make([]*engine.Selector, len(tasks)),
		workers: workers(opt.Workers)}
	err := s.parallel(func(m int) error {
		t := tasks[m]
		sel, err := engine.NewSelector(t.X, t.Y, k, t.Noise, opt)
		if err != nil {
			return fmt.Errorf("multitask: task %q: %w", t.Name, err)
		}
		s.sels[m] = sel
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func workers(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// parallel runs f(m) for every task on up to s.workers goroutines and returns the first
// error by task order.
func (s *Selector) parallel(f func(m int) error) error {
	return pool.ForEachErr(len(s.Tasks), s.workers, f)
}

// Reset empties every task's active set and restores the prior (call it after changing
// the kernel's or the noise models' parameters). Tasks are reset in parallel.
func (s *Selector) Reset() error {
	s.steps = s.steps[:0]
	return s.parallel(func(m int) error { return s.sels[m].Reset() })
}

// Best returns the task and index of the candidate with the largest entropy reduction over
// all tasks, that reduction in bits and the number of candidates sharing it. Ties go to the
// first task (and, within it, to the lowest index). It returns task −1 when every point of
// every task is active.
func (s *Selector) Best() (task, index int, delta float64, ties int) {
	task, index = -1, -1
	for m, sel := range s.sels {
		i, d, t := sel.Best()
		switch {
		case i < 0:
		case task < 0 || d > delta:
			task, index, delta, ties = m, i, d, t
		case d == delta:
			ties += t
		}
	}
	return task, index, delta, ties
}

// Include adds point index of task task to that task's active set.
func (s *Selector) Include(task, index int) error {
	if task < 0 || task >= len(s.sels) {
		return fmt.Errorf("multitask: task %d out of range [0, %d)", task, len(s.sels))
	}
	sel := s.sels[task]
	if err := sel.Include(index); err != nil {
		return fmt.Errorf("multitask: task %q: %w", s.Tasks[task].Name, err)
	}
	st := sel.Steps()
	rec := st[len(st)-1]
	s.steps = append(s.steps, Step{Task: task, Index: index, Row: s.row(task, index),
		Delta: rec.Delta, Ties: rec.Ties})
	return nil
}

// row maps row i of task m to its file row.
func (s *Selector) row(m, i int) int {
	if r := s.Tasks[m].Rows; r != nil {
		return r[i]
	}
	return i
}

// Select adds d more points, each the best over all tasks (Algorithm 3).
func (s *Selector) Select(d int) error {
	if d < 0 {
		return fmt.Errorf("multitask: cannot select %d points", d)
	}
	if avail := s.NumPoints() - len(s.steps); d > avail {
		return fmt.Errorf("multitask: %d more active points requested, %d inactive points left",
			d, avail)
	}
	for k := 0; k < d; k++ {
		m, i, delta, ties := s.Best()
		if m < 0 {
			return errors.New("multitask: no candidate left")
		}
		if err := s.sels[m].Include(i); err != nil {
			return fmt.Errorf("multitask: task %q: %w", s.Tasks[m].Name, err)
		}
		s.steps = append(s.steps,
			Step{Task: m, Index: i, Row: s.row(m, i), Delta: delta, Ties: ties})
	}
	return nil
}

// NumPoints is the number of training points over all tasks.
func (s *Selector) NumPoints() int {
	n := 0
	for _, t := range s.Tasks {
		r, _ := t.X.Dims()
		n += r
	}
	return n
}

// Steps returns the record of every inclusion since the last Reset, in order (the
// selector's own slice).
func (s *Selector) Steps() []Step { return s.steps }

// Size is the number of active points over all tasks.
func (s *Selector) Size() int { return len(s.steps) }

// Active returns the 0-based active rows of task m in inclusion order (the task selector's
// own slice).
func (s *Selector) Active(m int) []int { return s.sels[m].Active() }

// Task returns the engine.Selector of task m, for callers that need its posterior (Mean, Var)
// or its inclusion records. Changing its active set directly bypasses Steps.
func (s *Selector) Task(m int) *engine.Selector { return s.sels[m] }

// HeldOutLogLik returns the mean of ln p(y_n | active set of n's task) over the inactive
// points of all tasks: the predictive log likelihood of the training labels the active sets
// did not use. It is NaN when every point is active.
func (s *Selector) HeldOutLogLik() float64 {
	var sum float64
	n := 0
	for m, sel := range s.sels {
		r, _ := s.Tasks[m].X.Dims()
		k := r - sel.Size()
		if k > 0 {
			sum += sel.HeldOutLogLik() * float64(k)
			n += k
		}
	}
	if n == 0 {
		return nan()
	}
	return sum / float64(n)
}
