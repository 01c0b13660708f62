package reproduce

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ivmlab/ivm/ssmtr"
)

// reducedRun runs the four methods on nsplit splits and returns the mean transductive and
// inductive nMSE of each.
func reducedRun(t *testing.T, draw func(rng *rand.Rand) ([]Split, error), p Protocol,
	nsplit int) (trans, induct [4]float64) {
	t.Helper()
	methods := []ssmtr.Method{ssmtr.SSTR, ssmtr.SMTR, ssmtr.SSMTR, ssmtr.SSMTRPI}
	for s := 0; s < nsplit; s++ {
		splits, err := draw(rand.New(rand.NewPCG(1, uint64(s))))
		if err != nil {
			t.Fatal(err)
		}
		res, err := RunSplit(splits, methods, ssmtr.Config{Targets: p.Targets,
			AlphaPrior: p.AlphaPrior, OuterIters: 3, InnerIters: 30})
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range res {
			if math.IsNaN(r.Trans) || math.IsNaN(r.Induct) {
				t.Fatalf("%v: nMSE is NaN", r.Method)
			}
			trans[k] += r.Trans / float64(nsplit)
			induct[k] += r.Induct / float64(nsplit)
		}
	}
	for k, m := range methods {
		t.Logf("%-8v transductive %.4f inductive %.4f", m, trans[k], induct[k])
	}
	return
}

// TestSARCOSReduced runs the paper's comparison at reduced size on 600 SARCOS rows
// (testdata): 7 tasks of 250 points, 6 % labelled (15), 16 % unlabelled (40), 40 pairs
// per task, 2 splits. It checks what holds robustly at this size: SMTR is no worse than
// independent GPs, SSMTR no worse than SMTR by more than 3 % (when written 0.484 against
// 0.527; on the full protocol SSMTR is below SMTR on 8 of 10 splits; with α_i under the
// common prior it was 3–6 % above), and the constraints help clearly (SSMTRPI below SSMTR
// by a fifth). The full protocol's ordering
// is measured by `ivm reproduce ssmtr-sarcos`.
func TestSARCOSReduced(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: runs the SARCOS protocol on 600 rows")
	}
	x, y, err := LoadSARCOS(filepath.Join("testdata", "ssmtr", "sarcos600.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	p := SARCOSProtocol
	p.LabelFrac, p.UnlabelFrac, p.Pairs = 0.06, 0.16, 7*40
	tr, _ := reducedRun(t, func(rng *rand.Rand) ([]Split, error) {
		return SARCOSSplits(x, y, 250, p, rng)
	}, p, 2)
	if tr[1] > tr[0] {
		t.Errorf("SMTR %.4f is worse than SSTR %.4f", tr[1], tr[0])
	}
	if tr[2] > 1.03*tr[1] {
		t.Errorf("SSMTR %.4f is worse than SMTR %.4f by more than 3 %%", tr[2], tr[1])
	}
	if tr[3] > 0.8*tr[2] {
		t.Errorf("SSMTRPI %.4f is not clearly below SSMTR %.4f", tr[3], tr[2])
	}
}

// TestSchoolReduced runs the school protocol (2 % / 20 %) on the first 60 schools, 2
// splits, with 7 order constraints per school, and checks that the multi-task methods beat
// independent GPs (which with one or two labels per school cannot learn anything) and the
// prior mean (every student predicted by the labelled mean), and that the constraints help.
// On fewer schools (15 or 30) the shared kernel parameters, fitted by maximum likelihood to
// 30–60 labels, can overfit (σ → 0 with a short length scale) and lose to the prior mean.
func TestSchoolReduced(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: runs the school protocol on 60 schools")
	}
	xs, ys, err := LoadSchool(filepath.Join("testdata", "ssmtr", "school_mtl.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 139 {
		t.Fatalf("%d schools, want 139", len(xs))
	}
	xs, ys = xs[:60], ys[:60]
	p := SchoolProtocol
	p.Pairs = 7 * 60
	var ref [2]float64
	tr, in := reducedRun(t, func(rng *rand.Rand) ([]Split, error) {
		splits, err := SchoolSplits(xs, ys, p, rng)
		if err == nil {
			rt, ri, _, _ := PriorMeanNMSE(splits, p.Targets)
			ref[0], ref[1] = ref[0]+rt/2, ref[1]+ri/2
		}
		return splits, err
	}, p, 2)
	t.Logf("mean y   transductive %.4f inductive %.4f", ref[0], ref[1])
	for k := 1; k < 4; k++ {
		if !(tr[k] < tr[0]) || !(in[k] < in[0]) {
			t.Errorf("%v (%.4f/%.4f) does not beat SSTR (%.4f/%.4f)",
				ssmtr.Method(k), tr[k], in[k], tr[0], in[0])
		}
		if !(tr[k] < ref[0]) || !(in[k] < ref[1]) {
			t.Errorf("%v (%.4f/%.4f) does not beat the prior mean (%.4f/%.4f)",
				ssmtr.Method(k), tr[k], in[k], ref[0], ref[1])
		}
	}
	if !(tr[3] < 0.95*tr[2]) {
		t.Errorf("SSMTRPI %.4f is not below SSMTR %.4f by 5 %%", tr[3], tr[2])
	}
}

// TestPairsCountedOverTasks checks that Protocol.Pairs is the number of constraints over
// all tasks (the paper's 100 per data set), divided as evenly as the tasks allow.
func TestPairsCountedOverTasks(t *testing.T) {
	x, y, err := LoadSARCOS(filepath.Join("testdata", "ssmtr", "sarcos600.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, total := range []int{0, 5, 7, 100} {
		p := SARCOSProtocol
		p.Pairs = total
		splits, err := SARCOSSplits(x, y, 300, p, rand.New(rand.NewPCG(3, 0)))
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for i, s := range splits {
			sum += len(s.Pairs)
			if n := len(s.Pairs); n < total/7 || n > total/7+1 {
				t.Errorf("%d pairs in all: task %d has %d", total, i, n)
			}
		}
		if sum != total {
			t.Errorf("%d pairs asked for, %d drawn", total, sum)
		}
	}
}

func TestPriorMeanNMSE(t *testing.T) {
	splits := []Split{
		{Y: []float64{1, 3}, YU: []float64{0, 4}, YT: []float64{2, 6}},
		{Y: []float64{10}, YU: []float64{10, 12}, YT: []float64{9, 11}},
	}
	// Per task: task 1 predicts 2 (unlabelled MSE 4 / var 4; test MSE 8 / var 4), task 2
	// predicts 10 (unlabelled MSE 2 / var 1; test MSE 1 / var 1).
	tr, in, trp, inp := PriorMeanNMSE(splits, ssmtr.PerTask)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"trans", tr, 1.5}, {"induct", in, 1.5}, {"trans pooled", trp, 12.0 / 10},
		{"induct pooled", inp, 18.0 / 10}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("per-task %s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Pooled: every point predicted by 14/3, the mean of the three labels.
	m := 14.0 / 3
	sq := func(v float64) float64 { return v * v }
	wantTr := ((sq(m)+sq(m-4))/2/4 + (sq(m-10)+sq(m-12))/2/1) / 2
	wantIn := ((sq(m-2)+sq(m-6))/2/4 + (sq(m-9)+sq(m-11))/2/1) / 2
	tr, in, _, _ = PriorMeanNMSE(splits, ssmtr.Pooled)
	if math.Abs(tr-wantTr) > 1e-12 || math.Abs(in-wantIn) > 1e-12 {
		t.Errorf("pooled scaling: trans %v induct %v, want %v %v", tr, in, wantTr, wantIn)
	}
	// None: the models' prior mean is 0.
	tr, _, _, _ = PriorMeanNMSE(splits, ssmtr.Unscaled)
	wantTr = ((sq(0)+sq(4))/2/4 + (sq(10)+sq(12))/2/1) / 2
	if math.Abs(tr-wantTr) > 1e-12 {
		t.Errorf("no scaling: trans %v, want %v", tr, wantTr)
	}
}
