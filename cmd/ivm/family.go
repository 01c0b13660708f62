package main

import (
	"io"
	"strings"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/family"
	ivmplot "github.com/ivmlab/ivm/plot"
)

// A modelFamily is the command line's side of a kind of model beside the IVM
// (single-task, and multi-task with -tasks): the "ivm train -method NAME" that fits it and
// what ivm predict, info and plot do with its model files, which package family reads.
// Each family lives in its own file and registers itself in an init function, as commands
// do, so that train, predict, info and plot stay one code path for all.
type modelFamily struct {
	// Methods are the -method values that select the family ("ssmtr", "smtr", ...).
	Methods []string
	// Train fits the family's model: args are train's arguments as given (-method
	// included, to be parsed by the family's own flag set), method the -method value.
	Train func(method string, args []string, stdout, stderr io.Writer) error
	// Open returns what predict, info and plot do with a model family.Load read, nil when
	// the model is another family's (it looks at the type m.Unwrap gives).
	Open func(m family.Model) familyModel
}

// familyModel is a model file of a family, read.
type familyModel interface {
	// WriteInfo describes the model for ivm info.
	WriteInfo(w io.Writer, path string)
	// Predict applies the model to the rows of c.TestPath for ivm predict.
	Predict(c predictCall) error
}

// familyPlotter is implemented by family models that ivm plot can draw.
type familyPlotter interface {
	Plot(c plotCall) (*ivmplot.Figure, error)
}

// predictCall is what ivm predict passes to a family model.
type predictCall struct {
	TestPath, ModelPath, OutPath string
	// Read holds the data flags' reading options (format, label and task columns, limits).
	Read dataset.ReadOptions
	// Prob asks for probabilities or variances in OUTPUT; Quiet for no metrics.
	Prob, Quiet bool
	// Report receives the metrics line (stderr when the predictions go to stdout).
	Report, Stdout, Stderr io.Writer
}

// plotCall is what ivm plot passes to a family model.
type plotCall struct {
	ModelPath, DataPath string
	Data                dataFlags
	Grid                int
	Options             ivmplot.Options
}

var families []modelFamily

func registerFamily(f modelFamily) {
	for _, m := range f.Methods {
		if m == "ivm" || m == "mtivm" || familyOfMethod(m) != nil {
			panic("ivm: -method registered twice: " + m)
		}
	}
	families = append(families, f)
}

// familyOfMethod returns the family selected by a -method value, nil for the IVM's own.
func familyOfMethod(method string) *modelFamily {
	for i := range families {
		for _, m := range families[i].Methods {
			if m == method {
				return &families[i]
			}
		}
	}
	return nil
}

// openFamily returns the command line's plug-in for a model of a registered family, nil
// when no family opens it.
func openFamily(m family.Model) familyModel {
	for _, f := range families {
		if fm := f.Open(m); fm != nil {
			return fm
		}
	}
	return nil
}

// methodArg returns the value of a -method flag in train's arguments ("" when there is
// none), so that train hands the whole command line to a family before parsing it.
func methodArg(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "method" {
			continue
		}
		if hasValue {
			return value
		}
		if i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	return ""
}

// methodNames lists the -method values for train's usage.
func methodNames() string {
	names := []string{"ivm", "mtivm"}
	for _, f := range families {
		names = append(names, f.Methods...)
	}
	return strings.Join(names, ", ")
}
