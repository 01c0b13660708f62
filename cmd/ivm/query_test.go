package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// `ivm query` writes K lines "row score label" for a pool without a label column, with
// "?" labels or with labels (ignored: the same rows), best first; -prob adds a header and
// the probabilities; "-" and no OUT write to stdout, through the built binary too; a
// multi-class model queries, a projected one too; -n 0 and a pool of another width are
// refused by name.
func TestQueryCommand(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	writeBlobsCSV(t, train, 30, 8)
	model := filepath.Join(dir, "ovr.json")
	mustRun(t, "train", "-quiet", "-multiclass", "ovr", "-iters", "0", "-d", "40", train, model)
	var bare, unknown, labelled strings.Builder
	for i := range 50 {
		a, b, c := float64(i%10)*0.6-1, float64(i/10)*0.8-1, 0.1*float64(i%3)
		row := strconv.FormatFloat(a, 'g', -1, 64) + "," + strconv.FormatFloat(b, 'g', -1, 64) +
			"," + strconv.FormatFloat(c, 'g', -1, 64)
		bare.WriteString(row + "\n")
		unknown.WriteString(row + ",?\n")
		labelled.WriteString(row + "," + strconv.Itoa(1+i%5) + "\n")
	}
	var outs []string
	for name, text := range map[string]string{"bare": bare.String(), "unknown": unknown.String(),
		"labelled": labelled.String()} {
		pool, out := filepath.Join(dir, name+".csv"), filepath.Join(dir, name+".txt")
		writeTestFile(t, pool, text)
		mustRun(t, "query", "-n", "4", model, pool, out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	lines := strings.Split(strings.TrimSpace(outs[0]), "\n")
	if len(lines) != 4 || outs[1] != outs[0] || outs[2] != outs[0] {
		t.Fatalf("outputs %q: want 4 lines, the same whatever the labels", outs)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		row, err := strconv.Atoi(f[0])
		score, serr := strconv.ParseFloat(f[1], 64)
		if len(f) != 3 || err != nil || row < 0 || row >= 50 || seen[f[0]] || serr != nil ||
			!(score > 0) {
			t.Errorf("line %q: want a new row, a positive score and a label", l)
		}
		seen[f[0]] = true
	}
	pool := filepath.Join(dir, "bare.csv")
	prob := mustRun(t, "query", "-n", "2", "-prob", model, pool, "-")
	if !strings.HasPrefix(prob, "row score label p(1) p(2) p(3) p(4) p(5)\n") ||
		len(strings.Fields(strings.Split(prob, "\n")[1])) != 8 {
		t.Errorf("-prob wrote %q", prob)
	}
	if got := mustRun(t, "query", "-n", "4", model, pool); got != outs[0] {
		t.Errorf("no OUT wrote %q, want %q", got, outs[0])
	}
	got, err := exec.Command(builtIVM(t), "query", "-n", "4", model, pool, "-").Output()
	if err != nil || string(got) != outs[0] {
		t.Errorf("the binary wrote %q (%v), want %q", got, err, outs[0])
	}
	bald := mustRun(t, "query", "-n", "4", "-score", "bald", model, pool)
	if len(strings.Split(strings.TrimSpace(bald), "\n")) != 4 {
		t.Errorf("-score bald wrote %q", bald)
	}
	// A projected model queries through its query part, the binary too.
	proj := filepath.Join(dir, "projected.json")
	mustRun(t, "train", "-quiet", "-multiclass", "projected", "-d", "30", train, proj)
	if info := mustRun(t, "info", proj); !strings.Contains(info, "query:       the posterior "+
		"through") {
		t.Errorf("ivm info of a projected model says nothing of its query part:\n%s", info)
	}
	got, err = exec.Command(builtIVM(t), "query", "-n", "4", proj, pool).Output()
	if err != nil || len(strings.Split(strings.TrimSpace(string(got)), "\n")) != 4 {
		t.Errorf("a projected model's query wrote %q (%v)", got, err)
	}
	wide := filepath.Join(dir, "wide.csv")
	writeTestFile(t, wide, "1,2,3,4,5\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"query", "-n", "0", model, pool}, "-n 0"},
		{[]string{"query", "-score", "entropy", model, pool}, `unknown query score "entropy"`},
		{[]string{"query", model, wide}, "expected 3"},
	} {
		if code, _, errs := runCLI(t, tc.args...); code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errs, tc.want)
		}
	}
}
