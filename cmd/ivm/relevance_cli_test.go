package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A regression file of more rows than the exact GP takes, whose target depends on its
// first input of four: train chooses the relevance scaling, and info names the input.
func TestRelevanceScalingCLI(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := 0; i < 800; i++ {
		x := []float64{
			6*rng.Float64() - 3, 6*rng.Float64() - 3, 6*rng.Float64() - 3, 6*rng.Float64() - 3,
		}
		fmt.Fprintf(&b, "%.6g 1:%.6g 2:%.6g 3:%.6g 4:%.6g\n",
			math.Sin(2*x[0])+0.1*rng.NormFloat64(), x[0], x[1], x[2], x[3])
	}
	train, model := filepath.Join(dir, "wavy.libsvm"), filepath.Join(dir, "m.json")
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The binary, as a user runs it: the relevance fit's progress line, then the search's.
	r := runBinary(t, dir, "", nil, "train", "-noise", "gaussian", train, model)
	if r.code != 0 || !strings.Contains(r.stderr, "the relevance scaling's weights") ||
		!strings.Contains(r.stdout, "inputs scaled (relevance)") {
		t.Errorf("train: exit %d, printed\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, dir, "", nil, "info", model)
	if r.code != 0 ||
		!strings.Contains(r.stdout, "relevance:   input weights (1: the most relevant) 1: 1, ") {
		t.Errorf("info: exit %d, printed\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A projected model whose scaling takes the logarithm of its first input and whose score
// map weighs the classes' log probabilities (as ivm train writes them for long-tailed
// inputs and rare classes): info names both, and predict applies both, as computed here.
func TestLogScalingAndWeightsCLI(t *testing.T) {
	dir := t.TempDir()
	model := `{"format":"ivm-model/1","task":"binary","classes":[0,1],"softmax":true,` +
		`"scale":{"kind":"std","shift":[1,0],"factor":[2,1],"log":[0.5,0]},` +
		`"projected":{"kernel_spec":"rbf(gamma=1,variance=1)","lambda":1,` +
		`"centres":[[0,0]],"weights":[[-0.6,0.6]],` +
		`"score_mix":[[1,0],[0,1]],"score_offset":[0,-1],` +
		`"score_log_weight":[0.5,2],"score_log_floor":0.001}}`
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("m.json", model)
	write("test.csv", "1.5,0.5,1\n-3,2,0\n")
	r := runOK(t, dir, "info", "m.json")
	for _, want := range []string{"scaled (std of ln(1 + x/u) in columns 1)",
		"b_c·ln q_c", "max((f + 1)/2, 0.001)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("info does not say %q:\n%s", want, r.stdout)
		}
	}
	r = runOK(t, dir, "predict", "-prob", "test.csv", "m.json", "-")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("predict printed\n%s", r.stdout)
	}
	for i, x := range [][2]float64{{1.5, 0.5}, {-3, 2}} {
		// Scaled inputs, latents, the score map and its softmax, as the file says.
		s0 := (math.Log1p(max(x[0], 0)/0.5) - 1) * 2
		k := math.Exp(-0.5 * (s0*s0 + x[1]*x[1]))
		f := []float64{-0.6 * k, 0.6 * k}
		z := []float64{f[0], f[1] - 1}
		for c, b := range []float64{0.5, 2} {
			z[c] += b * math.Log(max((f[c]+1)/2, 0.001))
		}
		p1 := 1 / (1 + math.Exp(z[0]-z[1]))
		var got [2]float64
		if _, err := fmt.Sscan(lines[i+1], new(float64), &got[0], &got[1]); err != nil {
			t.Fatalf("line %q: %v", lines[i+1], err)
		}
		if math.Abs(got[1]-p1) > 1e-6 {
			t.Errorf("row %d: p(1) = %v, want %v", i+1, got[1], p1)
		}
	}
}

// A projected regression with an additive part (as ivm train writes one for targets that
// are close to a sum of one-input effects): info describes it, and predict adds it to the
// rbf's latent, as computed here.
func TestAdditiveCLI(t *testing.T) {
	dir := t.TempDir()
	model := `{"format":"ivm-model/1","task":"regression",` +
		`"projected":{"kernel_spec":"rbf(gamma=1,variance=1)","lambda":1,` +
		`"centres":[[0,0]],"weights":[[0.5]],"score_mix":[[1]],"score_offset":[2],` +
		`"noise_variance":0.25,"additive":{"variance":0.1,` +
		`"inputs":[{"input":1,"gamma":4,"knots":[0,1]}],"weights":[[1],[-3]]}}}`
	for name, text := range map[string]string{"m.json": model,
		"test.csv": "0.5,0.25,1\n-1,2,0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runOK(t, dir, "info", "m.json")
	if want := "an rbf of each of inputs 2 alone through 2 knots"; !strings.Contains(r.stdout,
		want) {
		t.Errorf("info does not say %q:\n%s", want, r.stdout)
	}
	r = runOK(t, dir, "predict", "test.csv", "m.json", "-")
	lines := strings.Fields(r.stdout)
	if len(lines) < 2 {
		t.Fatalf("predict printed\n%s", r.stdout)
	}
	for i, x := range [][2]float64{{0.5, 0.25}, {-1, 2}} {
		rbf := 0.5 * math.Exp(-0.5*(x[0]*x[0]+x[1]*x[1]))
		add := math.Exp(-2*x[1]*x[1]) - 3*math.Exp(-2*(x[1]-1)*(x[1]-1))
		var got float64
		if _, err := fmt.Sscan(lines[i], &got); err != nil {
			t.Fatalf("line %q: %v", lines[i], err)
		}
		if want := rbf + add + 2; math.Abs(got-want) > 1e-6 {
			t.Errorf("row %d: prediction %v, want %v", i+1, got, want)
		}
	}
}
