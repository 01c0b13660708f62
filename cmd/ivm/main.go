// Command ivm trains and applies Informative Vector Machines from the command line, in the
// manner of libsvm's svm-train and svm-predict:
//
//	ivm train [-method M] [flags] TRAIN MODEL
//	ivm predict [flags] TEST MODEL [OUTPUT]
//	ivm demo
//	ivm reproduce EXPERIMENT
//	ivm version
//
// Run "ivm help COMMAND" for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sort"
	"strings"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
)

const usageHead = `ivm — sparse Gaussian-process learning with the Informative Vector Machine

Usage:
`

const usageTail = `  ivm help [COMMAND]                    show a command's flags

Data files are CSV (target in the last column unless -label-col first; a header row is
detected) or libsvm/SVM-light sparse format ("label idx:val ..."), optionally gzipped.
`

// command is one subcommand of ivm. Each lives in its own file and registers itself in
// an init function, so that subsystems (multi-task regression, Archipelago, plots) add
// commands without touching this file.
type command struct {
	// Synopsis is the usage line ("ivm train [flags] TRAIN MODEL"), Short what it does.
	Synopsis, Short string
	// Order sorts the usage listing.
	Order int
	Run   func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("ivm: command registered twice: " + name)
	}
	commands[name] = c
}

func init() {
	register("train", command{Synopsis: "ivm train [flags] TRAIN MODEL",
		Short: "fit a model and write its model file (-method ivm, mtivm, sstr, smtr, ssmtr,\n" +
			strings.Repeat(" ", 40) + "ssmtrpi, archipelago or softmax)", Order: 10, Run: cmdTrain})
	register("predict", command{Synopsis: "ivm predict [flags] TEST MODEL [OUT]",
		Short: "predict, print accuracy or mean squared error", Order: 20, Run: cmdPredict})
	register("demo", command{Synopsis: "ivm demo",
		Short: "train and test on the USPS digits shipped with ivm", Order: 30, Run: cmdDemo})
	register("reproduce", command{Synopsis: "ivm reproduce EXPERIMENT",
		Short: "rerun a paper's or the reference's experiment", Order: 90, Run: cmdReproduce})
}

// usage lists the registered commands.
func usage() string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := commands[names[i]], commands[names[j]]
		if a.Order != b.Order {
			return a.Order < b.Order
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	b.WriteString(usageHead)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-36s  %s\n", commands[n].Synopsis, commands[n].Short)
	}
	b.WriteString(usageTail)
	return b.String()
}

// init installs the faster BLAS for gonum's LAPACK: loading a model refactorises each
// active-set matrix, and gonum's Cholesky spends its time in Dgemm.
func init() { blas64.Use(ivm.BLAS()) }

func main() {
	catchSignals(os.Stderr)
	os.Exit(profiled(os.Getenv("IVM_CPUPROFILE"), func() int {
		code := run(os.Args[1:], os.Stdout, os.Stderr)
		if path := os.Getenv("IVM_MEMPROFILE"); path != "" {
			writeHeapProfile(path)
		}
		return code
	}))
}

// writeHeapProfile writes the heap profile (allocations since the start included: "go tool
// pprof -sample_index=alloc_space") to path, for IVM_MEMPROFILE.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ivm: IVM_MEMPROFILE: %v\n", err)
	}
}

// profiled runs f, writing a CPU profile of it to path when path is not empty (the
// IVM_CPUPROFILE environment variable: "go tool pprof ivm FILE" reads it).
func profiled(path string, f func() int) int {
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ivm: IVM_CPUPROFILE: %v\n", err)
		return 1
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintf(os.Stderr, "ivm: IVM_CPUPROFILE: %v\n", err)
		return 1
	}
	defer pprof.StopCPUProfile()
	return f()
}

// errUsage marks an error for which the command's usage should be shown.
var errUsage = errors.New("usage")

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				c.Run([]string{"-h"}, stdout, stdout)
				return 0
			}
		}
		fmt.Fprint(stdout, usage())
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "ivm: unknown command %q\n\n%s", name, usage())
		return 2
	}
	err := runRecovered(cmd, args[1:], stdout, stderr)
	var limit *dataset.LimitError
	if errors.As(err, &limit) {
		err = fmt.Errorf("%w (raise -max-mem to accept it)", err)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage), isFlagError(err):
		// The flag set has printed the problem and the command's usage already.
		return 2
	}
	fmt.Fprintf(stderr, "ivm %s: %s\n", name, tidy(err.Error()))
	if errors.Is(err, errInternal) {
		return exitInternal
	}
	return 1
}

// exitInternal is the exit status of an internal error (a bug): neither bad data (1) nor
// bad usage (2).
const exitInternal = 3

// errInternal marks an error that is a bug in ivm, not in its input.
var errInternal = errors.New("internal error")

// runRecovered runs a command, turning a panic (a bug: input errors are returned) into an
// error of one line that asks for a report, instead of a goroutine dump. Temporary files
// are removed by the commands' deferred discards as the panic unwinds.
func runRecovered(cmd command, args []string, stdout, stderr io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			msg := strings.ReplaceAll(fmt.Sprint(r), "\n", " ")
			err = fmt.Errorf(
				"%w: %s; please report this bug with the command line and its files to "+
					"https://github.com/ivmlab/ivm/issues", errInternal, msg)
		}
	}()
	return cmd.Run(args, stdout, stderr)
}

// isFlagError reports whether err is the flag package's complaint about the command line
// (an undefined flag, a bad value, a missing argument): a usage error, exit status 2.
func isFlagError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined", "invalid value ",
		"invalid boolean value", "bad flag syntax", "flag needs an argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// tidy removes the package prefixes ("ivm: ", "dataset: ", …) that Go errors carry from
// the middle of a message the command has already prefixed, so that the one line reads
// "ivm train: data.csv: line 2, column 3: …".
func tidy(msg string) string {
	for _, p := range []string{"ivm: ", "dataset: ", "kern: ", "noise: ", "optimize: "} {
		msg = strings.TrimPrefix(msg, p)
		msg = strings.ReplaceAll(msg, ": "+p, ": ")
	}
	return msg
}

// newFlags returns a flag set whose usage prints the synopsis and the flags.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}
