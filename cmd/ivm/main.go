// Command ivm trains and applies Informative Vector Machines from the command line, in the
// manner of libsvm's svm-train and svm-predict:
//
//	ivm train [flags] TRAIN MODEL
//	ivm predict [flags] TEST MODEL [OUTPUT]
//	ivm demo
//	ivm reproduce EXPERIMENT
//
// Run "ivm help COMMAND" for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `ivm — sparse Gaussian-process learning with the Informative Vector Machine

Usage:
  ivm train [flags] TRAIN MODEL        select an active set and write a model file
  ivm predict [flags] TEST MODEL [OUT]  predict, print accuracy or mean squared error
  ivm demo                              train and test on the USPS digits shipped with ivm
  ivm reproduce EXPERIMENT              rerun a paper's or the reference's experiment
  ivm help [COMMAND]                    show a command's flags

Data files are CSV (target in the last column unless -label-col first; a header row is
detected) or libsvm/SVM-light sparse format ("label idx:val ..."), optionally gzipped.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks an error for which the command's usage should be shown.
var errUsage = errors.New("usage")

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) error{
		"train":     cmdTrain,
		"predict":   cmdPredict,
		"demo":      cmdDemo,
		"reproduce": cmdReproduce,
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if len(args) > 1 && cmds[args[1]] != nil {
			cmds[args[1]]([]string{"-h"}, stdout, stdout)
			return 0
		}
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "ivm: unknown command %q\n\n%s", name, usage)
		return 2
	}
	err := cmd(args[1:], stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(stderr, "ivm %s: %v\n", name, err)
	return 1
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
