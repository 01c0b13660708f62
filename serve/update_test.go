package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/serve"
)

// labelledRows reads a golden test file's rows and labels.
func labelledRows(t *testing.T, name string, dim int) ([][]float64, []float64) {
	t.Helper()
	data, err := dataset.ReadFile(filepath.Join(goldenDir, name+".test.csv"),
		dataset.ReadOptions{Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([][]float64, len(data.Y))
	for i := range rows {
		rows[i] = data.X.RawRowView(i)
	}
	return rows, data.Y
}

func updateBody(rows [][]float64, labels []float64, extra string) string {
	b, _ := json.Marshal(map[string]any{"rows": rows, "labels": labels})
	if extra != "" {
		b = append(b[:len(b)-1], []byte(", "+extra+"}")...)
	}
	return string(b)
}

// predictions predicts rows in process with m.
func predictions(t *testing.T, m family.Model, rows [][]float64) []serve.Prediction {
	t.Helper()
	x := mat.NewDense(len(rows), m.InputDim(), nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	preds, err := m.Predict(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]serve.Prediction, len(preds))
	for i := range preds {
		out[i] = serve.Prediction{Label: preds[i].Label, Prob: preds[i].Prob,
			LatentMean: preds[i].Latent, LatentVariance: preds[i].LatentVar}
	}
	return out
}

// servedPredictions asks the server for its predictions of rows by model name.
func servedPredictions(t *testing.T, url, name string, rows [][]float64) []serve.Prediction {
	t.Helper()
	var got serve.PredictResponse
	if code := postJSON(t, url+"/v1/models/"+name+"/predict", denseBody(rows), &got); code != 200 {
		t.Fatalf("predict %s: %d", name, code)
	}
	return got.Predictions
}

// Updates are refused (403) until the server accepts them. An update is then served to the
// requests after it: the active set grows by the rows added, the predictions become those of
// the model updated in process, and held in memory the file is left as it was and the answer
// and GET /v1/models say the update is unsaved.
func TestServeUpdateInMemory(t *testing.T) {
	path, m := copyGolden(t, "binary_probit", t.TempDir(), "probit")
	ts := startServer(t, serve.Limits{}, 0, serve.Source{Name: "probit", Path: path})
	rows, labels := labelledRows(t, "binary_probit", m.InputDim())
	before := servedPredictions(t, ts.URL, "probit", rows)
	file := readFile(t, path)

	var refused struct{ Error string }
	code := postJSON(t, ts.URL+"/v1/models/probit/update", updateBody(rows[:20], labels[:20], ""),
		&refused)
	if code != http.StatusForbidden || !strings.Contains(refused.Error, "-updates memory") {
		t.Fatalf("update with updates off: %d %+v", code, refused)
	}
	ts.models.AcceptUpdates(serve.UpdatesInMemory)
	var got serve.UpdateResponse
	code = postJSON(t, ts.URL+"/v1/models/probit/update",
		updateBody(rows[:20], labels[:20], `"d": 1000`), &got)
	if code != 200 || got.Rows != 20 || got.Saved || !strings.Contains(got.Note, "memory only") ||
		len(got.Active) != 1 || got.Active[0].After != got.Active[0].Before+20 {
		t.Fatalf("update: %d %+v", code, got)
	}
	want, err := inProcessUpdate(m, rows[:20], labels[:20], 1000)
	if err != nil {
		t.Fatal(err)
	}
	after := servedPredictions(t, ts.URL, "probit", rows)
	if slices.EqualFunc(before, after, samePredictionAsServed) {
		t.Error("the predictions did not change with the update")
	}
	if !slices.EqualFunc(after, predictions(t, want, rows), samePredictionAsServed) {
		t.Error("the served predictions are not those of the model updated in process")
	}
	if readFile(t, path) != file {
		t.Error("an update held in memory changed the model file")
	}
	var info serve.ModelInfo
	getJSON(t, ts.URL+"/v1/models/probit", &info)
	if info.UnsavedUpdates != 1 {
		t.Errorf("GET /v1/models/probit: unsaved_updates %d, want 1", info.UnsavedUpdates)
	}
	if replaced, _ := ts.handler.Reload(); replaced != 0 {
		t.Error("a reload of an unchanged file replaced the updated model")
	}
	stats := metrics(t, ts.URL)
	for _, want := range []string{`ivm_updates_total{result="in_memory"} 1`,
		`ivm_updates_total{result="saved"} 0`, "ivm_rows_updated_total 20\n"} {
		if !strings.Contains(stats, want) {
			t.Errorf("metrics after one update of 20 rows, held in memory: no %q in\n%s", want,
				stats)
		}
	}
}

// inProcessUpdate updates m as the server does, with ivm update's default swaps.
func inProcessUpdate(m family.Model, rows [][]float64, labels []float64,
	d int) (family.Model, error) {
	x := mat.NewDense(len(rows), m.InputDim(), nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	u := m.(interface {
		Update(*mat.Dense, []float64, int, int, dataset.Update) (family.Model, error)
	})
	return u.Update(x, labels, d, 0, dataset.Update{})
}

// samePredictionAsServed compares two answers' predictions number for number.
func samePredictionAsServed(a, b serve.Prediction) bool {
	return a.Label == b.Label && slices.Equal(a.Prob, b.Prob) &&
		slices.Equal(a.LatentMean, b.LatentMean) && slices.Equal(a.LatentVariance, b.LatentVariance)
}

// With UpdatesSaved the updated model is written to its file, renamed into place with the
// file's permissions: the file reloads as the model served, records the update as ivm update
// does (the request in place of a file), and a reload finds nothing changed. A file changed
// since it was read is not overwritten (409).
func TestServeUpdateSaves(t *testing.T) {
	dir := t.TempDir()
	path, m := copyGolden(t, "multiclass_ovr", dir, "ovr")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, serve.Limits{}, 0, serve.Source{Name: "ovr", Path: path})
	ts.models.AcceptUpdates(serve.UpdatesSaved)
	rows, labels := labelledRows(t, "multiclass_ovr", m.InputDim())
	var got serve.UpdateResponse
	code := postJSON(t, ts.URL+"/v1/models/ovr/update",
		updateBody(rows[:15], labels[:15], `"d": 1000, "swaps": -1`), &got)
	if code != 200 || !got.Saved || got.File != path || got.Note != "" ||
		len(got.Active) != len(m.Classes()) {
		t.Fatalf("update: %d %+v", code, got)
	}
	p := loadPredictor(t, path)
	if !slices.EqualFunc(servedPredictions(t, ts.URL, "ovr", rows),
		predictions(t, familyOf(t, path), rows), samePredictionAsServed) {
		t.Error("the saved file does not predict as the model served")
	}
	u := p.Training.Updates[len(p.Training.Updates)-1]
	if u.File != "POST /v1/models/ovr/update" || u.Rows != 15 || len(u.SHA256) != 64 ||
		!slices.Equal(u.Args, []string{"update", "-d", "1000", "-swaps", "-1"}) {
		t.Errorf("the update's record: %+v", u)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("the saved file's mode: %v %v", st.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if replaced, refused := ts.handler.Reload(); replaced+refused != 0 {
		t.Errorf("reload after a saved update: %d replaced, %d refused", replaced, refused)
	}
	copyFile(t, filepath.Join(goldenDir, "binary_probit.json"), path)
	changed := readFile(t, path)
	code, body := post(t, http.DefaultClient, ts.URL+"/v1/models/ovr/update",
		updateBody(rows[:2], labels[:2], ""))
	if code != 409 || !strings.Contains(string(body), "changed since it was read") ||
		readFile(t, path) != changed {
		t.Errorf("update over a changed file: %d %s", code, body)
	}
	stats := metrics(t, ts.URL)
	if !strings.Contains(stats, `ivm_updates_total{result="saved"} 1`) ||
		!strings.Contains(stats, "ivm_rows_updated_total 15\n") {
		t.Errorf("metrics after one saved update of 15 rows and a refused one:\n%s", stats)
	}
}

func loadPredictor(t *testing.T, path string) *ivm.Predictor {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ivm.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func familyOf(t *testing.T, path string) family.Model {
	t.Helper()
	m, err := family.Load(bytes.NewBufferString(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The update endpoint refuses, saying why: a malformed body, labels that do not match the
// rows or the model, bad options, a model that cannot be updated (501) or that the IVM
// refuses to update (projected: 400), another method (405 with Allow), a body over the
// limit (413), an unknown model (404).
func TestServeUpdateRefuses(t *testing.T) {
	dir := t.TempDir()
	probit, m := copyGolden(t, "binary_probit", dir, "probit")
	projected, _ := copyGolden(t, "binary_projected", dir, "projected")
	mtivm, _ := copyGolden(t, "mtivm", dir, "mtivm")
	regression, _ := copyGolden(t, "regression_ivm", dir, "reg")
	ts := startServer(t, serve.Limits{MaxBody: 4 << 10, MaxRows: 50}, 0,
		serve.Source{Name: "probit", Path: probit},
		serve.Source{Name: "projected", Path: projected},
		serve.Source{Name: "mtivm", Path: mtivm}, serve.Source{Name: "reg", Path: regression})
	ts.models.AcceptUpdates(serve.UpdatesInMemory)
	rows, labels := labelledRows(t, "binary_probit", m.InputDim())
	two := updateBody(rows[:2], labels[:2], "")
	other := 3.0
	for slices.Contains(m.Classes(), other) {
		other++
	}
	checkRefusals(t, ts.URL, "update", []refusal{
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [`, 400, "ends early"},
		{"POST", "probit", `{"rows": [[1, 2]]}`, 400, "0 labels for 1 rows"},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [1, 2]}`, 400, "2 labels for 1 rows"},
		{"POST", "probit", updateBody(rows[:1], []float64{other}, ""), 400,
			fmt.Sprintf("label 1: %v is not one of model", other)},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [null]}`, 400, "label 1 is null"},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": ["a"]}`, 400,
			`"labels" holds a JSON string`},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [1e999]}`, 400, "labels must be finite"},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [1], "n": 3}`, 400, `unknown field "n"`},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [1], "d": -1}`, 400, `"d": -1`},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [1], "d": 1.5}`, 400, `"d" holds`},
		{"POST", "probit", `{"rows": [[1]], "labels": [1]}`, 400, "row 1: 1 values"},
		{"POST", "probit", `{"rows": [], "labels": []}`, 400, "no rows"},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [1]} {}`, 400, "data after"},
		{"POST", "probit", `{"rows": [[1, 2]], "labels": [1], "pad": "` +
			strings.Repeat("x", 5<<10) + `"}`, 413, "-max-body"},
		{"POST", "mtivm", two, 501, "cannot be updated"},
		{"POST", "projected", two, 400, "projected model"},
		{"GET", "probit", "", 405, "POST"},
		{"POST", "none", two, 404, "no model"},
	})
	// A regression takes any finite targets; none of the refusals changed the probit model.
	code, body := post(t, http.DefaultClient, ts.URL+"/v1/models/reg/update",
		`{"rows": [[0.5, 0.5]], "labels": [123.25]}`)
	if code != 200 {
		t.Errorf("regression update: %d %s", code, body)
	}
	if !slices.EqualFunc(servedPredictions(t, ts.URL, "probit", rows), predictions(t, m, rows),
		samePredictionAsServed) {
		t.Error("a refused update changed the model served")
	}
}

// Concurrent updates of one model, saved, while predictions go on: every request answers
// 200, no update is lost (the file records each, and the model served is the file's), and
// the race detector finds nothing.
func TestServeConcurrentUpdatesAndPredicts(t *testing.T) {
	path, m := copyGolden(t, "binary_probit", t.TempDir(), "probit")
	ts := startServer(t, serve.Limits{}, 0, serve.Source{Name: "probit", Path: path})
	ts.models.AcceptUpdates(serve.UpdatesSaved)
	rows, labels := labelledRows(t, "binary_probit", m.InputDim())
	const updates, predictors, predicts, perUpdate = 4, 3, 8, 5
	var wg sync.WaitGroup
	errs := make(chan string, updates+predictors*predicts)
	for u := range updates {
		wg.Go(func() {
			part := rows[u*perUpdate : (u+1)*perUpdate]
			code, body := post(t, http.DefaultClient, ts.URL+"/v1/models/probit/update",
				updateBody(part, labels[u*perUpdate:(u+1)*perUpdate], ""))
			if code != 200 {
				errs <- fmt.Sprintf("update %d: %d %s", u, code, body)
			}
		})
	}
	for range predictors {
		wg.Go(func() {
			for range predicts {
				code, body := post(t, http.DefaultClient, ts.URL+"/v1/models/probit/predict",
					denseBody(rows[20:]))
				if code != 200 {
					errs <- fmt.Sprintf("predict: %d %s", code, body)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	p := loadPredictor(t, path)
	if n := len(p.Training.Updates); n != updates {
		t.Fatalf("the file records %d updates, want %d", n, updates)
	}
	if !slices.EqualFunc(servedPredictions(t, ts.URL, "probit", rows),
		predictions(t, familyOf(t, path), rows), samePredictionAsServed) {
		t.Error("the model served is not the file's")
	}
}

// Every golden model file of the single-task IVM is updated with three of its test rows, or
// refused with a 400 saying why (projected models, and the constant predictor stored as one);
// a semi-supervised model takes an unlabelled row as null.
func TestServeUpdateEveryKind(t *testing.T) {
	var sources []serve.Source
	for _, src := range goldenModels(t, t.TempDir()) {
		if strings.HasPrefix(readFile(t, src.Path)[:80], "{\n \"format\": \"ivm-model/1\"") {
			sources = append(sources, src)
		}
	}
	ts := startServer(t, serve.Limits{}, 0, sources...)
	ts.models.AcceptUpdates(serve.UpdatesInMemory)
	for _, src := range sources {
		m := familyOf(t, src.Path)
		rows, labels := labelledRows(t, src.Name, m.InputDim())
		body := updateBody(rows[:3], labels[:3], "")
		if m.Kind() == "semisupervised" { // the first row unlabelled
			b, _ := json.Marshal(map[string]any{"rows": rows[:4],
				"labels": []any{nil, labels[1], labels[2], labels[3]}})
			body = string(b)
		}
		code, answer := post(t, http.DefaultClient, ts.URL+"/v1/models/"+src.Name+"/update", body)
		// Projected models (the constant predictor is one) cannot be updated.
		refused := strings.Contains(readFile(t, src.Path), `"projected":`)
		if refused && (code != 400 || !strings.Contains(string(answer), "cannot be updated")) ||
			!refused && code != 200 {
			t.Errorf("%s: %d %s", src.Name, code, answer)
		}
	}
}
