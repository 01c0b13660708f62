package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// writeBlobsCSV writes a multi-class CSV (label last) of 5 classes in 3 inputs.
func writeBlobsCSV(t *testing.T, path string, perClass int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for i := 0; i < perClass; i++ {
		for c := 1; c <= 5; c++ {
			fmt.Fprintf(&b, "%.4f,%.4f,%.4f,%d\n", float64(c%3)*2+rng.NormFloat64(),
				float64(c/3)*2+rng.NormFloat64(), rng.NormFloat64(), c)
		}
	}
	writeTestFile(t, path, b.String())
}

// The parts of `ivm train -part i/K`, run as separate processes at once and merged, predict
// byte for byte what a single run predicts, with the defaults (one-vs-one: every part
// searches the kernels of its pairs) and with Algorithm 2 (one-vs-rest, a kernel learnt per
// class).
func TestMergeOfPartProcessesEqualsSingleRun(t *testing.T) {
	bin := builtIVM(t)
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	writeBlobsCSV(t, train, 40, 3)
	checkPartProcesses(t, bin, dir, train, []string{"train", "-quiet", "-d", "30"})
	flags := []string{"train", "-quiet", "-d", "30", "-iters", "1", "-kiters", "5"}
	whole, parts, merged := checkPartProcesses(t, bin, dir, train, flags)

	if out := mustRun(t, "info", parts[1]); !strings.Contains(out,
		"part 1/3: classes 2 3 of 1 2 3 4 5") || !strings.Contains(out, "class 3 ") {
		t.Errorf("ivm info of a part:\n%s", out)
	}

	// What merge and predict refuse.
	other := filepath.Join(dir, "other.csv")
	writeBlobsCSV(t, other, 40, 4)
	otherPart := filepath.Join(dir, "other0.json")
	mustRun(t, append(flags, "-part", "0/3", other, otherPart)...)
	flagPart := filepath.Join(dir, "flag0.json")
	mustRun(t, "train", "-quiet", "-d", "31", "-iters", "1", "-kiters", "5", "-part", "0/3",
		train, flagPart)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", parts[0], parts[1], merged}, "part 2/3 is missing"},
		{[]string{"merge", parts[0], parts[1], parts[1], parts[2], merged}, "given twice"},
		{[]string{"merge", otherPart, parts[1], parts[2], merged}, "other data"},
		{[]string{"merge", flagPart, parts[1], parts[2], merged}, "need the same flags"},
		{[]string{"merge", whole, merged}, "not a part file"},
		{[]string{"predict", train, parts[0]}, "merge the parts first"},
		{[]string{"train", "-tasks", "-part", "0/2", train, merged}, "not available with -tasks"},
		{[]string{"train", "-part", "3/3", train, merged}, "0 ≤ i < K"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("ivm %s: exit %d, %q; want an error with %q", strings.Join(c.args, " "),
				code, stderr, c.want)
		}
	}
}

// checkPartProcesses runs a training (flags) as one process and as 3 part processes at once,
// merges the parts and checks that `predict -prob` writes the same bytes for both models.
func checkPartProcesses(t *testing.T, bin, dir, train string,
	flags []string) (whole string, parts []string, merged string) {
	t.Helper()
	runBin := func(args ...string) error {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ivm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	whole = filepath.Join(dir, "whole.json")
	if err := runBin(append(flags, train, whole)...); err != nil {
		t.Fatal(err)
	}
	const k = 3
	parts = make([]string, k)
	errs := make([]error, k)
	var wg sync.WaitGroup
	for i := range parts {
		parts[i] = filepath.Join(dir, fmt.Sprintf("part%d.json", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = runBin(append(flags, "-part", fmt.Sprintf("%d/%d", i, k), "-workers", "1",
				train, parts[i])...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	merged = filepath.Join(dir, "merged.json")
	mustRun(t, "merge", "-quiet", parts[2], parts[0], parts[1], merged)
	want, got := filepath.Join(dir, "want.txt"), filepath.Join(dir, "got.txt")
	mustRun(t, "predict", "-quiet", "-prob", train, whole, want)
	mustRun(t, "predict", "-quiet", "-prob", train, merged, got)
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(got)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("%v: the merged model's predictions differ from the single run's "+
			"(%d and %d bytes)", flags, len(a), len(b))
	}
	return whole, parts, merged
}
