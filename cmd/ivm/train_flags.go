package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
)

// ivmFlags are the flags of the IVM's `ivm train` (-method ivm and mtivm). A flag that
// sets a Config field defaults to that field's zero value, for the library to resolve: the
// enum flags to auto (or empty), the counts to 0 or, where 0 means something of its own
// (-iters and -kiters), to being left unset.
type ivmFlags struct {
	fs   *flag.FlagSet
	data dataFlags
	// The model: -method, -noise, -scale, -multiclass, -kernel, -part, -d and -tasks.
	method, noise, scale, multiclass, kernel, part string
	d                                              int
	tasks                                          bool
	// Learning: -learn, -objective, -transform, -criterion, -optimizer, the iteration counts,
	// -heldout, -seed, -last-iterate and -refine.
	learn, objective, transform, criterion, optimizer string
	iters, kiters, niters, heldOut                    int
	seed                                              uint64
	lastIterate, refine                               bool
	// The noise model's start: -bias and -gamma.
	bias, gamma string
	// The run: -workers and -quiet.
	workers int
	quiet   bool
}

// newIVMFlags defines the flags of `ivm train`; its usage goes to stderr.
func newIVMFlags(stderr io.Writer) *ivmFlags {
	f := &ivmFlags{fs: newFlags("train", "ivm train [flags] TRAIN MODEL", stderr)}
	f.data.register(f.fs)
	f.registerModel()
	f.registerLearning()
	f.registerNoiseStart()
	return f
}

// registerModel defines the flags of the model: its family, task, size, kernel, input
// scaling, multi-class decomposition and part, and the run's workers and output.
func (f *ivmFlags) registerModel() {
	fs := f.fs
	fs.StringVar(&f.method, "method", "ivm", "model family: "+methodNames()+
		"\n(ivm: the IVM; mtivm: the multi-task IVM, as -tasks; "+
		"the others: \"ivm train -method NAME -h\" for their flags)")
	fs.StringVar(&f.noise, "noise", "auto",
		"noise model: auto, probit, gaussian, ordinal or ncnm (auto: probit for two labels\n"+
			"(up to 700 rows, or the labels ±1 regressed with Gaussian noise and a logistic "+
			"map where that predicts\nleft-out rows better, or the mean of both where they "+
			"predict them about as well), probit per class\nor pair of classes for 3 to 50 "+
			"integer labels, gaussian otherwise;\nwith ncnm, label 0 (libsvm) or ? (CSV) marks "+
			"an unlabelled row)")
	fs.IntVar(&f.d, "d", 0,
		"active set size (0: N when that is cheap, else min(N, max(200, 8·sqrt(N)), 1250); "+
			"see ivm.DefaultActiveSize)")
	fs.StringVar(&f.scale, "scale", "auto",
		"input scaling, stored in the model: std (zero mean, unit variance), minmax ([-1, 1]), "+
			"none;\nauto: chosen by the search between std and minmax (and relevance, learnt, for "+
			"regression;\nabove 5 000 rows also for up to 3 classes, and the logarithms of "+
			"long-tailed inputs),\nstd with -learn alg2, none with -tasks")
	fs.StringVar(&f.kernel, "kernel", "",
		"kernel: components joined by +, each with optional natural-scale parameters,\ne.g. "+
			"rbf(gamma=1,variance=1)+bias(variance=0.135)+white(variance=0.135);\ndefault "+
			ivm.DefaultKernel(1)+" for up to 32 inputs, "+ivm.DefaultKernel(33)+" above")
	fs.StringVar(&f.multiclass, "multiclass", "auto",
		"multi-class decomposition: ovr (one model per class against the rest), "+
			"ovo (one binary model per pair\nof classes, its own kernel searched, "+
			"the pairs' probabilities coupled as libsvm's -b 1), projected (every\n"+
			"class's code regressed through -d shared centres, default 5 000: "+
			"one fit for all classes), or auto: ovo with\nthe default search on up to 5 000 rows "+
			"(ovr where two classes have under 6 rows), projected above\n"+
			"(ovr with -part; ivm.AutoDecomposition); above 5 000 rows binary tasks and\n"+
			"above 2 500 regression tasks are projected models too (not with -noise probit)")
	fs.StringVar(&f.part, "part", "",
		"train only slice i/K (0 ≤ i < K) of a multi-class task's binary problems (one-vs-rest "+
			"classes "+
			"or\none-vs-one pairs) and write a part file for ivm merge")
	fs.BoolVar(&f.tasks, "tasks", false,
		"multi-task IVM: one shared kernel, selection across the tasks of -task-col or task:NAME "+
			"tokens\n(the model file is ivm-mtmodel/1)")
	fs.IntVar(&f.workers, "workers", 0,
		"goroutines (0: all cores); multi-class problems train side by side")
	fs.BoolVar(&f.quiet, "quiet", false, "print nothing on success")
}

// registerLearning defines the flags of kernel learning: the search or Algorithm 2, its
// iterations, objective, transform, optimiser and safeguard, and the selection score.
func (f *ivmFlags) registerLearning() {
	fs := f.fs
	fs.StringVar(&f.learn, "learn", "auto",
		"how the kernel is chosen: search (rbf+bias+white, its width, variance, the input "+
			"scaling and\nthe selection criterion by held-out log loss; one kernel for all "+
			"classes), alg2 (the papers' Algorithm 2 per class),\nor auto: search for binary, "+
			"multi-class and regression tasks without -kernel or -iters, alg2 otherwise")
	fs.IntVar(&f.iters, "iters", 0,
		"outer iterations of parameter learning (Algorithm 2); 0 keeps the kernel fixed;\n"+
			"unset or -1: the task's default, 8 (the papers'), 15 for -noise ncnm "+
			"(the extensions paper's)")
	fs.IntVar(&f.kiters, "kiters", 0,
		"optimiser iterations on the kernel per outer iteration "+
			"(unset: the library's default, 100; 0: none)")
	fs.IntVar(&f.niters, "niters", 0,
		"optimiser iterations on the noise parameters per outer iteration (0: none)")
	fs.StringVar(&f.objective, "objective", "",
		"kernel objective: full (EP evidence of the active labels plus the predictive "+
			"likelihood of the others), ep (the first term alone) or fixed (the reference's "+
			"eq. 32); empty: full, ep with -tasks")
	fs.StringVar(&f.transform, "transform", "",
		"transform of positive kernel parameters: softplus (the papers) or exp (the reference "+
			"toolbox); unset: the kernel spec's, softplus unless it says transform=exp")
	fs.BoolVar(&f.lastIterate, "last-iterate", false,
		"accept every outer iteration (the reference's behaviour) instead of guarding by held-out "+
			"likelihood")
	fs.StringVar(&f.criterion, "criterion", "auto",
		"selection score: expected (entropy reduction averaged over the labels' predictive "+
			"probabilities; robust to label noise), entropy (the papers' and the reference's), "+
			"or auto: expected for classification, entropy otherwise")
	fs.BoolVar(&f.refine, "refine", false, "refine the final active set by swaps and EP sweeps")
	fs.IntVar(&f.heldOut, "heldout", 0,
		"inactive points in the learning objective's predictive term "+
			"(0: the library's default, 500)")
	fs.StringVar(&f.optimizer, "optimizer", "scg",
		"optimiser for learning: scg (scaled conjugate gradients, the papers') or lbfgs")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the held-out subsets drawn during learning")
}

// registerNoiseStart defines the flags of the probit and null category models' starting
// parameters.
func (f *ivmFlags) registerNoiseStart() {
	f.fs.StringVar(&f.bias, "bias", "fraction",
		"start of the probit or ncnm bias: fraction "+
			"(Φ⁻¹ of the labelled positive fraction, the reference toolbox's)\n"+
			"or zero (the papers' likelihoods have none); it moves only with -niters")
	f.fs.StringVar(&f.gamma, "gamma", "shared",
		"ncnm: the probabilities that a point of class -1 or +1 is unlabelled, "+
			"shared (one γ, the papers')\nor split (γ- and γ+); both start at the unlabelled "+
			"fraction and move only with -niters")
}

// parse reads the command line: the flags, then TRAIN and MODEL. -method mtivm is -tasks.
func (f *ivmFlags) parse(args []string) error {
	if err := f.fs.Parse(args); err != nil {
		return err
	}
	if f.fs.NArg() != 2 {
		f.fs.Usage()
		return errUsage
	}
	switch f.method {
	case "ivm":
	case "mtivm":
		f.tasks = true
	default:
		return fmt.Errorf("-method %q: want one of %s", f.method, methodNames())
	}
	return nil
}

// given reports whether the flag name was set on the command line.
func (f *ivmFlags) given(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// config checks the flags and translates them into the IVM's Config, reporting the first
// bad flag in the order the command always checked them. Its Task is -noise's alone: the
// targets may turn probit into one-vs-rest probit (trainingTargets).
func (f *ivmFlags) config() (ivm.Config, error) {
	if err := f.checkCounts(); err != nil {
		return ivm.Config{}, err
	}
	cfg := ivm.Config{Kernel: f.kernel, ActiveSize: f.d, Workers: f.workers,
		FixedKernel: f.given("iters") && f.iters == 0,
		Learn: engine.LearnOptions{Iters: max(f.iters, 0), KernelIters: f.kiters,
			NoiseIters: f.niters, LastIterate: f.lastIterate, Refine: f.refine,
			HeldOut: f.heldOut, Seed: f.seed}}
	if f.given("kiters") && f.kiters == 0 {
		cfg.Learn.KernelIters = -1 // no kernel steps
	}
	cfg.SearchTrace = searchTrace()
	if err := f.learnSettings(&cfg); err != nil {
		return ivm.Config{}, err
	}
	if err := f.modelSettings(&cfg); err != nil {
		return ivm.Config{}, err
	}
	return cfg, nil
}

// checkCounts refuses negative or huge iteration counts and a negative -d.
func (f *ivmFlags) checkCounts() error {
	if f.iters < -1 || f.kiters < 0 || f.niters < 0 {
		return errors.New(
			"-iters must be -1 (the task's default) or more, -kiters and -niters not negative")
	}
	if err := errors.Join(checkIters("-iters", f.iters), checkIters("-kiters", f.kiters),
		checkIters("-niters", f.niters)); err != nil {
		return err
	}
	if f.d < 0 {
		return fmt.Errorf("-d %d: the active set needs at least one point", f.d)
	}
	return nil
}

// learnSettings parses -learn, -objective, -optimizer, -criterion and -transform into cfg.
// The enum flags take exactly the spellings they document and give the errors they always
// gave; the enums' own parsers are more lenient (upper case, "auto").
func (f *ivmFlags) learnSettings(cfg *ivm.Config) error {
	var err error
	if cfg.Learning, err = ivm.ParseLearning(f.learn); err != nil {
		return fmt.Errorf("-learn %q: want auto, search or alg2", f.learn)
	}
	var ok bool
	cfg.Learn.Objective, ok = exactEnum(f.objective, engine.ParseObjective, "")
	if !ok || cfg.Learn.Objective == engine.ObjectiveAuto && f.objective != "" { // "": the default
		return fmt.Errorf("ivm: unknown objective %q (want full, ep or fixed)", f.objective)
	}
	if cfg.Learn.Optimizer, ok = exactEnum(f.optimizer, engine.ParseOptimizer); !ok {
		return fmt.Errorf("-optimizer %q: want scg or lbfgs", f.optimizer)
	}
	if cfg.Criterion, ok = exactEnum(f.criterion, engine.ParseCriterionChoice, ""); !ok {
		return fmt.Errorf("ivm: unknown selection criterion %q (want entropy or expected)",
			f.criterion)
	}
	if f.given("transform") {
		// Unset, the transform is the kernel spec's (TransformAuto); given, it is one of the two.
		cfg.Transform, ok = exactEnum(f.transform, engine.ParseTransform)
		if !ok || cfg.Transform == engine.TransformAuto {
			return fmt.Errorf("-transform %q: want softplus or exp", f.transform)
		}
	}
	return nil
}

// modelSettings parses -bias, -gamma, -part, -scale, -multiclass and -noise into cfg.
func (f *ivmFlags) modelSettings(cfg *ivm.Config) error {
	if f.bias != "fraction" && f.bias != "zero" {
		return fmt.Errorf("-bias %q: want fraction or zero", f.bias)
	}
	if f.gamma != "shared" && f.gamma != "split" {
		return fmt.Errorf("-gamma %q: want shared or split", f.gamma)
	}
	cfg.ZeroBias, cfg.SplitGamma = f.bias == "zero", f.gamma == "split"
	var err error
	if cfg.Part, err = parsePartFlag(f.part, f.tasks); err != nil {
		return err
	}
	if cfg.Scale, err = dataset.ParseScaling(f.scale); err != nil {
		return err
	}
	var ok bool
	if cfg.Decomposition, ok = exactEnum(f.multiclass, ivm.ParseDecomposition); !ok {
		return fmt.Errorf("-multiclass %q: want auto, ovr, ovo or projected", f.multiclass)
	}
	cfg.Task, err = taskFor(f.noise)
	return err
}

// prepare checks the flags of the run (the data flags, -workers, the flags -tasks refuses)
// and bounds the cores to -workers; it returns the options to read TRAIN with.
func (f *ivmFlags) prepare() (dataset.ReadOptions, error) {
	opt, err := f.data.options()
	if err != nil {
		return opt, err
	}
	if err := checkWorkers(f.workers); err != nil {
		return opt, err
	}
	if f.workers > 0 {
		// The numerical kernels (rowdot's products) spread over GOMAXPROCS: -workers bounds
		// the cores the whole training uses, not only the goroutines it starts itself.
		runtime.GOMAXPROCS(f.workers)
	}
	if f.tasks {
		if err := refuseTaskFlags(f.fs); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// taskOptions are the settings of `ivm train -tasks`: cfg's fields that apply to a
// multi-task model, with the flags that name them.
func (f *ivmFlags) taskOptions(cfg ivm.Config) taskTrainOptions {
	return taskTrainOptions{Noise: f.noise, ActiveSize: cfg.ActiveSize,
		FixedKernel: cfg.FixedKernel, Iters: cfg.Learn.Iters, KernelIters: cfg.Learn.KernelIters,
		NoiseIters: cfg.Learn.NoiseIters, Objective: cfg.Learn.Objective, Kernel: cfg.Kernel,
		Transform: cfg.Transform, Criterion: cfg.Criterion, Scale: f.scale,
		LastIterate: cfg.Learn.LastIterate, Optimizer: cfg.Learn.Optimizer, Workers: cfg.Workers,
		Quiet: f.quiet, MaxMem: *f.data.maxMem}
}
