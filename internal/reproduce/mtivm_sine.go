package reproduce

import (
	"fmt"
	"io"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
)

// SineKernel is the sine toy's kernel (extensions paper Fig. 7: an RBF of width 1).
const SineKernel = "rbf(gamma=1,variance=1)"

// SineResult is the outcome of the sine toy (extensions paper §5, Fig. 7).
type SineResult struct {
	// Tasks are the task names in file order.
	Tasks []string
	// Steps are the inclusions in order.
	Steps []multitask.Step
	// PerTask are the active rows of every task (0-based within the task) in inclusion
	// order.
	PerTask [][]int
	// Learnt, when learning ran, holds the same after learning, and Kernel its kernel.
	Learnt        []multitask.Step
	LearntPerTask [][]int
	Kernel        string
}

// ReadSine reads the sine toy (CSV with columns task,x,y) into tasks with Gaussian noise
// (σ² = 1e−6, each task's bias the mean of its targets).
func ReadSine(r io.Reader) ([]multitask.Task, error) {
	data, err := dataset.Read(r, dataset.ReadOptions{Format: dataset.CSV,
		TaskCol: dataset.TaskFirst, Header: dataset.HeaderAuto})
	if err != nil {
		return nil, err
	}
	if data.Task == nil {
		return nil, fmt.Errorf("reproduce: the sine toy has no task column")
	}
	return multitask.Split(data.X, data.Y, data.Task, func() (noise.Model, error) {
		return noise.NewGaussian(0), nil
	})
}

// RunSine runs the multi-task selection of d points on the sine toy with the fixed kernel
// SineKernel and, when iters > 0, Algorithm 2 with iters outer iterations of the papers'
// fixed-site objective (kIters SCG steps each, every iteration accepted, exp transform as
// in the reference toolbox) followed by a final selection.
func RunSine(tasks []multitask.Task, d, iters, kIters int) (*SineResult, error) {
	k, err := kern.Parse(SineKernel, 1)
	if err != nil {
		return nil, err
	}
	s, err := multitask.NewSelector(tasks, k, engine.Options{Workers: 1})
	if err != nil {
		return nil, err
	}
	if err := s.Select(d); err != nil {
		return nil, err
	}
	res := &SineResult{Steps: append([]multitask.Step(nil), s.Steps()...)}
	for m, t := range tasks {
		res.Tasks = append(res.Tasks, t.Name)
		res.PerTask = append(res.PerTask, append([]int(nil), s.Active(m)...))
	}
	if iters <= 0 {
		return res, nil
	}
	lk, err := kern.Parse(SineKernel+";transform=exp", 1)
	if err != nil {
		return nil, err
	}
	m, _, err := multitask.Learn(tasks, lk, multitask.LearnOptions{ActiveSize: d, Iters: iters,
		KernelIters: kIters,
		Objective:   multitask.FixedSites, LastIterate: true, NetlabTolerances: true, Workers: 1})
	if err != nil {
		return nil, err
	}
	res.Learnt = m.Steps
	res.LearntPerTask = make([][]int, len(tasks))
	for _, st := range m.Steps {
		res.LearntPerTask[st.Task] = append(res.LearntPerTask[st.Task], st.Index)
	}
	res.Kernel = lk.String()
	return res, nil
}

// WriteSine prints the sine toy's result in the layout of the reference's log
// (1-based task numbers and rows).
func WriteSine(w io.Writer, r *SineResult) {
	write := func(title string, steps []multitask.Step, per [][]int) {
		fmt.Fprintf(w, "%s\ntask order of the %d inclusions:", title, len(steps))
		for _, st := range steps {
			fmt.Fprintf(w, " %d", st.Task+1)
		}
		fmt.Fprintln(w)
		for m, act := range per {
			fmt.Fprintf(w, "task %s active (1-based within task):", r.Tasks[m])
			for _, i := range act {
				fmt.Fprintf(w, " %d", i+1)
			}
			fmt.Fprintln(w)
		}
	}
	write("fixed kernel "+SineKernel+
		", Gaussian noise σ² = 1e-6, bias = mean of each task's targets",
		r.Steps, r.PerTask)
	fmt.Fprint(w, "entropy reductions (bits):")
	for _, st := range r.Steps {
		fmt.Fprintf(w, " %.5f", st.Delta)
	}
	fmt.Fprintln(w)
	if r.Learnt != nil {
		write("after shared-kernel learning (fixed-site objective, every iteration "+
			"accepted): "+r.Kernel, r.Learnt, r.LearntPerTask)
	}
}
