package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ivmlab/ivm/ssmtr"
)

// On one school split the scan reproduces the finding behind bench/RESULTS.md: the evidence
// is largest at the smallest graph weight, and the tiny weight predicts as SMTR does.
func TestGraphWeightScanSchool(t *testing.T) {
	dir := t.TempDir()
	if err := linkSchool(dir); err != nil {
		t.Fatal(err)
	}
	alphas := []float64{1e-8, 1, 10}
	res, err := GraphWeightScan(ExperimentConfig{Data: "school", DataDir: dir, Splits: 1, Seed: 1,
		Options: ssmtr.Config{OuterIters: 5, Workers: 2}}, alphas)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	t.Logf("SMTR %.4f; α %v: nMSE %.4f, −ln p %.2f; per-school best %.4f",
		r.SMTR, alphas, r.Trans, r.NegLogEvidence, r.PerTaskBest)
	if math.Abs(r.Trans[0]-r.SMTR) > 1e-4 {
		t.Errorf("α = 1e-8 gives %.6f, SMTR %.6f", r.Trans[0], r.SMTR)
	}
	if !(r.NegLogEvidence[0] < r.NegLogEvidence[1] && r.NegLogEvidence[1] < r.NegLogEvidence[2]) {
		t.Errorf("−ln p over α %v: %v, want increasing", alphas, r.NegLogEvidence)
	}
	if !(r.PerTaskBest <= r.Trans[0]+1e-12) {
		t.Errorf("per-school best %.4f above the α = 1e-8 figure %.4f", r.PerTaskBest, r.Trans[0])
	}
	if _, err := GraphWeightScan(ExperimentConfig{Data: "school", DataDir: dir, Splits: 1},
		nil); err == nil {
		t.Error("no weights: no error")
	}
}

// linkSchool copies the school data in testdata to dir/school/, where ExperimentConfig
// looks for it.
func linkSchool(dir string) error {
	b, err := os.ReadFile(filepath.Join("testdata", "ssmtr", "school_mtl.csv.gz"))
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, SchoolFile)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
