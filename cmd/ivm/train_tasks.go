package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/multitask"
)

// taskTrainOptions are the settings of `ivm train -tasks`: the train command's flags that
// apply to a multi-task model.
type taskTrainOptions struct {
	// Noise is -noise (auto, probit, gaussian, ordinal or ncnm); every task gets its own
	// instance of that model.
	Noise string
	// ActiveSize is -d, the active points over all tasks.
	ActiveSize int
	// FixedKernel is -iters 0. Iters is -iters otherwise (0: the learner's default) and
	// KernelIters -kiters (0: the learner's default; -1: none, -kiters 0); NoiseIters is
	// -niters, the noise step with the noise parameters tied across tasks
	// (multitask.LearnOptions.NoiseIters).
	FixedKernel                    bool
	Iters, KernelIters, NoiseIters int
	// Objective is -objective: EPEvidence or FixedSites, or ObjectiveAuto, the multi-task
	// learner's default, EPEvidence (an explicit -objective full is refused with -tasks).
	Objective multitask.Objective
	// Kernel is -kernel ("" for ivm.DefaultKernel of the input dimension).
	Kernel string
	// Transform is -transform (TransformAuto: the kernel spec's); Criterion -criterion.
	Transform multitask.Transform
	Criterion multitask.Criterion
	// Scale is -scale: std or minmax scale the inputs (the scaling is stored in the model
	// and applied to test inputs); auto and none leave them as they are, since the
	// multi-task protocols state kernel parameters in the data's own units.
	Scale string
	// Optimizer is -optimizer.
	Optimizer multitask.Optimizer
	// MaxMem is -max-mem, checked against what training will allocate.
	MaxMem memLimit
	// LastIterate is -last-iterate; Workers -workers; Quiet -quiet.
	LastIterate bool
	Workers     int
	Quiet       bool
}

// trainTasks trains a multi-task IVM (multitask.Fit) on data, whose Task field holds
// every row's task label, and writes an ivm-mtmodel/1 file to run's model file. Its
// "active" list gives every inclusion in order as {"task": label, "row": 0-based row of
// the training file}.
func trainTasks(data *dataset.Data, run *trainingRun, o taskTrainOptions, stderr io.Writer) error {
	if data == nil || data.Task == nil {
		return errors.New("multi-task training needs a task label on every row " +
			"(-task-col for CSV, task:NAME tokens for libsvm)")
	}
	n, dim := data.X.Dims()
	cfg, err := o.config()
	if err != nil {
		return err
	}
	y := data.Y
	if cfg.Noise == multitask.NoiseNCNM {
		y = unlabelledZeros(y) // libsvm's label 0, as for a single task
	}
	d := cfg.ActiveSize
	if d == 0 {
		d = multitask.DefaultActiveSize(n)
	}
	if d > n {
		fmt.Fprintf(stderr, "ivm train: warning: -d %d exceeds the %d training points; "+
			"using d = %d\n", d, n, n)
		d = n
	}
	// The inputs, a scaled copy and the learning objective's M and two d×N companions.
	need := 3*8*float64(n)*float64(dim) + 3*8*float64(n)*float64(d)
	if err := o.MaxMem.check(need, fmt.Sprintf("training on %d rows of %d inputs", n,
		dim)); err != nil {
		return err
	}
	if !o.Quiet {
		cfg.Progress = func(p multitask.Progress) { printTaskProgress(stderr, p) }
	}
	model, err := multitask.Fit(data.X, y, data.Task, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", run.trainPath, err)
	}
	if err := run.save(model, &model.Training, n); err != nil {
		return err
	}
	if !o.Quiet {
		scaled := ""
		if model.Scaler != nil {
			scaled = fmt.Sprintf(" (inputs scaled: %v)", model.Scaler.Kind)
		}
		fmt.Fprintf(run.summary,
			"%s noise, kernel %s%s: %d active points of %d in %d tasks; model written to %s\n",
			model.Tasks[0].Noise.Name(), model.Kernel, scaled, model.Size(), n, len(model.Tasks),
			run.out.path)
	}
	return nil
}

// config translates the train command's flags into the multi-task learner's settings.
func (o taskTrainOptions) config() (multitask.Config, error) {
	cfg := multitask.Config{ActiveSize: o.ActiveSize, Kernel: o.Kernel, FixedKernel: o.FixedKernel,
		Iters: o.Iters, KernelIters: o.KernelIters, NoiseIters: o.NoiseIters,
		LastIterate: o.LastIterate, Workers: o.Workers, Objective: o.Objective,
		Transform: o.Transform, Criterion: o.Criterion, Optimizer: o.Optimizer}
	var err error
	if cfg.Noise, err = multitask.ParseNoise(o.Noise); err != nil {
		return cfg, err
	}
	if cfg.Scaling, err = dataset.ParseScaling(o.Scale); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// printTaskProgress reports an outer iteration of learning, or the final selection.
func printTaskProgress(w io.Writer, p multitask.Progress) {
	if p.Final {
		fmt.Fprintf(w, "ivm train: final selection: held-out log likelihood %.4f per point; "+
			"kernel %s\n", p.HeldOut, p.Kernel)
		return
	}
	fmt.Fprintf(w,
		"ivm train: iteration %d/%d: held-out log likelihood %.4f per point; "+
			"objective %.6g -> %.6g in %d steps; active points per task %v\n",
		p.Iter+1, p.Iters, p.HeldOut, p.Before, p.After, p.Steps, p.ActivePerTask)
}
