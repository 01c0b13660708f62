package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"time"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/param"
)

// taskTrainOptions are the settings of `ivm train -tasks`: the train command's flags that
// apply to a multi-task model.
type taskTrainOptions struct {
	// Noise is -noise (auto, probit, gaussian, ordinal or ncnm); every task gets its own
	// instance of that model.
	Noise string
	// ActiveSize is -d, the active points over all tasks.
	ActiveSize int
	// Iters and KernelIters are -iters (0: fixed kernel) and -kiters; NoiseIters is -niters,
	// the noise step with the noise parameters tied across tasks
	// (multitask.LearnOptions.NoiseIters).
	Iters, KernelIters, NoiseIters int
	// Objective is -objective: "ep" (also "full", which the multi-task learner does not
	// have) or "fixed".
	Objective string
	// Kernel is -kernel ("" for ivm.DefaultKernel of the input dimension);
	// Transform is -transform (softplus or exp); Criterion -criterion (auto, entropy,
	// expected).
	Kernel, Transform, Criterion string
	// Scale is -scale: std or minmax scale the inputs (the scaling is stored in the model
	// and applied to test inputs); auto and none leave them as they are, since the
	// multi-task protocols state kernel parameters in the data's own units.
	Scale string
	// Optimizer is -optimizer: scg or lbfgs.
	Optimizer string
	// MaxMem is -max-mem, checked against what training will allocate.
	MaxMem memLimit
	// LastIterate is -last-iterate; Workers -workers; Quiet -quiet.
	LastIterate bool
	Workers     int
	Quiet       bool
	// TrainPath, Args and Start are the provenance written into the model file.
	TrainPath string
	Args      []string
	Start     time.Time
}

// trainTasks trains a multi-task IVM (package multitask) on data, whose Task field holds
// every row's task label, and writes an ivm-mtmodel/1 file to out. Its "active" list
// gives every inclusion in order as {"task": label, "row": 0-based row of the training
// file}.
func trainTasks(data *dataset.Data, out *outputFile, o taskTrainOptions, stdout, stderr io.Writer) error {
	if data == nil || data.Task == nil {
		return errors.New("multi-task training needs a task label on every row (-task-col for CSV, task:NAME tokens for libsvm)")
	}
	n, dim := data.X.Dims()
	nm0, labels, y, err := mtChooseNoise(o.Noise, data.Y)
	if err != nil {
		return err
	}
	d := o.ActiveSize
	if d == 0 {
		// The multi-task IVM learns by Algorithm 2 on one active set across tasks, whose
		// every outer iteration costs O(d³) per objective evaluation: the papers' 200 at most.
		d = min(n, 200)
	}
	if d > n {
		fmt.Fprintf(stderr, "ivm train: warning: -d %d exceeds the %d training points; using d = %d\n", d, n, n)
		d = n
	}
	obj := multitask.EPEvidence
	switch o.Objective {
	case "", "full", "ep":
	case "fixed":
		obj = multitask.FixedSites
	default:
		return fmt.Errorf("-objective %q: want ep or fixed for a multi-task model", o.Objective)
	}
	critName := o.Criterion
	if critName == "" || critName == "auto" {
		critName = "entropy"
		if nm0.Name() == "probit" {
			critName = "expected"
		}
	}
	crit, err := ivm.ParseCriterion(critName)
	if err != nil {
		return err
	}
	if err := o.MaxMem.check(trainingBytes(n, dim, d, 1, 1, false), fmt.Sprintf("training on %d rows of %d inputs", n, dim)); err != nil {
		return err
	}
	spec := o.Kernel
	if spec == "" {
		spec = ivm.DefaultKernel(dim)
	}
	k, err := kern.Parse(spec, dim)
	if err != nil {
		return err
	}
	if o.Transform != "" {
		pos, err := param.ByName(o.Transform)
		if err != nil || (pos.Name() != "softplus" && pos.Name() != "exp") {
			return fmt.Errorf("-transform %q: want softplus or exp", o.Transform)
		}
		k.SetPositiveTransform(pos)
	}
	scaling, err := ivm.ParseScaling(o.Scale)
	if err != nil {
		return err
	}
	if scaling == ivm.ScaleAuto {
		scaling = ivm.ScaleNone
	}
	scaler, err := ivm.FitScaler(data.X, scaling)
	if err != nil {
		return err
	}
	x, err := scaler.Apply(data.X)
	if err != nil {
		return err
	}
	tasks, err := multitask.Split(x, y, data.Task, func() (noise.Model, error) { return noise.ByName(nm0.Name()) })
	if err != nil {
		return err
	}
	var model *multitask.Model
	var trace []multitask.IterTrace
	if o.Iters == 0 {
		sel, err := multitask.NewSelector(tasks, k, ivm.Options{Workers: o.Workers, Criterion: crit})
		if err != nil {
			return err
		}
		if err := sel.Select(d); err != nil {
			return err
		}
		if model, err = sel.Model(); err != nil {
			return err
		}
	} else {
		lo := multitask.LearnOptions{ActiveSize: d, Iters: o.Iters, KernelIters: o.KernelIters, NoiseIters: o.NoiseIters, Objective: obj,
			LastIterate: o.LastIterate, Workers: o.Workers, Criterion: crit, Optimizer: o.Optimizer}
		if o.KernelIters == 0 {
			lo.KernelIters = -1
		}
		if !o.Quiet {
			lo.Progress = func(tr multitask.IterTrace) {
				if tr.Final {
					fmt.Fprintf(stderr, "ivm train: final selection: held-out log likelihood %.4f per point; kernel %s\n", tr.HeldOut, k)
					return
				}
				fmt.Fprintf(stderr, "ivm train: iteration %d/%d: held-out log likelihood %.4f per point; objective %.6g -> %.6g in %d steps; active points per task %v\n",
					tr.Iter+1, o.Iters, tr.HeldOut, tr.Before, tr.After, tr.Steps, tr.ActivePerTask)
			}
		}
		var res *multitask.LearnResult
		if model, res, err = multitask.Learn(tasks, k, lo); err != nil {
			return err
		}
		trace = res.Trace
	}
	model.Scaler = scaler
	meta := &multitask.ModelMeta{Labels: labels, Trace: multitask.Records(trace)}
	meta.Training = multitask.Provenance{Rows: n, Args: o.Args}
	if o.TrainPath != "" {
		hash, err := fileSHA256(o.TrainPath)
		if err != nil {
			return err
		}
		meta.Training.File, meta.Training.SHA256 = filepath.Base(o.TrainPath), hash
	}
	if !o.Start.IsZero() {
		meta.Training.Time = o.Start.UTC().Format(time.RFC3339)
		meta.Training.Seconds = time.Since(o.Start).Seconds()
	}
	if err := multitask.WriteModel(out, model, meta); err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	if !o.Quiet {
		scaled := ""
		if scaler != nil {
			scaled = fmt.Sprintf(" (inputs scaled: %v)", scaler.Kind)
		}
		fmt.Fprintf(stdout, "%s noise, kernel %s%s: %d active points of %d in %d tasks; model written to %s\n",
			nm0.Name(), k, scaled, model.Size(), n, len(tasks), out.path)
	}
	return nil
}

// mtChooseNoise picks the noise model for targets y by name (auto: probit for two distinct
// labels, gaussian for non-integer targets) and returns the targets in the model's coding:
// binary labels as −1/+1 with the original labels of −1 and +1 in labels.
func mtChooseNoise(name string, y []float64) (nm noise.Model, labels, coded []float64, err error) {
	distinct := map[float64]bool{}
	integer := true
	for i, v := range y {
		if math.IsNaN(v) {
			if name != "ncnm" {
				return nil, nil, nil, fmt.Errorf("row %d is unlabelled; only -noise ncnm uses unlabelled rows", i+1)
			}
			continue
		}
		distinct[v] = true
		integer = integer && v == math.Trunc(v)
	}
	if name == "" || name == "auto" {
		switch {
		case len(distinct) == 2:
			name = "probit"
		case !integer:
			name = "gaussian"
		default:
			return nil, nil, nil, fmt.Errorf("%d distinct integer targets: say -noise ordinal or -noise gaussian", len(distinct))
		}
	}
	if nm, err = noise.ByName(name); err != nil {
		return nil, nil, nil, err
	}
	coded = y
	if name == "probit" {
		ls := make([]float64, 0, 2)
		for v := range distinct {
			ls = append(ls, v)
		}
		sort.Float64s(ls)
		if len(ls) != 2 {
			return nil, nil, nil, fmt.Errorf("probit needs exactly two distinct labels, found %d", len(ls))
		}
		if ls[0] != -1 || ls[1] != 1 {
			labels = ls
			coded = make([]float64, len(y))
			for i, v := range y {
				coded[i] = -1
				if v == ls[1] {
					coded[i] = 1
				}
			}
		}
	}
	if name == "ncnm" {
		coded = make([]float64, len(y))
		for i, v := range y {
			if !math.IsNaN(v) {
				coded[i] = v
			}
		}
	}
	return nm, labels, coded, nil
}
