package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// writeSet writes n rows of a two-input problem as a libsvm file: three classes by angle,
// or (regression) a smooth function of the inputs.
func writeSet(t *testing.T, path string, n int, regression bool, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	x, y := mat.NewDense(n, 2, nil), make([]float64, n)
	for i := range n {
		a, b := r.NormFloat64(), r.NormFloat64()
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y[i] = float64(int((math.Atan2(b, a) + math.Pi) / (2 * math.Pi) * 3))
		if regression {
			y[i] = math.Sin(2*a) + b*b + 0.1*r.NormFloat64()
		}
	}
	var buf bytes.Buffer
	if err := dataset.WriteLibSVM(&buf, &dataset.Data{X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The driver writes a line per strategy, seed and budget and one for the full-data model;
// both strategies share each seed's start, so their first lines agree; the rows a curve
// adds are never labelled twice.
func TestRun(t *testing.T) {
	for _, regression := range []bool{false, true} {
		dir := t.TempDir()
		train, test := filepath.Join(dir, "s.train"), filepath.Join(dir, "s.test")
		writeSet(t, train, 150, regression, 1)
		writeSet(t, test, 100, regression, 2)
		args := []string{"-train", train, "-test", test, "-seeds", "2", "-budgets", "12,18,24",
			"-batch", "4", "-strategies", "mix25,random", "-out", filepath.Join(dir, "t.tsv"),
			"-picks", filepath.Join(dir, "p.tsv")}
		if regression {
			args = append(args, "-regression")
		}
		o, err := parseFlags(args)
		if err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		if err := run(o, &out, &errs); err != nil {
			t.Fatal(err)
		}
		lines := tableLines(t, filepath.Join(dir, "t.tsv"))
		if len(lines) != 1+2*2*3+1 {
			t.Fatalf("%d lines, want a header, 12 curve lines and the full model's:\n%s",
				len(lines), strings.Join(lines, "\n"))
		}
		first := map[string]string{}
		for _, l := range lines[1:] {
			f := strings.Split(l, "\t")
			if len(f) != len(columns) {
				t.Fatalf("line %q has %d fields, want %d", l, len(f), len(columns))
			}
			if f[3] == "12" {
				key, figures := f[2], strings.Join(f[4:8], " ")
				if prev, ok := first[key]; ok && prev != figures {
					t.Errorf("seed %s: start scored %s and %s", key, prev, figures)
				}
				first[key] = figures
			}
		}
		checkPicks(t, filepath.Join(dir, "p.tsv"))
		if !strings.Contains(out.String(), "full data (150 rows)") {
			t.Errorf("summary without the full-data model:\n%s", out.String())
		}
	}
}

func tableLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// checkPicks checks that no curve adds a row twice.
func checkPicks(t *testing.T, path string) {
	t.Helper()
	seen := map[string]bool{}
	for _, l := range tableLines(t, path)[1:] {
		f := strings.Split(l, "\t")
		key := f[1] + " " + f[2] + " " + f[4]
		if seen[key] {
			t.Errorf("%s added twice", key)
		}
		seen[key] = true
	}
	if len(seen) != 2*2*12 {
		t.Errorf("%d rows added, want 12 per strategy and seed", len(seen))
	}
}
