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

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/noise"
)

// familyCSV writes n rows "x1,x2,label" with x1 uniform on [−3, 3] and x2 standard normal,
// labelled by label(x1, row); a NaN label is written as CSV's unlabelled mark, "?".
func familyCSV(t *testing.T, path string, n int, seed uint64,
	label func(x1 float64, i int, rng *rand.Rand) float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 29))
	var b strings.Builder
	for i := 0; i < n; i++ {
		x1, x2 := 6*rng.Float64()-3, rng.NormFloat64()
		y := label(x1, i, rng)
		ys := strconv.FormatFloat(y, 'g', -1, 64)
		if math.IsNaN(y) {
			ys = "?"
		}
		fmt.Fprintf(&b, "%g,%g,%s\n", x1, x2, ys)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantPredictionLine is the line `ivm predict -prob` writes for q (see writePredictions).
func wantPredictionLine(task ivm.Task, q noise.Prediction) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if task == ivm.Regression {
		return g(q.Mean) + " " + g(q.Var)
	}
	f := []string{g(q.Label)}
	for _, v := range q.Prob {
		f = append(f, g(v))
	}
	for c := range q.Latent {
		f = append(f, g(q.Latent[c]))
		if q.LatentVar != nil { // a projected model's latents have none
			f = append(f, g(q.LatentVar[c]))
		}
	}
	return strings.Join(f, " ")
}

// Every single-task IVM family through the built binary: `ivm train` → MODEL → `ivm
// predict -prob` on held-out rows → `ivm info`. The training summary names the task, the
// accuracy (or error) line has its documented format and a floor, the predictions file
// holds a header and one line per held-out row, each exactly what the Go API predicts with
// the loaded model, and info names the task, its classes and the training file.
func TestIVMFamiliesTrainPredictInfo(t *testing.T) {
	dir := t.TempDir()
	class3 := func(x1 float64, _ int, _ *rand.Rand) float64 {
		switch {
		case x1 < -1:
			return 1
		case x1 < 1:
			return 2
		}
		return 3
	}
	for _, c := range []struct {
		name  string
		flags []string
		label func(x1 float64, i int, rng *rand.Rand) float64
		// test labels the held-out rows (nil: as label).
		test func(x1 float64, i int, rng *rand.Rand) float64
		// summary is in train's first line, info in info's output, header the
		// predictions file's first line; minAcc is the accuracy floor in percent
		// (regression: maxMSE bounds the mean squared error).
		summary, info, header string
		minAcc, maxMSE        float64
	}{
		{name: "binary", flags: []string{"-d", "40"},
			label:   func(x1 float64, _ int, _ *rand.Rand) float64 { return 2 + 5*b2f(x1 > 0.3) },
			summary: ": binary, probit noise, kernel ", info: "task:        binary, classes 2 7",
			header: "label p(2) p(7) latent_mean latent_variance", minAcc: 90},
		{name: "binary_blend", // no flags: the label regression and the probit model, blended
			label: func(x1 float64, _ int, rng *rand.Rand) float64 {
				return 2 + 5*b2f(x1+0.5*rng.NormFloat64() > 0.3)
			},
			summary: ": binary, a blend of 2 models (probabilities averaged; " +
				"labels: gaussian noise, kernel ",
			info: "task:        binary, classes 2 7 " +
				"(a blend of 2 models, probabilities averaged)",
			header: "label p(2) p(7) latent_mean(labels) latent_variance(labels) " +
				"latent_mean(probit) latent_variance(probit)",
			minAcc: 75},
		{name: "multiclass", flags: []string{"-d", "40", "-multiclass", "ovr"}, label: class3,
			summary: ": multiclass (3 one-vs-rest models), probit noise, 40 active points each",
			info:    "task:        multiclass, classes 1 2 3",
			header: "label p(1) p(2) p(3) latent_mean(1) latent_variance(1) " +
				"latent_mean(2) latent_variance(2) latent_mean(3) latent_variance(3)",
			minAcc: 90},
		{name: "multiclass_ovo", label: class3, // the default on few rows: one-vs-one
			summary: ": multiclass (3 one-vs-one pairs, probabilities coupled), probit noise; " +
				"classes 1 and 2: kernel ",
			info: "task:        multiclass, classes 1 2 3 " +
				"(one-vs-one: 3 pairs, probabilities coupled)",
			header: "label p(1) p(2) p(3) latent_mean(1,2) latent_variance(1,2) " +
				"latent_mean(1,3) latent_variance(1,3) latent_mean(2,3) latent_variance(2,3)",
			minAcc: 90},
		{name: "multiclass_projected", flags: []string{"-multiclass", "projected", "-d", "60"},
			label: class3,
			summary: ": multiclass (projected: the 3 classes' codes regressed through " +
				"60 shared centres), kernel rbf(gamma=",
			info: "task:        multiclass, classes 1 2 3 " +
				"(projected: every class's code regressed through shared centres)",
			header: "label p(1) p(2) p(3) latent(1) latent(2) latent(3)", minAcc: 85},
		{name: "regression", flags: []string{"-d", "40"},
			label: func(x1 float64, _ int, rng *rand.Rand) float64 {
				return math.Sin(x1) + 0.1*rng.NormFloat64()
			},
			summary: ": regression, gaussian noise, kernel ", info: "task:        regression",
			header: "mean variance", maxMSE: 0.05},
		{name: "ordinal", flags: []string{"-noise", "ordinal", "-d", "40", "-iters", "2"},
			label:   class3,
			summary: ": ordinal, ordinal noise, kernel ",
			info:    "task:        ordinal, classes 1 2 3",
			header:  "label p(1) p(2) p(3) latent_mean latent_variance", minAcc: 85},
		{name: "semisupervised", flags: []string{"-noise", "ncnm", "-d", "40", "-iters", "2"},
			// One training row in four labelled, the rest "?"; the held-out rows all labelled.
			label: func(x1 float64, i int, _ *rand.Rand) float64 {
				if i%4 != 0 {
					return math.NaN()
				}
				return 2*b2f(x1 > 0) - 1
			},
			test:    func(x1 float64, _ int, _ *rand.Rand) float64 { return 2*b2f(x1 > 0) - 1 },
			summary: ": semisupervised, ncnm noise, kernel ",
			info:    "task:        semisupervised, classes -1 1",
			header:  "label p(-1) p(1) latent_mean latent_variance", minAcc: 85},
	} {
		t.Run(c.name, func(t *testing.T) {
			train, test := filepath.Join(dir, c.name+"_train.csv"),
				filepath.Join(dir, c.name+"_test.csv")
			model, pred := filepath.Join(dir, c.name+".json"), filepath.Join(dir, c.name+".out")
			familyCSV(t, train, 120, 1, c.label)
			testLabel := c.test
			if testLabel == nil {
				testLabel = c.label
			}
			familyCSV(t, test, 60, 2, testLabel)

			r := runBinary(t, dir, "", nil,
				append(append([]string{"train", "-workers", "1"}, c.flags...), train, model)...)
			if r.code != 0 {
				t.Fatalf("train: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if first, _, _ := strings.Cut(r.stdout, "\n"); !strings.HasPrefix(first, model) ||
				!strings.Contains(first, c.summary) {
				t.Errorf("train summary %q, want %q after the model's path", first, c.summary)
			}
			if !strings.Contains(r.stdout, "trained on 120 rows of 2 inputs in ") {
				t.Errorf("train printed\n%s", r.stdout)
			}

			r = runBinary(t, dir, "", nil, "predict", "-prob", test, model, pred)
			if r.code != 0 {
				t.Fatalf("predict: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if c.maxMSE > 0 {
				var mse float64
				if _, err := fmt.Sscanf(r.stdout, "Mean squared error = %g (regression)\n",
					&mse); err != nil || mse > c.maxMSE {
					t.Errorf("predict printed %q, want a mean squared error below %g",
						r.stdout, c.maxMSE)
				}
			} else {
				var acc float64
				var right, total int
				if _, err := fmt.Sscanf(r.stdout, "Accuracy = %g%% (%d/%d) (classification)\n",
					&acc, &right, &total); err != nil ||
					acc < c.minAcc || total != 60 || math.Abs(acc-100*float64(right)/60) > 1e-3 {
					t.Errorf("predict printed %q, want an accuracy of at least %g%% on 60 rows",
						r.stdout, c.minAcc)
				}
			}
			lines := readLines(t, pred)
			if len(lines) != 61 || lines[0] != c.header {
				t.Fatalf("predictions file: %d lines, header %q; want 61, %q",
					len(lines), lines[0], c.header)
			}
			f, err := os.Open(model)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ivm.Load(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			data, err := dataset.ReadFile(test, dataset.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := p.Predict(data.X)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range preds {
				if want := wantPredictionLine(p.Task, q); lines[i+1] != want {
					t.Fatalf("predictions row %d: the binary wrote %q, "+
						"the loaded model predicts %q", i+1, lines[i+1], want)
				}
			}

			if c.name == "multiclass_projected" {
				r = runBinary(t, dir, "", nil, "plot", "-o", filepath.Join(dir, "p.png"), model)
				if st, err := os.Stat(filepath.Join(dir, "p.png")); r.code != 0 || err != nil ||
					st.Size() == 0 {
					t.Errorf("plot of a projected model: exit %d, %q, %v", r.code, r.stderr, err)
				}
			}
			r = runBinary(t, dir, "", nil, "info", model)
			if r.code != 0 {
				t.Fatalf("info: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			for _, want := range []string{"(ivm-model/1)", c.info + "\n",
				"training:    " + c.name + "_train.csv, 120 rows"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("info lacks %q:\n%s", want, r.stdout)
				}
			}
		})
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// The enum flags parse into the Config enums but keep their documented spellings: the
// values they always took train, and spellings the enums' parsers would also take (upper
// case, "auto" where the flag has no such value) are refused as before.
func TestEnumFlagSpellings(t *testing.T) {
	dir := t.TempDir()
	train, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "m.json")
	familyCSV(t, train, 60, 3, func(x1 float64, _ int, _ *rand.Rand) float64 { return b2f(x1 > 0) })
	learn := []string{"-quiet", "-workers", "1", "-d", "20", "-iters", "1", "-kiters", "3"}
	for _, flags := range [][]string{
		{"-objective", "full"}, {"-objective", "ep"}, {"-objective", "fixed"}, {"-objective", ""},
		{"-optimizer", "scg"}, {"-optimizer", "lbfgs"},
		{"-criterion", "auto"}, {"-criterion", "entropy"},
		{"-criterion", "expected"}, {"-criterion", ""},
		{"-transform", "softplus"}, {"-transform", "exp"},
	} {
		args := append(append(append([]string{"train"}, learn...), flags...), train, model)
		if code, out, errs := runCLI(t, args...); code != 0 {
			t.Errorf("ivm %v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-objective", "auto"},
			`ivm train: unknown objective "auto" (want full, ep or fixed)`},
		{[]string{"-objective", "EP"},
			`ivm train: unknown objective "EP" (want full, ep or fixed)`},
		{[]string{"-optimizer", "LBFGS"}, `ivm train: -optimizer "LBFGS": want scg or lbfgs`},
		{[]string{"-optimizer", ""}, `ivm train: -optimizer "": want scg or lbfgs`},
		{[]string{"-criterion", "Entropy"},
			`ivm train: unknown selection criterion "Entropy" (want entropy or expected)`},
		{[]string{"-transform", "auto"}, `ivm train: -transform "auto": want softplus or exp`},
		{[]string{"-transform", ""}, `ivm train: -transform "": want softplus or exp`},
	} {
		args := append(append(append([]string{"train"}, learn...), c.flags...), train, model)
		if code, _, errs := runCLI(t, args...); code != 1 || strings.TrimSpace(errs) != c.want {
			t.Errorf("ivm %v: exit %d, stderr %q; want 1, %q", args, code, errs, c.want)
		}
	}
}
