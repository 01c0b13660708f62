package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ivmlab/ivm/serve"
)

// A one-vs-one model through the binary: trained by default on a few rows of five classes
// (or with -multiclass ovo), described by info, drawn pair by pair by plot -model, split by
// -part, and served with the answers `predict -prob` writes.
func TestOneVsOneThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	writeBlobsCSV(t, train, 20, 4)
	model := filepath.Join(dir, "ovo.json")
	out := mustRun(t, "train", "-workers", "1", train, model)
	if !strings.Contains(out, "multiclass (10 one-vs-one pairs, probabilities coupled)") {
		t.Errorf("train printed\n%s", out)
	}
	ovo := filepath.Join(dir, "ovo2.json")
	mustRun(t, "train", "-quiet", "-multiclass", "ovo", train, ovo)
	if readFile(t, ovo) == "" || !strings.Contains(readFile(t, ovo), `"pairs"`) {
		t.Error("-multiclass ovo wrote no pairs")
	}
	info := mustRun(t, "info", model)
	for _, want := range []string{
		"(one-vs-one: 10 pairs, probabilities coupled)", "sharpness a = ", "scaled by each pair",
	} {
		if !strings.Contains(info, want) {
			t.Errorf("info lacks %q:\n%s", want, info)
		}
	}
	// Each pair's probit model, or a blended pair's label regression and probit model.
	blended := 0
	for a := 1; a <= 5; a++ {
		for b := a + 1; b <= 5; b++ {
			pair := fmt.Sprintf("classes %d and %d", a, b)
			switch {
			case strings.Contains(info, pair+" probit noise"):
			case strings.Contains(info, pair+" (labels) gaussian noise") &&
				strings.Contains(info, pair+" (probit) probit noise"):
				blended++
			default:
				t.Errorf("info lacks %s's model or models:\n%s", pair, info)
			}
		}
	}
	if blended > 0 && !strings.Contains(info, "μ the regression of the labels coded ±1") {
		t.Errorf("info lacks the blended pairs' logistic maps:\n%s", info)
	}

	png := filepath.Join(dir, "pair.png")
	// Three inputs: plot draws 1-D and 2-D models only, so the pair's choice is checked first.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", "-trace", "-o", png, model}, "10 one-vs-one pairs"},
		{[]string{"plot", "-o", png, model}, "3 inputs"},
		{[]string{"plot", "-o", png, "-model", "11", model},
			"-model 11: the file holds 10 one-vs-one pairs"},
		{[]string{"plot", "-o", png, "-model", "3", model, train}, "3 inputs"},
		{[]string{"train", "-multiclass", "ova", train, model},
			`-multiclass "ova": want auto, ovr, ovo or projected`},
		{[]string{"train", "-tasks", "-multiclass", "ovo", train, model},
			"-multiclass is not available with -tasks"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("ivm %s: exit %d, %q; want 1 and %q",
				strings.Join(c.args, " "), code, errs, c.want)
		}
	}

	part := filepath.Join(dir, "part.json")
	mustRun(t, "train", "-quiet", "-part", "1/3", train, part)
	if out := mustRun(t, "info", part); !strings.Contains(out,
		"part 1/3: one-vs-one pairs 4–6 of 10 (classes 1 and 5 to 2 and 4)") ||
		!strings.Contains(out, "classes 2 and 3 ") {
		t.Errorf("ivm info of a one-vs-one part:\n%s", out)
	}

	probs := filepath.Join(dir, "probs.txt")
	mustRun(t, "predict", "-quiet", "-prob", train, model, probs)
	if head, _, _ := strings.Cut(readFile(t, probs), "\n"); !strings.HasSuffix(head,
		"latent_mean(4,5) latent_variance(4,5)") {
		t.Errorf("predict -prob header %q", head)
	}
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 1000, Workers: 1, MaxInflight: 4},
		testTimeouts, "blobs="+model)
	rows, _ := readRows(t, train, "none")
	b, _ := json.Marshal(map[string]any{"rows": rows})
	checkAgainstFile(t, &http.Client{Timeout: 10 * time.Second}, ts.url+"/v1/models/blobs/predict",
		string(b), probs, func(p serve.Prediction) []float64 {
			out := append([]float64{p.Label}, p.Prob...)
			for c := range p.LatentMean {
				out = append(out, p.LatentMean[c], p.LatentVariance[c])
			}
			return out
		})
}

// A one-vs-one model of unscaled inputs (-scale none: no pair has a scaler) trains,
// summarises and predicts.
func TestOneVsOneUnscaled(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	writeBlobsCSV(t, train, 10, 6)
	model := filepath.Join(dir, "m.json")
	out := mustRun(t, "train", "-scale", "none", train, model)
	if !strings.Contains(out, "one-vs-one pairs") || strings.Contains(out, "inputs scaled") {
		t.Errorf("train printed\n%s", out)
	}
	if out := mustRun(t, "predict", train, model,
		filepath.Join(dir, "p.txt")); !strings.HasPrefix(out, "Accuracy = ") {
		t.Errorf("predict printed %q", out)
	}
	if info := mustRun(t, "info", model); !strings.Contains(info, "not scaled; sharpness a = ") {
		t.Errorf("info:\n%s", info)
	}
}
