package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/serve"
)

// An update sent to ivm serve -updates save writes the model file ivm update writes for the
// same rows and -d, but for the record of where the rows came from (the request in place of
// NEWROWS) and the update's time; ivm info shows it.
func TestServeSavedUpdateIsIvmUpdate(t *testing.T) {
	dir := t.TempDir()
	_, rest, model := trainedOn100(t, dir)
	updated := filepath.Join(dir, "u.json")
	newRows, x, y := firstRows(t, rest, 60, filepath.Join(dir, "new.csv"))
	mustRun(t, "update", "-quiet", "-d", "30", model, newRows, updated)

	sources, err := parseModelArgs([]string{model})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := serve.LoadModels(sources, describeServed)
	if err != nil {
		t.Fatal(err)
	}
	reg.AcceptUpdates(serve.UpdatesSaved)
	ts := startServerOf(t, reg, serve.Limits{}, testTimeouts)
	body, _ := json.Marshal(map[string]any{"rows": rowsOf(x), "labels": y, "d": 30})
	code, answer := post(t, http.DefaultClient, ts.url+"/v1/models/m/update", string(body))
	if code != 200 || !strings.Contains(string(answer), `"saved":true`) {
		t.Fatalf("update: %d %s", code, answer)
	}
	if a, b := withoutUpdateSource(t, model), withoutUpdateSource(t, updated); a != b {
		t.Error("the served update's file differs from ivm update's beyond the update's record")
	}
	info := mustRun(t, "info", model)
	if !strings.Contains(info, "updated:     POST /v1/models/m/update, 60 rows") ||
		!strings.Contains(info, "ivm update -d 30") {
		t.Errorf("ivm info does not show the served update:\n%s", info)
	}
}

// firstRows writes the first n rows of the data file src to path and returns its rows and
// labels.
func firstRows(t *testing.T, src string, n int, path string) (string, *mat.Dense, []float64) {
	t.Helper()
	d, err := dataset.ReadFile(src, dataset.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, dim := d.X.Dims()
	part := &dataset.Data{X: mat.DenseCopyOf(d.X.Slice(0, n, 0, dim)), Y: d.Y[:n]}
	var b bytes.Buffer
	if err := dataset.WriteCSV(&b, part); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, path, b.String())
	return path, part.X, part.Y
}

func rowsOf(x *mat.Dense) [][]float64 {
	n, _ := x.Dims()
	out := make([][]float64, n)
	for i := range out {
		out[i] = x.RawRowView(i)
	}
	return out
}

// withoutUpdateSource is the model file at path as ivm.Save writes it with its last update's
// record cleared of what differs between two updates of the same rows: where the rows came
// from and when.
func withoutUpdateSource(t *testing.T, path string) string {
	t.Helper()
	mf, err := readModel(path, defaultMaxMem)
	if err != nil {
		t.Fatal(err)
	}
	p := mf.single
	u := &p.Training.Updates[len(p.Training.Updates)-1]
	*u = dataset.Update{Rows: u.Rows}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// ivm serve refuses an -updates that is not off, memory or save before it reads a model.
func TestServeUpdatesFlag(t *testing.T) {
	code, _, errs := runCLI(t, "serve", "-updates", "always", "absent.json")
	if code == 0 || !strings.Contains(errs, `-updates "always": want off, memory or save`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
