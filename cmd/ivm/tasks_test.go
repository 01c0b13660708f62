package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/multitask"
)

// Training on the sine toy with the reference's fixed kernel writes the reference's inclusions
// as {"task", "row"} pairs with rows of the training file; predicting the file back works.
func TestTrainTasksSine(t *testing.T) {
	dir := t.TempDir()
	train := reftest.Path("data", "mtivm_toysine.csv.gz")
	data, err := dataset.ReadFile(train, dataset.ReadOptions{TaskCol: dataset.TaskFirst})
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "mt.json")
	var out, errOut bytes.Buffer
	o := taskTrainOptions{Noise: "gaussian", ActiveSize: 15, FixedKernel: true,
		Kernel: "rbf(gamma=1,variance=1)"}
	if err := trainTasksTo(data, train, model, o, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Format string `json:"format"`
		Active []struct {
			Task string `json:"task"`
			Row  int    `json:"row"`
		} `json:"active"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.Format != "ivm-mtmodel/1" {
		t.Errorf("format %q", f.Format)
	}
	// Reference: task order 1 1 2 3 3 3 3 3 2 3 2 3 3 3 3; within-task rows (1-based)
	// task 1: 1 16; task 2: 1 3 21; task 3: 1 2 4 5 22 13 11 15 6 10; 30 rows per task.
	want := []string{"1:0", "1:15", "2:30", "3:60", "3:61", "3:63", "3:64", "3:81", "2:32", "3:72",
		"2:50", "3:70", "3:74", "3:65", "3:69"}
	var got []string
	for _, a := range f.Active {
		got = append(got, fmt.Sprintf("%s:%d", a.Task, a.Row))
		if data.Task[a.Row] != a.Task {
			t.Errorf("active row %d belongs to task %q in the file, model says %q",
				a.Row, data.Task[a.Row], a.Task)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("active %v\nwant   %v", got, want)
	}

	m, _, ok, err := readTaskModel(model)
	if err != nil || !ok {
		t.Fatalf("readTaskModelFile: %v, %v", ok, err)
	}
	pred := filepath.Join(dir, "pred.txt")
	out.Reset()
	if err := predictTasks(data, m, pred, true, false, &out, &out); err != nil {
		t.Fatal(err)
	}
	var mse float64
	if _, err := fmt.Sscanf(out.String(), "Mean squared error = %g", &mse); err != nil ||
		!(mse < 0.05) {
		t.Errorf("prediction summary %q "+
			"(want a mean squared error below 0.05 on the training file)", out.String())
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, pred)), "\n")
	if len(lines) != 91 || lines[0] != "mean variance" {
		t.Errorf("%d prediction lines, header %q", len(lines), lines[0])
	}
	// A row of a task the model does not know is an error naming it.
	data.Task[5] = "nope"
	if err := predictTasks(data, m, "", false, true, &out, &out); err == nil ||
		!strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown task: error %v", err)
	}
	// A single-task model file is not taken for a multi-task one.
	other := filepath.Join(dir, "single.json")
	writeTestFile(t, other, `{"format":"ivm-model/1"}`)
	if _, _, _, err := readTaskModel(other); err == nil ||
		!strings.Contains(err.Error(), "lacks its kernel") {
		t.Errorf("single-task model: error %v, want the single-task loader's", err)
	}
}

// Binary labels other than ±1 come back as written; learning runs and the accuracy is printed.
func TestTrainTasksClassification(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("speaker,x1,x2,label\n")
	for i := 0; i < 240; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		task := fmt.Sprintf("s%d", i%4)
		y := 0
		if x1+x2+0.2*float64(i%4) > 0 {
			y = 5
		}
		fmt.Fprintf(&b, "%s,%g,%g,%d\n", task, x1, x2, y)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "train.csv")
	writeTestFile(t, path, b.String())
	data, err := dataset.ReadFile(path, dataset.ReadOptions{TaskCol: dataset.TaskFirst})
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.json")
	var out, errOut bytes.Buffer
	o := taskTrainOptions{Noise: "auto", ActiveSize: 40, Iters: 2, KernelIters: 20,
		Kernel: "rbf+bias+white"}
	if err := trainTasksTo(data, path, model, o, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "iteration 1/2") {
		t.Errorf("no progress on stderr: %q", errOut.String())
	}
	m, meta, ok, err := readTaskModel(model)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if len(meta.Labels) != 2 || meta.Labels[0] != 0 || meta.Labels[1] != 5 || len(meta.Trace) != 3 {
		t.Errorf("labels %v, %d trace records", meta.Labels, len(meta.Trace))
	}
	pred := filepath.Join(dir, "p.txt")
	out.Reset()
	if err := predictTasks(data, m, pred, false, false, &out, &out); err != nil {
		t.Fatal(err)
	}
	var acc float64
	if _, err := fmt.Sscanf(out.String(), "Accuracy = %g%%", &acc); err != nil || acc < 90 {
		t.Errorf("summary %q, want accuracy ≥ 90 %%", out.String())
	}
	for _, l := range strings.Fields(readFile(t, pred)) {
		if l != "0" && l != "5" {
			t.Fatalf("predicted label %q, want 0 or 5", l)
		}
	}
	// Data without tasks is refused.
	data.Task = nil
	if err := trainTasksTo(data, path, model, o, &out, &errOut); err == nil {
		t.Error("training without task labels: no error")
	}
}

// trainTasksTo runs trainTasks on data read from trainPath, writing the model to path.
func trainTasksTo(data *dataset.Data, trainPath, path string, o taskTrainOptions,
	stdout, stderr io.Writer) error {
	run, err := startTraining([]string{trainPath}, path, []string{"-tasks"}, stdout, stderr)
	if err != nil {
		return err
	}
	defer run.discard()
	return trainTasks(data, run, o, stderr)
}

// readTaskModel reads path if it is a multi-task model file; ok is false, with no error,
// for a single-task model.
func readTaskModel(path string) (m *multitask.Model, meta *multitask.ModelMeta,
	ok bool, err error) {
	mf, err := readModel(path, defaultMaxMem)
	if err != nil || mf.multi == nil {
		return nil, nil, false, err
	}
	return mf.multi, &mf.multi.ModelMeta, true, nil
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// -scale std with -tasks: inputs in large units are standardised, the scaling is stored in
// the model file and applied to test inputs, so predictions on the raw file equal those of
// a model trained with -scale none on the inputs standardised by hand; the default leaves
// inputs as they are.
func TestTrainTasksScaling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var raw, std strings.Builder
	raw.WriteString("task,x1,x2,y\n")
	std.WriteString("task,x1,x2,y\n")
	const n = 120
	xs := make([][2]float64, n)
	ys := make([]float64, n)
	var mean, sq [2]float64
	for i := range xs {
		xs[i] = [2]float64{1000 + 300*rng.NormFloat64(), 0.01 * rng.NormFloat64()}
		ys[i] = math.Sin((xs[i][0]-1000)/300) + 50*xs[i][1] + 0.1*rng.NormFloat64()
		for j := range 2 {
			mean[j] += xs[i][j] / n
			sq[j] += xs[i][j] * xs[i][j] / n
		}
	}
	for i, x := range xs {
		task := fmt.Sprintf("t%d", i%3)
		fmt.Fprintf(&raw, "%s,%.17g,%.17g,%.17g\n", task, x[0], x[1], ys[i])
		fmt.Fprintf(&std, "%s,%.17g,%.17g,%.17g\n", task,
			(x[0]-mean[0])/math.Sqrt(sq[0]-mean[0]*mean[0]),
			(x[1]-mean[1])/math.Sqrt(sq[1]-mean[1]*mean[1]), ys[i])
	}
	dir := t.TempDir()
	read := func(name, text string) *dataset.Data {
		path := filepath.Join(dir, name)
		writeTestFile(t, path, text)
		d, err := dataset.ReadFile(path, dataset.ReadOptions{TaskCol: dataset.TaskFirst})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	rawData, stdData := read("raw.csv", raw.String()), read("std.csv", std.String())
	predict := func(data *dataset.Data, file, scale string) ([]float64, *multitask.Model) {
		model := filepath.Join(dir, "m-"+scale+".json")
		o := taskTrainOptions{Noise: "gaussian", ActiveSize: 30, FixedKernel: true,
			Kernel: "rbf(gamma=1,variance=1)+white(variance=0.01)", Scale: scale, Quiet: true}
		var out, errOut bytes.Buffer
		if err := trainTasksTo(data, filepath.Join(dir, file), model, o,
			&out, &errOut); err != nil {
			t.Fatalf("-scale %s: %v", scale, err)
		}
		m, _, ok, err := readTaskModel(model)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		_, mu, _, err := m.PredictLatent(data.X, data.Task)
		if err != nil {
			t.Fatal(err)
		}
		return mu, m
	}
	scaled, m := predict(rawData, "raw.csv", "std")
	if m.Scaler == nil || m.Scaler.Kind != dataset.ScaleStd {
		t.Fatalf("-scale std: model scaler %+v", m.Scaler)
	}
	if out := mustRun(t, "info",
		filepath.Join(dir, "m-std.json")); !strings.Contains(out, "scaled (std)") {
		t.Errorf("ivm info does not say the inputs are scaled:\n%s", out)
	}
	byHand, _ := predict(stdData, "std.csv", "none")
	for i := range scaled {
		if math.Abs(scaled[i]-byHand[i]) > 1e-6*(1+math.Abs(byHand[i])) {
			t.Fatalf("prediction %d: %v with -scale std, %v on inputs standardised by hand",
				i, scaled[i], byHand[i])
		}
	}
	if _, m := predict(rawData, "raw.csv", "auto"); m.Scaler != nil {
		t.Errorf("-scale auto with -tasks scaled the inputs: %+v", m.Scaler)
	}
}
