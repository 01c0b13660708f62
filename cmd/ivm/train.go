package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/kern"
	"gonum.org/v1/gonum/mat"
)

// dataFlags are the flags every command that reads data shares.
type dataFlags struct {
	format, labelCol, taskCol string
	maxMem                    *memLimit
}

func (f *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.format, "format", "auto", "data format: auto, csv or libsvm")
	fs.StringVar(&f.labelCol, "label-col", "last",
		"CSV target column: first, last or a 1-based number")
	fs.StringVar(&f.taskCol, "task-col", "none",
		"CSV task column for multi-task data: none, first, last or a 1-based number\n"+
			"(libsvm rows name their task with a task:NAME token)")
	f.maxMem = registerMaxMem(fs)
}

func (f *dataFlags) options() (dataset.ReadOptions, error) {
	var opt dataset.ReadOptions
	var err error
	if opt.Format, err = dataset.ParseFormat(f.format); err != nil {
		return opt, err
	}
	if opt.LabelCol, err = dataset.ParseLabelCol(f.labelCol); err != nil {
		return opt, err
	}
	if opt.TaskCol, err = dataset.ParseTaskCol(f.taskCol); err != nil {
		return opt, err
	}
	f.maxMem.limitOptions(&opt)
	return opt, nil
}

// cmdTrain is ivm train: the single-task and the multi-task IVM here, the other families by
// their own flags (familyOfMethod). It parses the flags into an ivm.Config, opens the model
// file, reads TRAIN and hands both to trainIVM or trainTasks.
func cmdTrain(args []string, stdout, stderr io.Writer) error {
	method := methodArg(args)
	if f := familyOfMethod(method); f != nil {
		return f.Train(method, args, stdout, stderr)
	}
	f := newIVMFlags(stderr)
	if err := f.parse(args); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	opt, err := f.prepare()
	if err != nil {
		return err
	}
	trainPath, modelPath := f.fs.Arg(0), f.fs.Arg(1)
	run, err := startTraining([]string{trainPath}, modelPath, args, stdout, stderr)
	if err != nil {
		return err
	}
	defer run.discard()
	ignored := "they are ignored without -tasks"
	if f.tasks {
		ignored = ""
	}
	data, err := readTraining(trainPath, opt, ignored, stderr)
	if err != nil {
		return err
	}
	if f.tasks {
		return trainTasks(data, run, f.taskOptions(cfg), stderr)
	}
	return trainIVM(data, run, cfg, f, stderr)
}

// trainIVM trains the single-task IVM on data with cfg and writes the model to run's file:
// the targets settle what -noise probit means, the library's plan the active set size and
// the memory, and Fit the rest.
func trainIVM(data *dataset.Data, run *trainingRun, cfg ivm.Config, f *ivmFlags,
	stderr io.Writer) error {
	n, dim := data.X.Dims()
	y, err := trainingTargets(data.Y, &cfg, run.trainPath)
	if err != nil {
		return err
	}
	if cfg.Kernel != "" {
		if _, err := kern.Parse(cfg.Kernel, dim); err != nil {
			return err
		}
	}
	f.data.maxMem.softLimit()
	plan, err := planTraining(&cfg, n, dim, y, run.trainPath, *f.data.maxMem, stderr)
	if err != nil {
		return err
	}
	x := data.X
	// Fit holds the inputs only until it has scaled them: on large files that frees their memory
	data = nil
	p, err := fitIVM(x, y, cfg, plan, f.quiet, run.trainPath, stderr)
	if err != nil {
		return err
	}
	return writeIVM(run, p, n, dim, f.quiet, stderr)
}

// trainingTargets returns the targets the IVM trains on: with -noise ncnm the libsvm label
// 0 read as unlabelled, and with -noise probit on more than two labels cfg's task made
// one-vs-rest probit where the library reads the labels as classes (ivm.ProbitTask); other
// targets are refused: probit does not regress them.
func trainingTargets(y []float64, cfg *ivm.Config, path string) ([]float64, error) {
	switch cfg.Task {
	case ivm.SemiSupervised:
		return unlabelledZeros(y), nil
	case ivm.Binary:
		task, labels, ok := ivm.ProbitTask(y)
		if !ok {
			return nil, fmt.Errorf(
				"%s: probit needs two distinct labels (or 3 to 50 integer class labels); "+
					"found %d distinct targets", path, labels)
		}
		cfg.Task = task
	}
	return y, nil
}

// planTraining asks the library what Fit will do with cfg on n rows of dim inputs and
// targets y, warns and reduces cfg's -d where Fit would reduce it to the rows, and checks
// the memory the plan needs against -max-mem.
func planTraining(cfg *ivm.Config, n, dim int, y []float64, path string, maxMem memLimit,
	stderr io.Writer) (ivm.Plan, error) {
	plan, err := cfg.Plan(n, dim, y)
	if err != nil {
		return plan, fmt.Errorf("%s: %w%s", path, err, hugeTargetsHint(y))
	}
	if cfg.ActiveSize > plan.ActiveSize {
		fmt.Fprintf(stderr, "ivm train: warning: -d %d exceeds the %d training points; "+
			"using d = %d\n", cfg.ActiveSize, n, plan.ActiveSize)
		cfg.ActiveSize = plan.ActiveSize
	}
	what := fmt.Sprintf("training on %d rows of %d inputs", n, dim)
	return plan, maxMem.check(plan.Bytes, what)
}

// fitIVM runs ivm.Fit with progress on stderr unless quiet, and explains a failure on
// targets too small or too large to learn from.
func fitIVM(x *mat.Dense, y []float64, cfg ivm.Config, plan ivm.Plan, quiet bool, path string,
	stderr io.Writer) (*ivm.Predictor, error) {
	var prog *progress
	if !quiet {
		n, dim := x.Dims()
		noteSlowStart(stderr, n, dim, plan.Learning == ivm.Search)
		prog = newProgress(stderr, "ivm train")
		cfg.Progress = prog.report
	}
	p, err := ivm.Fit(x, y, cfg)
	prog.finish()
	if err != nil {
		if big := largestTarget(y); big > 0 && big < tinyTargets {
			return nil, tinyTargetsError(path, big)
		}
		return nil, fmt.Errorf("%s: %w%s", path, err, hugeTargetsHint(y))
	}
	return p, nil
}

// writeIVM prints the warnings of the fit, writes the model to run's file and, unless quiet,
// the summary.
func writeIVM(run *trainingRun, p *ivm.Predictor, n, dim int, quiet bool, stderr io.Writer) error {
	warnTrained(stderr, p)
	if err := run.save(p, &p.Training, n); err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(run.summary, "%s: %s\n", run.out.path, summary(p))
		run.printTrained(p.Training, dim)
	}
	return nil
}

// slowStartWork is the number of multiply-adds (rows² × inputs) past which the search's
// inner products, computed before its first progress report, take long enough to say so.
const slowStartWork = 5e9

// noteSlowStart says on stderr, before a long silence, that the first step works over
// every input of every pair of rows: a libsvm file with a few huge feature indices is held
// as a dense matrix that wide.
func noteSlowStart(stderr io.Writer, n, dim int, search bool) {
	if search && float64(n)*float64(n)*float64(dim) > slowStartWork {
		fmt.Fprintf(stderr, "ivm train: %d rows of %d inputs (held dense: %s): the kernel search "+
			"first computes the rows' inner products over every input, which takes a while\n",
			n, dim, formatBytes(8*int64(n)*int64(dim)))
	}
}

// warnTrained prints the warnings of a fitted predictor: Fit's own, and each model's
// jitter and ill-conditioning.
func warnTrained(stderr io.Writer, p *ivm.Predictor) {
	for _, w := range p.Warnings {
		fmt.Fprintf(stderr, "ivm train: warning: %s\n", w)
	}
	for _, sm := range p.Submodels() { // a part's own models only
		name := "the model"
		if sm.Name != "" {
			name = sm.Name + "'s model"
		}
		if m := sm.Model; m.Jitter != 0 {
			fmt.Fprintf(stderr,
				"ivm train: warning: jitter %g added to %s's active-set matrix to factorise it\n",
				m.Jitter, name)
		}
		if m := sm.Model; m.Condition != 0 {
			fmt.Fprintf(stderr,
				"ivm train: warning: %s's active-set matrix has condition number %.3g; "+
					"predictions may be inaccurate\n", name, m.Condition)
		}
	}
}

// taskFlagsRefused are the train flags the multi-task learner has no counterpart for, and
// why: given with -tasks they are refused rather than silently ignored.
var taskFlagsRefused = map[string]string{
	"bias":    "the starting bias of a single probit or ncnm model",
	"gamma":   "the null category model's split γ",
	"seed":    "it seeds the held-out subsets of the single-task learner",
	"heldout": "the multi-task learner's safeguard uses every inactive point",
	"refine":  "swap refinement is for single-task models",
	// The multi-task learner's problems are its tasks.
	"multiclass": "a multi-task model has one problem per task",
}

// refuseTaskFlags refuses a flag of taskFlagsRefused set on the command line with -tasks.
func refuseTaskFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if why, ok := taskFlagsRefused[f.Name]; ok && err == nil {
			err = fmt.Errorf("-%s is not available with -tasks (%s)", f.Name, why)
		}
		if f.Name == "objective" && f.Value.String() == "full" && err == nil {
			// Unset, the objective is the multi-task learner's own, ep.
			err = errors.New("-objective full is not available with -tasks " +
				"(the multi-task learner has ep and fixed)")
		}
	})
	return err
}

// exactEnum parses a flag's value s into an enum and accepts it only when s is the
// value's own name or one of also: the enums' parsers also take upper case and surrounding
// space, which the flags never did.
func exactEnum[T fmt.Stringer](s string, parse func(string) (T, error), also ...string) (T, bool) {
	v, err := parse(s)
	return v, err == nil && (v.String() == s || slices.Contains(also, s))
}

// taskFor maps the -noise flag to a task.
func taskFor(name string) (ivm.Task, error) {
	switch name {
	case "auto":
		return ivm.TaskAuto, nil
	case "probit":
		return ivm.Binary, nil
	case "gaussian":
		return ivm.Regression, nil
	case "ordinal":
		return ivm.Ordinal, nil
	case "ncnm":
		return ivm.SemiSupervised, nil
	}
	return ivm.TaskAuto, fmt.Errorf("-noise %q: want auto, probit, gaussian, ordinal or ncnm", name)
}

// unlabelledZeros returns y with the libsvm convention for unlabelled rows, label 0, read
// as NaN (CSV's ? and empty labels are NaN already).
func unlabelledZeros(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = v
		if v == 0 {
			out[i] = math.NaN()
		}
	}
	return out
}

// summary describes a predictor in one line.
func summary(p *ivm.Predictor) string {
	if p.Part.IsPart() {
		return partSummary(p)
	}
	if pairs := pairsOf(p); len(pairs) > 0 {
		blended := 0
		for _, pp := range pairs {
			if membersOf(pp) != nil {
				blended++
			}
		}
		sm := p.Submodels()[0]
		m, pp := sm.Model, sm.Pair
		s := fmt.Sprintf("%v (%d one-vs-one pairs, probabilities coupled), %s noise; "+
			"%s: kernel %s, %d active points",
			p.Task, len(pairs), m.Noise.Name(), sm.Name, m.Kernel, m.Size())
		if sc := calibrationOf(pp).scaler; sc != nil {
			s += fmt.Sprintf(", inputs scaled (%v)", sc.Kind)
		}
		if blended > 0 {
			s += fmt.Sprintf("; %d pairs blend the label regression with the probit model", blended)
		}
		return s
	}
	if members := membersOf(p); len(members) > 0 {
		var parts []string
		for _, sm := range p.Submodels() {
			parts = append(parts, fmt.Sprintf("%s: %s noise, kernel %s",
				sm.Name, sm.Model.Noise.Name(), sm.Model.Kernel))
		}
		first := p.Submodels()[0].Model
		s := fmt.Sprintf("%v, a blend of %d models (probabilities averaged; %s), "+
			"%d active points each", p.Task, len(members), strings.Join(parts, "; "), first.Size())
		if sc := calibrationOf(members[0]).scaler; sc != nil {
			s += fmt.Sprintf(", inputs scaled (%v)", sc.Kind)
		}
		return s
	}
	if k, ok := p.Kind.(*ivm.ProjectedKind); ok {
		pr := k.Projected
		m, _ := pr.Centres.Dims()
		what := fmt.Sprintf("the %d classes' codes", len(p.Classes))
		if p.Task == ivm.Regression {
			what = "every row"
		}
		kernel := pr.Kernel
		if a := pr.Additive; a != nil {
			kernel += fmt.Sprintf(" + an additive part of %d inputs (%d knots, variance %g)",
				len(a.Inputs), a.Knots(), a.Variance)
		}
		if pr.Linear != nil {
			kernel += ", probabilities tilted by a logistic regression of the inputs"
		}
		return fmt.Sprintf("%v (projected: %s regressed through %d shared centres), "+
			"kernel %s, λ %.3g, inputs scaled (%v)",
			p.Task, what, m, kernel, pr.Lambda, k.Scaler)
	}
	models, _ := modelsOf(p)
	m := models[0]
	s := fmt.Sprintf("%v, %s noise, kernel %s, %d active points", p.Task, m.Noise.Name(), m.Kernel,
		m.Size())
	if len(models) > 1 {
		s = fmt.Sprintf(
			"%v (%d one-vs-rest models), %s noise, %d active points each; class %g's kernel %s",
			p.Task, len(models), m.Noise.Name(), m.Size(), p.Classes[0], m.Kernel)
	}
	if sc := calibrationOf(p).scaler; sc != nil {
		s += fmt.Sprintf(", inputs scaled (%v)", sc.Kind)
	}
	return s
}

// hugeTargets is where targets start to overflow learning, which works with their squares.
const hugeTargets = 1e150

// tinyTargets is where targets are too small to learn from: the kernel's variance, fitted
// to their squares, underflows to 0.
const tinyTargets = 1e-150

// largestTarget returns the largest magnitude of the labelled targets.
func largestTarget(y []float64) float64 {
	big := 0.0
	for _, v := range y {
		if !math.IsNaN(v) {
			big = math.Max(big, math.Abs(v))
		}
	}
	return big
}

// tinyTargetsError explains a training that failed on targets that are all tiny.
func tinyTargetsError(path string, big float64) error {
	return fmt.Errorf("%s: the targets are at most %.3g in magnitude and their squares underflow: "+
		"rescale the target column (multiply it by a power of ten)", path, big)
}

// checkTargetScale refuses, before a fit that would return infinite variances, targets so
// large that their squares overflow.
func checkTargetScale(path string, y []float64) error {
	if big := largestTarget(y); big >= hugeTargets {
		return fmt.Errorf(
			"%s: the targets reach %.3g and their squares overflow: rescale the target column "+
				"(divide it by a power of ten)", path, big)
	}
	return nil
}

// hugeTargetsHint is what to add to a training failure when the targets are so large that
// their squares overflow: the likely cause, and what to do.
func hugeTargetsHint(y []float64) string {
	big := 0.0
	for _, v := range y {
		if !math.IsNaN(v) {
			big = math.Max(big, math.Abs(v))
		}
	}
	if big < hugeTargets {
		return ""
	}
	return fmt.Sprintf(" (the targets reach %.3g and their squares overflow: "+
		"rescale the target column, or keep the kernel fixed with -iters 0)", big)
}

// fileSHA256 returns the hex SHA-256 of a file (model provenance).
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
