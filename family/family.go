// Package family is the registry of model-file formats. Each model family registers the
// formats it reads from its package's init function, as image formats register with
// package image, and Load reads a model file of any registered family by its "format"
// field. The registry imports no family: a program reads the families whose packages it
// imports (the root package ivm, multitask, ssmtr, archipelago), blank-importing those it
// does not otherwise use.
package family

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/fileformat"
	"github.com/ivmlab/ivm/noise"
)

// Model is a model of any family, read from its model file by Load: what a program that
// applies model files without knowing which family wrote them needs.
type Model interface {
	// Format is the "format" field of the model's file ("ivm-ssmtr/1").
	Format() string
	// Kind names what the model predicts in a word: a single-task IVM's task (binary,
	// multiclass, regression, ordinal, semisupervised); multitask for a model whose rows
	// name their task; otherwise regression, binary or multiclass.
	Kind() string
	// InputDim is the number of inputs a row has.
	InputDim() int
	// Classes are the class labels as in the training data, the order of a prediction's
	// Prob; nil for regression.
	Classes() []float64
	// Tasks are the names of the tasks a row may name, nil when rows need no task.
	Tasks() []string
	// Predict predicts the rows of x; tasks names each row's task (nil when Tasks is nil).
	// Each field means what noise.Prediction says, for every family.
	Predict(x *mat.Dense, tasks []string) ([]noise.Prediction, error)
	// Save writes the model in its format.
	Save(w io.Writer) error
	// Unwrap returns the family's own model (*ivm.Predictor, *multitask.Model,
	// *ssmtr.Model, *archipelago.Model), for a program that needs more than this interface.
	Unwrap() any
}

// Format is a model-file format a family reads.
type Format struct {
	// Name is the files' "format" field: the family's name before the "/", its version
	// after ("ivm-ssmtr/1"). A family that reads several versions registers each.
	Name string
	// Load reads a model file of this format. A family may register a format it
	// recognises only to refuse it with a message saying what the file is.
	Load func(r io.Reader) (Model, error)
}

var (
	mu      sync.RWMutex
	formats []Format
)

// Register makes a format known to Load. It is called from the family package's init
// function; registering a name twice, or one without a version, panics, as a program
// that does so is wrong whatever its input.
func Register(f Format) {
	if name, version, _ := strings.Cut(f.Name, "/"); name == "" || version == "" || f.Load == nil {
		panic(fmt.Sprintf("family: Register(%q): want a name NAME/VERSION and a loader", f.Name))
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.ContainsFunc(formats, func(g Format) bool { return g.Name == f.Name }) {
		panic(fmt.Sprintf("family: format %q registered twice", f.Name))
	}
	formats = append(formats, f)
}

// Formats returns the names of the registered formats, sorted.
func Formats() []string {
	mu.RLock()
	defer mu.RUnlock()
	return names()
}

// names returns the names of the registered formats, sorted; the caller holds mu.
func names() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name
	}
	slices.Sort(out)
	return out
}

// Load reads a model file of any registered family, choosing the loader by the file's
// "format" field. A file of a known family in a version no loader reads is refused with a
// message naming both versions, a format no family knows with the list of known ones. A
// *bytes.Buffer (anything with a Bytes method) is read in place, without a copy.
func Load(r io.Reader) (Model, error) {
	b, err := readAll(r)
	if err != nil {
		return nil, err
	}
	format, err := fileformat.Of(b)
	if err != nil {
		return nil, describe(err)
	}
	f, err := lookup(format)
	if err != nil {
		return nil, err
	}
	return f.Load(bytes.NewBuffer(b))
}

// readAll returns r's bytes: those of a buffer in place, else read whole.
func readAll(r io.Reader) ([]byte, error) {
	if buf, ok := r.(interface{ Bytes() []byte }); ok {
		return buf.Bytes(), nil
	}
	return io.ReadAll(r)
}

// lookup returns the format registered as format, or the error that says why there is
// none: another version of a known family, or an unknown format.
func lookup(format string) (Format, error) {
	mu.RLock()
	defer mu.RUnlock()
	var versions []string
	name, _, _ := strings.Cut(format, "/")
	for _, f := range formats {
		if f.Name == format {
			return f, nil
		}
		if fname, _, _ := strings.Cut(f.Name, "/"); fname == name {
			versions = append(versions, fmt.Sprintf("%q", f.Name))
		}
	}
	if len(versions) > 0 {
		slices.Sort(versions)
		return Format{}, fmt.Errorf(
			"ivm: model format %q is not supported by this version (it reads %s)", format,
			strings.Join(versions, ", "))
	}
	return Format{}, fmt.Errorf("ivm: unknown model format %q (this version knows %s)", format,
		strings.Join(names(), ", "))
}

// describe says why a file's format cannot be read: it has none, or it is not a JSON
// object that can be read as far as its "format".
func describe(err error) error {
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, fileformat.ErrNoFormat):
		return errors.New(`ivm: not a model file (no "format" field)`)
	case errors.Is(err, io.EOF):
		return errors.New("ivm: not a readable model file: it is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("ivm: not a readable model file: it ends early (truncated?)")
	case errors.As(err, &syntax):
		return fmt.Errorf("ivm: not a readable model file: not JSON at byte %d (%v)", syntax.Offset,
			err)
	}
	return fmt.Errorf("ivm: not a readable model file: %w", err)
}
