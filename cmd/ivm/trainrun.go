package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ivmlab/ivm/dataset"
)

// A trainingRun is what every family's "ivm train" shares around its fit: the model file,
// opened before training and committed after it, the provenance the file records, and
// where the summary goes.
type trainingRun struct {
	out *outputFile
	// summary is where the summary lines go: standard output, or standard error when the
	// model itself goes to standard output.
	summary   io.Writer
	trainPath string
	args      []string // train's arguments ("train" itself not included)
	start     time.Time
}

// startTraining checks that modelPath is none of inputs (TRAIN first, then any other file
// the fit reads) and creates the model's temporary file: a model that cannot be written
// should fail before training, not after. Defer discard; it does nothing once the model is
// saved.
func startTraining(inputs []string, modelPath string, args []string, stdout,
	stderr io.Writer) (*trainingRun, error) {
	if err := checkOutputs(inputs, modelPath); err != nil {
		return nil, err
	}
	out, err := createOutput(modelPath, stdout)
	if err != nil {
		return nil, err
	}
	r := &trainingRun{out: out, summary: stdout, trainPath: inputs[0], args: args,
		start: time.Now()}
	if modelPath == stdoutPath {
		r.summary = stderr
	}
	return r, nil
}

// discard removes the model's temporary file unless the model was saved.
func (r *trainingRun) discard() { r.out.discard() }

// save records the provenance of a model trained on rows rows in *training, writes the
// model and commits the file.
func (r *trainingRun) save(model interface{ Save(io.Writer) error }, training *dataset.Provenance,
	rows int) error {
	p, err := trainingProvenance(r.trainPath, rows, append([]string{"train"}, r.args...), r.start)
	if err != nil {
		return err
	}
	*training = p
	if err := model.Save(r.out); err != nil {
		return err
	}
	return r.out.commit()
}

// printTrained writes the summary's last line.
func (r *trainingRun) printTrained(training dataset.Provenance, dim int) {
	fmt.Fprintf(r.summary, "trained on %d rows of %d inputs in %.3g s\n", training.Rows, dim,
		training.Seconds)
}

// trainingProvenance is what a model file records of its training: the training file's
// base name and SHA-256, its rows, the command line, and the start time with the seconds
// since.
func trainingProvenance(trainPath string, rows int, cmdline []string,
	start time.Time) (dataset.Provenance, error) {
	hash, err := dataHash(trainPath)
	if err != nil {
		return dataset.Provenance{}, err
	}
	return dataset.Provenance{
		File: filepath.Base(trainPath), SHA256: hash, Rows: rows, Args: cmdline,
		Time: start.UTC().Format(time.RFC3339), Seconds: time.Since(start).Seconds()}, nil
}

// writeProvenance writes a model's training provenance for ivm info (nothing when the file
// records none).
func writeProvenance(w io.Writer, t dataset.Provenance) {
	if t.File == "" && t.Time == "" {
		return
	}
	fmt.Fprintf(w, "training:    %s, %d rows, %.3g s, %s\n", t.File, t.Rows, t.Seconds, t.Time)
	if t.SHA256 != "" {
		fmt.Fprintf(w, "             sha256 %s\n", t.SHA256)
	}
	if len(t.Args) > 0 {
		fmt.Fprintf(w, "             ivm %s\n", strings.Join(t.Args, " "))
	}
	for _, u := range t.Updates {
		fmt.Fprintf(w, "updated:     %s, %d rows, %.3g s, %s\n", u.File, u.Rows, u.Seconds, u.Time)
		if len(u.Args) > 0 {
			fmt.Fprintf(w, "             ivm %s\n", strings.Join(u.Args, " "))
		}
	}
}

// readTraining reads TRAIN with the data flags' options. A single-task method passes
// ignored, the end of the warning printed when TRAIN has task labels all the same ("they
// are ignored without -tasks"); a multi-task one passes "".
func readTraining(path string, opt dataset.ReadOptions, ignored string,
	stderr io.Writer) (*dataset.Data, error) {
	data, err := readData(path, opt)
	if err != nil {
		return nil, err
	}
	if data.Task != nil && ignored != "" {
		fmt.Fprintf(stderr, "ivm train: warning: %s has task labels; %s\n", path, ignored)
	}
	return data, nil
}
