// Package reproduce runs the papers' and the reference toolbox's experiments and prints
// their tables next to the published figures. Each experiment is registered by name and run
// by `ivm reproduce NAME`.
package reproduce

import (
	"fmt"
	"io"
	"sort"
)

// Config is what every experiment receives.
type Config struct {
	// RefDir is the folder of the reference toolbox's fixtures (testdata/ref in the
	// repository).
	RefDir string
	// DataDir is the folder of the papers' data sets (../shared/data beside the
	// repository: usps/, sarcos/, school/, pinwheel/, wine/, oilflow/, vowel/). Experiments
	// that need a set not found there say so in their error.
	DataDir string
	// Seed seeds the experiments' random choices (splits, labellings); 0 means the
	// experiment's documented default.
	Seed int64
	// Workers bounds the goroutines an experiment uses (0: all cores).
	Workers int
	// Quick runs a reduced version (fewer repetitions or points), for tests.
	Quick bool
	// Runs, when positive, replaces the number of repetitions of experiments that repeat
	// (usps-table3, usps-ncnm, ncnm-toy: ten by default).
	Runs int
	// Only, when not empty, restricts an experiment with several rows to those named
	// (comma-separated; usps-table1: rbf, mlp, rbfard; usps-ncnm: learnt, fixed and labelled
	// fractions such as 0.25; archipelago: problems, label counts and allrows;
	// mtivm-regression: budgets dN and sN, e.g. d400,s150; ssmtr-alpha: school or sarcos).
	Only string
	// Out is the folder figures are written to (default: the current folder).
	Out string
	// Log receives progress lines (may be io.Discard).
	Log io.Writer
}

// Experiment is one reproducible table.
type Experiment struct {
	Name, Title string
	Run         func(w io.Writer, c Config) error
	// NeedsRef marks experiments that read the reference toolbox's fixtures (RefDir).
	NeedsRef bool
}

var registry = map[string]Experiment{}

func register(e Experiment) { registry[e.Name] = e }

// Lookup returns the experiment with the given name.
func Lookup(name string) (Experiment, error) {
	e, ok := registry[name]
	if !ok {
		return Experiment{}, fmt.Errorf("reproduce: no experiment %q (have %v)", name, Names())
	}
	return e, nil
}

// Names lists the registered experiments.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// seedOr is c.Seed, or the experiment's default seed def when c.Seed is 0.
func seedOr(c Config, def uint64) uint64 {
	if c.Seed == 0 {
		return def
	}
	return uint64(c.Seed)
}

// workersOr is c.Workers, or def when c.Workers is 0 or less: the experiments whose jobs
// are whole chains or whole sets of one-vs-rest fits run def of them at a time by default
// rather than one per core.
func workersOr(c Config, def int) int {
	if c.Workers <= 0 {
		return def
	}
	return c.Workers
}

// outDir is the folder figures are written to: c.Out, or the current folder.
func outDir(c Config) string {
	if c.Out == "" {
		return "."
	}
	return c.Out
}
