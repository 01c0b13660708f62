package engine_test

// Parity with the reference MATLAB toolbox (testdata/ref/README.md).
//
// For each run NAME = <data>_d<d>_fixed in testdata/ref/runs:
//   NAME_summary.txt            key value… lines (noise_params_final_natural(…) holds the bias
//                               first)
//   NAME_active.csv             k, index (1-based), Δ (bits), ties, site m, site β, ν, g
//   NAME_testpred.csv.gz        probit/ncnm: μ, ς, p(y=+1), label; gaussian: μ, ς, mean, var;
//                               ordered: μ, ς, category
//   NAME_train_mu_varsigma.csv.gz  final μ, ς of every training point
// The kernel is rbf(γ=1, variance=1) + bias(e⁻²) + white(e⁻²) (ncnm: rbf + white).

import (
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// readCSV reads a numeric CSV fixture (gzipped when its name ends in .gz).
func readCSV(t testing.TB, path string) [][]float64 {
	t.Helper()
	rows, err := reftest.ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// readXY reads a reference data set as inputs and targets (the last column).
func readXY(t testing.TB, name string) (*mat.Dense, []float64) {
	t.Helper()
	x, y, err := reftest.ReadXY(name)
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

// near reports whether a and b agree to rel relative error (with a tiny absolute floor for
// values that are zero in exact arithmetic).
func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))+1e-12
}

// relErr is |a − b| / max(|a|, |b|) (0 when both are 0).
func relErr(a, b float64) float64 {
	m := math.Max(math.Abs(a), math.Abs(b))
	if m == 0 {
		return 0
	}
	return math.Abs(a-b) / m
}

type parityRun struct {
	name, train, test string
	noise             string
	kernel            string
	fullActive        bool // false: compare only the first 10 (regression scores tie to 1e−9)
}

const refKernel = "rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+" +
	"white(variance=0.1353352832366127)"

var parityRuns = []parityRun{
	{"class500_d100_fixed", "class_train_500.csv", "class_test_2000.csv", "probit",
		refKernel, true},
	{"class500_d200_fixed", "class_train_500.csv", "class_test_2000.csv", "probit",
		refKernel, true},
	{"class5000_d100_fixed", "class_train_5000.csv", "class_test_2000.csv", "probit",
		refKernel, true},
	{"class5000_d200_fixed", "class_train_5000.csv", "class_test_2000.csv", "probit",
		refKernel, true},
	{"reg2000_d100_fixed", "reg_train_2000.csv", "reg_test_1000.csv", "gaussian", refKernel, false},
	{"ord500_d100_fixed", "ord_train_500.csv", "ord_test_1000.csv", "ordinal", refKernel, true},
	{"semi500_d100_fixed", "semi_train_500.csv", "class_test_2000.csv", "ncnm",
		"rbf(gamma=1,variance=1)+white(variance=0.1353352832366127)", true},
}

func TestParityWithReference(t *testing.T) {
	for _, run := range parityRuns {
		t.Run(run.name, func(t *testing.T) { checkParity(t, run) })
	}
}

func checkParity(t *testing.T, run parityRun) {
	const rel = 1e-6
	x, y := readXY(t, run.train)
	xt, _ := readXY(t, run.test)
	_, dim := x.Dims()
	k, err := kern.Parse(run.kernel, dim)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := noise.ByName(run.noise)
	if err != nil {
		t.Fatal(err)
	}
	runs := reftest.Path("runs", run.name)
	sum, err := reftest.ReadSummary(run.name)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := strconv.Atoi(sum["d"][0])

	sel, err := engine.NewSelector(x, y, k, nm, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sel.Select(d); err != nil {
		t.Fatal(err)
	}

	// The start-up bias (first noise parameter) as the reference sets it.
	wantBias, _ := strconv.ParseFloat(sum["noise_params_final_natural"][0], 64)
	p := make([]float64, nm.NumParams())
	nm.Params(p)
	if !near(p[0], wantBias, 1e-12) {
		t.Errorf("bias %v, reference %v", p[0], wantBias)
	}

	// The active set, in inclusion order, and each inclusion's site.
	ref := readCSV(t, runs+"_active.csv")
	steps := sel.Steps()
	compare := len(ref)
	if !run.fullActive {
		compare = 10
	}
	mismatch := 0
	for k := 0; k < compare; k++ {
		got, want := steps[k], ref[k]
		if got.Index != int(want[1])-1 {
			t.Errorf("inclusion %d: point %d, reference %d", k+1, got.Index+1, int(want[1]))
			if mismatch++; mismatch > 3 {
				t.FailNow()
			}
			continue
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"Δ", got.Delta, want[2]}, {"site m", got.SiteM, want[4]},
			{"site β", got.SiteBeta, want[5]}, {"ν", got.Nu, want[6]}, {"g", got.G, want[7]}} {
			if !near(c.got, c.want, rel) {
				t.Errorf("inclusion %d (point %d): %s = %v, reference %v", k+1, got.Index+1,
					c.what, c.got, c.want)
			}
		}
		if k == 0 && got.Ties != int(want[3]) {
			t.Errorf("ties at step 1: %d, reference %d", got.Ties, int(want[3]))
		}
	}

	// Final μ, ς of every training point.
	trainRef := readCSV(t, runs+"_train_mu_varsigma.csv.gz")
	mu, vs := sel.Mean(), sel.Var()
	bad := 0
	for i, r := range trainRef {
		if !near(mu[i], r[0], rel) || !near(vs[i], r[1], rel) {
			if bad++; bad <= 3 {
				t.Errorf("training point %d: μ, ς = %v, %v; reference %v, %v", i+1, mu[i], vs[i],
					r[0], r[1])
			}
		}
	}

	// Test predictions.
	model, err := sel.Model()
	if err != nil {
		t.Fatal(err)
	}
	if model.Jitter != 0 {
		t.Errorf("jitter %v needed", model.Jitter)
	}
	testRef := readCSV(t, runs+"_testpred.csv.gz")
	tmu, tvs := model.Latent(xt, nil, nil)
	preds := model.Predict(xt)
	bad = 0
	worst := 0.0
	for i, r := range testRef {
		worst = math.Max(worst, math.Max(relErr(tmu[i], r[0]), relErr(tvs[i], r[1])))
		if run.noise == "probit" || run.noise == "ncnm" {
			worst = math.Max(worst, relErr(preds[i].Prob[1], r[2]))
		}
		ok := near(tmu[i], r[0], rel) && near(tvs[i], r[1], rel)
		switch run.noise {
		case "probit", "ncnm":
			ok = ok && near(preds[i].Prob[1], r[2], rel) && preds[i].Label == r[3]
		case "gaussian":
			ok = ok && near(preds[i].Mean, r[2], rel) && near(preds[i].Var, r[3], rel)
		case "ordinal":
			ok = ok && preds[i].Label == r[2]
		}
		if !ok {
			if bad++; bad <= 3 {
				t.Errorf("test point %d: μ %v ς %v pred %+v; reference %v", i+1,
					tmu[i], tvs[i], preds[i], r)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d test predictions differ", bad, len(testRef))
	}
	same := 0
	for k := range ref {
		if k < len(steps) && steps[k].Index == int(ref[k][1])-1 {
			same++
		}
	}
	t.Logf("%s: %d of %d inclusions identical in order; largest relative difference in "+
		"test μ, ς, p: %.2g", run.name, same, len(ref), worst)
}
