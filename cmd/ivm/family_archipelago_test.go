//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runOK runs the built binary in dir and fails the test unless it exits 0.
func runOK(t *testing.T, dir string, args ...string) runResult {
	t.Helper()
	r := runBinary(t, dir, "", nil, args...)
	if r.code != 0 {
		t.Fatalf("ivm %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// Both methods through the binary: train on labelled and unlabelled rows → model file →
// predict new rows (accuracy, perplexity, probabilities) → info → plot; the same
// prediction twice is byte for byte the same.
func TestArchipelagoFamilyCLI(t *testing.T) {
	dir := t.TempDir()
	writePinwheel(t, filepath.Join(dir, "train.csv"), 8, 3, 1)
	writePinwheel(t, filepath.Join(dir, "test.csv"), 10, 10, 2)
	for _, method := range []string{"archipelago", "softmax"} {
		model := method + ".json"
		r := runOK(t, dir, "train", "-method", method, "-sweeps", "30", "-burn", "10",
			"-samples", "5", "-seed", "4", "train.csv", model)
		if !strings.Contains(r.stdout, model+": "+method+", classes 1 2 3, 5 posterior samples") {
			t.Errorf("%s: train printed %q", method, r.stdout)
		}
		if n := strings.Count(r.stderr, "ivm train: sweep"); n != 30 {
			t.Errorf("%s: %d progress lines (every 5 %% of 30 sweeps: 30)", method, n)
		}
		r = runOK(t, dir, "predict", "-prob", "test.csv", model, "out.txt")
		if !strings.Contains(r.stdout, "Accuracy = ") ||
			!strings.Contains(r.stdout, "(classification)") ||
			!strings.Contains(r.stdout, "Perplexity = ") {
			t.Errorf("%s: predict printed %q", method, r.stdout)
		}
		var correct, total int
		if _, err := fmt.Sscanf(r.stdout[strings.Index(r.stdout, "("):], "(%d/%d)", &correct,
			&total); err != nil || total != 30 || correct < 20 {
			t.Errorf("%s: %d of %d right (%v):\n%s", method, correct, total, err, r.stdout)
		}
		out, err := os.ReadFile(filepath.Join(dir, "out.txt"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if lines[0] != "label p(1) p(2) p(3)" || len(lines) != 31 ||
			len(strings.Fields(lines[1])) != 4 {
			t.Errorf("%s: predictions file starts %q, %d lines", method, lines[0], len(lines))
		}
		runOK(t, dir, "predict", "test.csv", model, "again.txt")
		runOK(t, dir, "predict", "test.csv", model, "again2.txt")
		a, _ := os.ReadFile(filepath.Join(dir, "again.txt"))
		b, _ := os.ReadFile(filepath.Join(dir, "again2.txt"))
		if string(a) != string(b) || len(a) == 0 {
			t.Errorf("%s: two predictions differ", method)
		}
		r = runOK(t, dir, "info", model)
		for _, want := range []string{"(ivm-archipelago/1)", "method:      " + method,
			"classes:     1 2 3", "5 posterior samples", "training:    train.csv, 24 rows",
			"ivm train -method " + method} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s: info lacks %q:\n%s", method, want, r.stdout)
			}
		}
		runOK(t, dir, "plot", "-quiet", "-grid", "6", "-o", method+".png", model)
		runOK(t, dir, "plot", "-quiet", "-grid", "6", "-o", method+"-data.svg", model, "train.csv")
		for _, f := range []string{method + ".png", method + "-data.svg"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: no figure %s (%v)", method, f, err)
			}
		}
	}
	// -quiet prints nothing; the model is the same as without it.
	r := runOK(t, dir, "train", "-method", "archipelago", "-quiet", "-sweeps", "30", "-burn", "10",
		"-samples", "5", "-seed", "4", "train.csv", "quiet.json")
	if r.stdout != "" || r.stderr != "" {
		t.Errorf("-quiet printed %q %q", r.stdout, r.stderr)
	}
}

// libsvm data with "?" labels and 1-D inputs: trained, predicted and drawn as curves.
func TestArchipelagoFamilyLibsvm1D(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	var train, test strings.Builder
	for i := 0; i < 20; i++ {
		c := i % 2
		x := float64(4*c-2) + 0.4*rng.NormFloat64()
		label := "?"
		if i < 8 {
			label = fmt.Sprint(c)
		}
		fmt.Fprintf(&train, "%s 1:%.4f\n", label, x)
		fmt.Fprintf(&test, "%d 1:%.4f\n", c, float64(4*c-2)+0.4*rng.NormFloat64())
	}
	for name, text := range map[string]string{"train.libsvm": train.String(),
		"test.libsvm": test.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runOK(t, dir, "train", "-method", "archipelago", "-quiet", "-format", "libsvm", "-scale", "std",
		"-sweeps", "40", "-burn", "20", "-samples", "5", "train.libsvm", "m.json")
	r := runOK(t, dir, "predict", "-format", "libsvm", "test.libsvm", "m.json")
	if !strings.Contains(r.stdout, "Accuracy = ") {
		t.Errorf("predict printed %q", r.stdout)
	}
	r = runOK(t, dir, "info", "m.json")
	if !strings.Contains(r.stdout, "classes:     0 1") ||
		!strings.Contains(r.stdout, "scaled (std)") ||
		!strings.Contains(r.stdout, "8 labelled and 12 unlabelled") {
		t.Errorf("info:\n%s", r.stdout)
	}
	runOK(t, dir, "plot", "-quiet", "-grid", "20", "-o", "m.png", "m.json")
	if st, err := os.Stat(filepath.Join(dir, "m.png")); err != nil || st.Size() == 0 {
		t.Errorf("no 1-D figure: %v", err)
	}
}

// Bad input: each refused with one clear line.
func TestArchipelagoFamilyErrors(t *testing.T) {
	dir := t.TempDir()
	writePinwheel(t, filepath.Join(dir, "train.csv"), 5, 2, 1)
	files := map[string]string{
		"oneclass.csv": "0,0,1\n1,1,1\n0,1,?\n",
		"wide.csv":     "0,0,0,1\n1,1,1,2\n",
	}
	writePinwheel(t, filepath.Join(dir, "big.csv"), 100, 1, 3)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runOK(t, dir, "train", "-method", "softmax", "-quiet", "-sweeps", "8", "-burn", "4",
		"train.csv", "m.json")
	b, err := os.ReadFile(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"v2.json":         strings.Replace(string(b), "ivm-archipelago/1", "ivm-archipelago/2", 1),
		"nan.json":        strings.Replace(string(b), `"nugget":`, `"nugget":"NaN","x":`, 1),
		"rejections.json": strings.Replace(string(b), `"rejections":`, `"rejections":9`, 1),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"train", "-method", "archipelago", "oneclass.csv", "x.json"},
			"need labelled rows of at least two classes"},
		{[]string{"train", "-method", "archipelago", "-samples", "-1", "train.csv", "x.json"},
			"-samples -1"},
		{[]string{"train", "-method", "archipelago", "-scale", "log", "train.csv", "x.json"},
			`-scale "log"`},
		{[]string{"train", "-method", "softmax", "-sweeps", "10", "-burn", "10", "train.csv",
			"x.json"}, "-burn 10"},
		{[]string{"train", "-method", "archipelago", "-max-mem", "1M", "big.csv", "x.json"},
			"sampling over 300 training rows needs about"},
		{[]string{"train", "-method", "archipelago", "missing.csv", "x.json"}, "no such file"},
		{[]string{"predict", "wide.csv", "m.json"}, "expected 2"},
		{[]string{"predict", "train.csv", "v2.json"},
			`"ivm-archipelago/2" is not supported by this version (it reads "ivm-archipelago/1")`},
		{[]string{"info", "nan.json"}, "m"},
		{[]string{"info", "rejections.json"}, "rejections"},
	} {
		r := runBinary(t, dir, "", nil, c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.msg) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("ivm %s: exit %d, stderr %q, want one line with %q", strings.Join(c.args, " "),
				r.code, r.stderr, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Error("a failed train left a model file")
	}
}
