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
