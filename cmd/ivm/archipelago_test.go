package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writePinwheel writes a 3-arm pinwheel CSV (x1,x2,label) with perClass rows per
// class; the first labelled rows of each class keep their label, the rest get "?".
func writePinwheel(t *testing.T, path string, perClass, labelled int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("x1,x2,label\n")
	for k := 0; k < 3; k++ {
		for i := 0; i < perClass; i++ {
			r := 1 + 0.3*rng.NormFloat64()
			tt := 0.05 * rng.NormFloat64()
			a := 2*math.Pi*float64(k)/3 + 0.25*math.Exp(r)
			c, s := math.Cos(a), math.Sin(a)
			lab := "?"
			if i < labelled {
				lab = strconv.Itoa(k + 1)
			}
			fmt.Fprintf(&b, "%.5f,%.5f,%s\n", r*c+tt*s, -r*s+tt*c, lab)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestArchipelagoCommand(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	writePinwheel(t, train, 8, 1, 1)
	writePinwheel(t, test, 20, 20, 2)
	code, out, errs := runCLI(t, "archipelago", "-sweeps", "60", "-burn", "20", "-seed", "3", "-progress", "-softmax", train, test)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"archipelago: error", "perplexity", "softmax GP: error", "rejections"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(errs, "sweep "); n != 60 {
		t.Errorf("-progress printed %d sweep lines, want 60", n)
	}
	var e float64
	if _, err := fmt.Sscanf(out[strings.Index(out, "error"):], "error %g", &e); err != nil || !(e >= 0 && e < 0.5) {
		t.Errorf("error %v (%v) from:\n%s", e, err, out)
	}
	// Same seed, same output.
	_, out2, _ := runCLI(t, "archipelago", "-sweeps", "60", "-burn", "20", "-seed", "3", "-softmax", train, test)
	if out2 != out {
		t.Errorf("same seed, different output:\n%s\n%s", out, out2)
	}
	// Usage and data errors.
	if code, _, _ := runCLI(t, "archipelago", train); code != 2 {
		t.Errorf("one argument: exit %d, want 2", code)
	}
	writePinwheel(t, test, 5, 2, 3) // test rows with "?" labels
	if code, _, errs := runCLI(t, "archipelago", "-sweeps", "10", train, test); code != 1 || !strings.Contains(errs, "unlabelled") {
		t.Errorf("unlabelled test rows: exit %d, %s", code, errs)
	}
}
