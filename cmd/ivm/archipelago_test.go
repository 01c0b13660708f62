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
	writeTestFile(t, path, b.String())
}

func TestArchipelagoCommand(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	writePinwheel(t, train, 8, 1, 1)
	writePinwheel(t, test, 20, 20, 2)
	code, out, errs := runCLI(t, "archipelago", "-sweeps", "60", "-burn", "20", "-seed", "3",
		"-progress", "-softmax", train, test)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"archipelago: error", "perplexity", "softmax GP: error",
		"rejections"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(errs, "sweep "); n != 60 {
		t.Errorf("-progress printed %d sweep lines, want 60", n)
	}
	var e float64
	if _, err := fmt.Sscanf(out[strings.Index(out, "error"):], "error %g", &e); err != nil ||
		!(e >= 0 && e < 0.5) {
		t.Errorf("error %v (%v) from:\n%s", e, err, out)
	}
	// Same seed, same output.
	_, out2, _ := runCLI(t, "archipelago", "-sweeps", "60", "-burn", "20", "-seed", "3", "-softmax",
		train, test)
	if out2 != out {
		t.Errorf("same seed, different output:\n%s\n%s", out, out2)
	}
	// Usage and data errors.
	if code, _, _ := runCLI(t, "archipelago", train); code != 2 {
		t.Errorf("one argument: exit %d, want 2", code)
	}
	writePinwheel(t, test, 5, 2, 3) // test rows with "?" labels
	if code, _, errs := runCLI(t, "archipelago", "-sweeps", "10", train, test); code != 1 ||
		!strings.Contains(errs, "unlabelled") {
		t.Errorf("unlabelled test rows: exit %d, %s", code, errs)
	}
}

// -o draws the mode and entropy maps, a row per method; it refuses a figure
// format it cannot write and inputs that are not 2-D before any sampling.
func TestArchipelagoMaps(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	writePinwheel(t, train, 8, 1, 1)
	writePinwheel(t, test, 10, 10, 2)
	fig := filepath.Join(dir, "maps.png")
	code, out, errs := runCLI(t, "archipelago", "-sweeps", "30", "-burn", "10", "-softmax",
		"-grid", "8", "-o", fig, train, test)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "maps: "+fig) {
		t.Errorf("output does not name the figure:\n%s", out)
	}
	// Two rows (Archipelago, softmax GP) of 9 cm at 96 dpi.
	if _, h := pngSize(t, fig); h != 680 && h != 681 {
		t.Errorf("figure %d pixels high, want two 9 cm rows", h)
	}
	if code, _, errs := runCLI(t, "archipelago", "-sweeps", "5", "-o", filepath.Join(dir, "m.jpg"),
		train, test); code != 1 || !strings.Contains(errs, ".png, .svg or .pdf") {
		t.Errorf("-o m.jpg: exit %d, %s", code, errs)
	}
	three := filepath.Join(dir, "three.csv")
	writeTestFile(t, three, "a,b,c,label\n0,0,0,1\n1,1,1,2\n0,1,0,?\n")
	if code, _, errs := runCLI(t, "archipelago", "-sweeps", "5", "-o", fig, three,
		three); code != 1 || !strings.Contains(errs, "2-D") {
		t.Errorf("3-D inputs: exit %d, %s", code, errs)
	}
}

// The shorthand is train then predict: at the same seed and flags it prints the test
// error and perplexity that "ivm predict" gives with the model "ivm train" wrote; its
// data flags read libsvm as well.
func TestArchipelagoShorthandIsTrainPredict(t *testing.T) {
	dir := t.TempDir()
	train, test, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv"),
		filepath.Join(dir, "m.json")
	writePinwheel(t, train, 8, 2, 1)
	writePinwheel(t, test, 10, 10, 2)
	flags := []string{"-sweeps", "30", "-burn", "10", "-samples", "7", "-seed", "5"}
	out := mustRun(t, append(append([]string{"archipelago"}, flags...), train, test)...)
	var e, perp float64
	if _, err := fmt.Sscanf(out, "archipelago: error %g  perplexity %g", &e, &perp); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	mustRun(t, append(append([]string{"train", "-method", "archipelago", "-quiet"}, flags...),
		train, model)...)
	pred := mustRun(t, "predict", test, model)
	var correct, total int
	var perp2 float64
	if _, err := fmt.Sscanf(pred[strings.Index(pred, "("):], "(%d/%d)", &correct,
		&total); err != nil {
		t.Fatalf("%v in %q", err, pred)
	}
	if _, err := fmt.Sscanf(pred[strings.Index(pred, "Perplexity"):], "Perplexity = %g",
		&perp2); err != nil {
		t.Fatalf("%v in %q", err, pred)
	}
	if math.Abs(1-float64(correct)/float64(total)-e) > 1e-4 || math.Abs(perp-perp2) > 1e-4 {
		t.Errorf("shorthand: error %v perplexity %v; train + predict: %d/%d right, perplexity %v",
			e, perp, correct, total, perp2)
	}
	// libsvm through the shared data flags.
	var ltrain, ltest strings.Builder
	for _, c := range []struct {
		src string
		dst *strings.Builder
	}{{train, &ltrain}, {test, &ltest}} {
		b, err := os.ReadFile(c.src)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			f := strings.Split(line, ",")
			fmt.Fprintf(c.dst, "%s 1:%s 2:%s\n", f[2], f[0], f[1])
		}
	}
	lt, ls := filepath.Join(dir, "train.libsvm"), filepath.Join(dir, "test.libsvm")
	os.WriteFile(lt, []byte(ltrain.String()), 0o644)
	os.WriteFile(ls, []byte(ltest.String()), 0o644)
	if out2 := mustRun(t, append(append([]string{"archipelago", "-format", "libsvm"}, flags...),
		lt, ls)...); out2 != out {
		t.Errorf("libsvm gave\n%s\nCSV\n%s", out2, out)
	}
}
