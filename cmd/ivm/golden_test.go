package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The golden model files (testdata/golden) are one model file of every kind that ivm
// train writes, each beside a small test input and the exact output of `ivm predict
// -prob` on it. TestGoldenModels loads each through the built binary and wants those
// bytes back, so that a change to the code behind the files keeps reading the files
// users already have and predicting what they predicted.
//
// The expected outputs are the contract: regenerate them only when a change to the model
// files or their numbers is deliberate, and say so in the commit. To regenerate (it
// trains every kind with the current build, about a minute):
//
//	go test ./cmd/ivm -run TestGoldenModels -update
//
// or -run TestGoldenModels/NAME -update for kind NAME alone.
var updateGoldenFlag = flag.Bool("update", false,
	"rewrite testdata/golden from the current build (see golden_test.go)")

const goldenDir = "testdata/golden"

// goldenGzipAbove is the size above which a golden model file is stored gzipped.
const goldenGzipAbove = 64 << 10

// goldenKind is one kind of model file and how it was made.
type goldenKind struct {
	name string
	// data writes the training rows (seed 1) and the test rows (seed 2).
	data func(n int, seed uint64) string
	// n and nTest are the rows of the training and test files.
	n, nTest int
	// train is the flags of `ivm train` (without the files); predict the flags of
	// `ivm predict -prob` besides -prob.
	train, predict []string
	// info is what `ivm info` says of the kind when it is regenerated: the check that the
	// current build still writes this kind from these data and flags.
	info string
	// parts, when not 0, makes the kind a partitioned training: its golden files are the
	// parts (NAME.partI.json), merged by the check.
	parts int
	// make, when set, replaces `ivm train` (a merged file); it runs in dir, where the
	// training file is train, and writes model.
	make func(t *testing.T, k goldenKind, dir, train, model string)
}

var goldenKinds = []goldenKind{
	{name: "binary_probit", data: twoInputs(binaryClean), n: 120, nTest: 30,
		train: []string{"-d", "40"}, info: "task:        binary, classes 2 7\n"},
	// Algorithm 2 instead of the search: the file carries the learning trace.
	{name: "binary_alg2", data: twoInputs(binaryNoisy), n: 120, nTest: 30,
		train: []string{"-learn", "alg2", "-d", "30", "-iters", "2", "-kiters", "10"},
		info:  "learnt in 2 outer iterations"},
	{name: "binary_blend", data: twoInputs(binaryNoisy), n: 120, nTest: 30,
		info: "(a blend of 2 models, probabilities averaged)"},
	{name: "binary_labels", data: sphere10, n: 120, nTest: 30,
		info: "the model's regression of the labels coded ±1"},
	{name: "binary_projected", data: twoInputs(binaryNoisy), n: 5200, nTest: 30,
		train: []string{"-d", "50"}, info: "projected"},
	// Weak effects of long-tailed amounts and indicators: a logistic regression of the
	// inputs tilts the projected model's probabilities (its linear part).
	{name: "binary_linear", data: weakEffects, n: 5200, nTest: 30,
		train: []string{"-d", "50"}, info: "linear:      class 1's probability tilted"},
	{name: "binary_constant", data: noSignal, n: 1200, nTest: 30,
		info: "NO BETTER than the constant predictor"},
	{name: "multiclass_ovr", data: twoInputs(class3), n: 120, nTest: 30,
		train: []string{"-d", "40", "-multiclass", "ovr"}, info: "class 3      probit noise"},
	// A kernel and a learning trace per class.
	{name: "multiclass_ovr_alg2", data: twoInputs(class3), n: 120, nTest: 30,
		train: []string{"-multiclass", "ovr", "-learn", "alg2", "-d", "30", "-iters", "2",
			"-kiters", "10"},
		info: "class 3      probit noise"},
	// One of the pairs is a blend.
	{name: "multiclass_ovo", data: twoInputs(class3), n: 120, nTest: 30,
		info: "classes 2 and 3 (labels) gaussian noise"},
	{name: "multiclass_projected", data: twoInputs(class3), n: 150, nTest: 30,
		train: []string{"-multiclass", "projected", "-d", "30"}, info: "(projected: "},
	{name: "regression_exact", data: twoInputs(sine), n: 80, nTest: 30,
		info: "task:        regression"},
	{name: "regression_ivm", data: twoInputs(sine), n: 800, nTest: 30,
		train: []string{"-d", "30"}, info: "task:        regression"},
	{name: "regression_projected", data: twoInputs(sine), n: 5200, nTest: 30,
		train: []string{"-d", "50"},
		info:  "(projected: every row regressed through shared centres)"},
	{name: "ordinal", data: twoInputs(class3), n: 120, nTest: 30,
		train: []string{"-noise", "ordinal", "-d", "40", "-iters", "2"},
		info:  "task:        ordinal, classes 1 2 3"},
	{name: "semisupervised", data: semi, n: 120, nTest: 30,
		train: []string{"-noise", "ncnm", "-d", "40", "-iters", "2"},
		info:  "task:        semisupervised, classes -1 1"},
	{name: "part_ovr", data: twoInputs(class3), n: 120, nTest: 30, parts: 2,
		train: []string{"-multiclass", "ovr", "-d", "30"}, info: "class 3      probit noise"},
	{name: "part_ovr_merged", data: twoInputs(class3), n: 120, nTest: 30,
		train: []string{"-multiclass", "ovr", "-d", "30"}, info: "class 3      probit noise",
		make: mergedParts},
	// The part files hold a blended pair.
	{name: "part_ovo", data: twoInputs(class3), n: 120, nTest: 30, parts: 2,
		train: []string{"-multiclass", "ovo"}, info: "classes 2 and 3 (labels) gaussian noise"},
	{name: "part_ovo_merged", data: twoInputs(class3), n: 120, nTest: 30,
		train: []string{"-multiclass", "ovo"}, info: "classes 2 and 3 (labels) gaussian noise",
		make: mergedParts},
	{name: "mtivm", data: threeTasks, n: 150, nTest: 30,
		train: []string{"-method", "mtivm", "-task-col", "first", "-d", "30", "-iters", "2",
			"-kiters", "10"},
		predict: []string{"-task-col", "first"}, info: "ivm-mtmodel/1"},
	{name: "mtivm_regression", data: mtRegressionLabelled, n: 40, nTest: 10,
		train: []string{"-method", "mtivm", "-task-col", "first", "-noise", "gaussian", "-d", "30",
			"-iters", "2", "-kiters", "10"},
		predict: []string{"-task-col", "first"}, info: "gaussian noise"},
	{name: "sstr", data: mtRegression, n: 30, nTest: 10,
		train:   []string{"-method", "sstr", "-task-col", "first", "-iters", "3", "-kiters", "40"},
		predict: []string{"-task-col", "first"}, info: "SSTR"},
	{name: "smtr", data: mtRegression, n: 30, nTest: 10,
		train:   []string{"-method", "smtr", "-task-col", "first", "-iters", "3", "-kiters", "40"},
		predict: []string{"-task-col", "first"}, info: "SMTR"},
	{name: "ssmtr", data: mtRegression, n: 30, nTest: 10,
		train:   []string{"-method", "ssmtr", "-task-col", "first", "-iters", "3", "-kiters", "40"},
		predict: []string{"-task-col", "first"}, info: "SSMTR"},
	{name: "ssmtrpi", data: mtRegression, n: 30, nTest: 10,
		train: []string{"-method", "ssmtrpi", "-task-col", "first", "-iters", "3", "-kiters", "40",
			"-pairs", "ssmtrpi.pairs.csv"},
		predict: []string{"-task-col", "first"}, info: "SSMTRPI", make: withPairs},
	{name: "archipelago", data: pinwheel, n: 12, nTest: 10,
		train: []string{"-method", "archipelago", "-quiet", "-sweeps", "60", "-burn", "20",
			"-samples", "10", "-seed", "5"},
		info: "ivm-archipelago/1"},
	{name: "softmax", data: pinwheel, n: 12, nTest: 10,
		train: []string{"-method", "softmax", "-quiet", "-sweeps", "60", "-burn", "20",
			"-samples", "10", "-seed", "5"},
		info: "ivm-archipelago/1"},
}

// TestGoldenModels predicts with every golden model file through the built binary and wants
// the checked-in `predict -prob` output byte for byte; `ivm info` must read each file too,
// and a kind's part files must merge. With -update it first rewrites the files from the
// current build (with -run TestGoldenModels/NAME, only kind NAME's).
func TestGoldenModels(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range goldenKinds {
		t.Run(k.name, func(t *testing.T) {
			if *updateGoldenFlag {
				updateGolden(t, k)
			}
			dir := t.TempDir()
			model := k.name + ".json"
			if k.parts == 0 {
				writeGolden(t, filepath.Join(dir, model), readGoldenModel(t, k.name))
			} else {
				merge := []string{"merge", "-quiet"}
				for i := range k.parts {
					part := fmt.Sprintf("%s.part%d.json", k.name, i)
					writeGolden(t, filepath.Join(dir, part),
						readGoldenModel(t, strings.TrimSuffix(part, ".json")))
					goldenRun(t, dir, "info", part)
					merge = append(merge, part)
				}
				goldenRun(t, dir, append(merge, model)...)
			}
			test, err := filepath.Abs(filepath.Join(goldenDir, k.name+".test.csv"))
			if err != nil {
				t.Fatal(err)
			}
			goldenRun(t, dir, append(append([]string{"predict", "-quiet", "-prob"}, k.predict...),
				test, model, "out.txt")...)
			got, err := os.ReadFile(filepath.Join(dir, "out.txt"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(goldenDir, k.name+".prob.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("predict -prob of the golden %s model differs from %s.prob.txt:\n%s",
					k.name, k.name, firstDiff(got, want))
			}
			if info := goldenRun(t, dir, "info", model); info == "" {
				t.Errorf("ivm info %s printed nothing", model)
			}
		})
		names := []string{k.name}
		for i := range k.parts {
			names = append(names, fmt.Sprintf("%s.part%d", k.name, i))
		}
		for _, n := range names {
			seen[n+".json"], seen[n+".json.gz"] = true, true
		}
		seen[k.name+".test.csv"], seen[k.name+".prob.txt"] = true, true
	}
	// Every file in the directory belongs to a kind: none is left behind unchecked.
	seen["README.md"] = true
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("%s/%s belongs to no golden kind", goldenDir, e.Name())
		}
	}
}

// readGoldenModel returns the golden model file name.json, gunzipped from name.json.gz
// when stored so.
func readGoldenModel(t *testing.T, name string) []byte {
	t.Helper()
	path := filepath.Join(goldenDir, name+".json")
	b, err := os.ReadFile(path)
	if err == nil {
		return b
	}
	f, err := os.Open(path + ".gz")
	if err != nil {
		t.Fatalf("no golden model file %s or %s.gz", path, path)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = io.ReadAll(zr); err != nil {
		t.Fatal(err)
	}
	return b
}

// writeGoldenModel stores the model file name.json from dir in the golden directory,
// gzipped above goldenGzipAbove bytes, and returns its size.
func writeGoldenModel(t *testing.T, dir, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(goldenDir, name+".json")
	for _, old := range []string{path, path + ".gz"} {
		if err := os.Remove(old); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if len(b) <= goldenGzipAbove {
		writeGolden(t, path, b)
		return len(b)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeGolden(t, path+".gz", z.Bytes())
	return z.Len()
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %q\n want %q", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// updateGolden trains golden kind k with the current build and rewrites its model (or
// part) files, test input and expected output; a kind the build no longer writes from its
// data and flags (its info line missing) is an error.
func updateGolden(t *testing.T, k goldenKind) {
	if err := os.MkdirAll(goldenDir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	train, test := k.name+".train.csv", filepath.Join(goldenDir, k.name+".test.csv")
	model := k.name + ".json"
	writeGolden(t, filepath.Join(dir, train), []byte(k.data(k.n, 1)))
	writeGolden(t, test, []byte(k.data(k.nTest, 2)))
	var size int
	switch {
	case k.make != nil:
		k.make(t, k, dir, train, model)
	case k.parts > 0:
		merge := []string{"merge", "-quiet"}
		for i := range k.parts {
			part := fmt.Sprintf("%s.part%d", k.name, i)
			goldenRun(t, dir, append(append([]string{"train", "-quiet"}, k.train...),
				"-part", fmt.Sprintf("%d/%d", i, k.parts), train, part+".json")...)
			size += writeGoldenModel(t, dir, part)
			merge = append(merge, part+".json")
		}
		goldenRun(t, dir, append(merge, model)...)
	default:
		goldenRun(t, dir, append(append([]string{"train", "-quiet"}, k.train...), train, model)...)
	}
	info := goldenRun(t, dir, "info", model)
	if !strings.Contains(info, k.info) {
		t.Fatalf("ivm info does not say %q: the build no longer writes this kind "+
			"from its data and flags\n%s", k.info, info)
	}
	if k.parts == 0 {
		size = writeGoldenModel(t, dir, k.name)
	}
	absTest, err := filepath.Abs(test)
	if err != nil {
		t.Fatal(err)
	}
	goldenRun(t, dir, append(append([]string{"predict", "-quiet", "-prob"}, k.predict...),
		absTest, model, "out.txt")...)
	out, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	writeGolden(t, filepath.Join(goldenDir, k.name+".prob.txt"), out)
	t.Logf("%d bytes of model files\n%s", size, info)
}

// goldenRun runs the built binary in dir and returns its stdout; a failure is fatal.
func goldenRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := runBinary(t, dir, "", nil, args...)
	if r.code != 0 {
		t.Fatalf("ivm %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func writeGolden(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mergedParts trains k's flags as the parts 0/2 and 1/2 and merges them.
func mergedParts(t *testing.T, k goldenKind, dir, train, model string) {
	for i := range 2 {
		part := fmt.Sprintf("part%d.json", i)
		goldenRun(t, dir, append(append([]string{"train", "-quiet"}, k.train...),
			"-part", fmt.Sprintf("%d/2", i), train, part)...)
	}
	goldenRun(t, dir, "merge", "-quiet", "part0.json", "part1.json", model)
}

// withPairs writes the pairwise constraints of ssmtrpi and trains.
func withPairs(t *testing.T, k goldenKind, dir, train, model string) {
	// Rows 1 and 2 are the first task's (row 1 unlabelled); rows 31 to 60 the second's.
	writeGolden(t, filepath.Join(dir, "ssmtrpi.pairs.csv"), []byte("# u,v,d\n1,2,-5\n32,34,0.1\n"))
	goldenRun(t, dir, append(append([]string{"train", "-quiet"}, k.train...), train, model)...)
}

// The golden data are written here, not by the other tests' helpers, so that the files
// can be regenerated from the same rows whatever becomes of those.

// twoInputs returns a generator of n rows "x1,x2,label": x1 uniform on [−3, 3], x2
// standard normal, labelled by label; a NaN label is written as "?".
func twoInputs(label func(x1, x2 float64, i int, rng *rand.Rand) float64) func(int, uint64) string {
	return func(n int, seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 47))
		var b strings.Builder
		for i := range n {
			x1, x2 := 6*rng.Float64()-3, rng.NormFloat64()
			fmt.Fprintf(&b, "%s,%s,%s\n", gfmt(x1), gfmt(x2), gfmt(label(x1, x2, i, rng)))
		}
		return b.String()
	}
}

// gfmt formats v exactly, NaN as CSV's unlabelled mark.
func gfmt(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func b2fg(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func binaryClean(x1, _ float64, _ int, _ *rand.Rand) float64 { return 2 + 5*b2fg(x1 > 0.3) }

func binaryNoisy(x1, _ float64, _ int, rng *rand.Rand) float64 {
	return 2 + 5*b2fg(x1+0.5*rng.NormFloat64() > 0.3)
}

func class3(x1, _ float64, _ int, _ *rand.Rand) float64 {
	return 1 + b2fg(x1 >= -1) + b2fg(x1 >= 1)
}

func sine(x1, x2 float64, _ int, rng *rand.Rand) float64 {
	return math.Sin(x1) + 0.2*x2 + 0.1*rng.NormFloat64()
}

// semi labels rows ±1 by the sign of x1; the training rows (seed 1) one in four, the
// rest unlabelled, the test rows all.
func semi(n int, seed uint64) string {
	return twoInputs(func(x1, _ float64, i int, _ *rand.Rand) float64 {
		if seed == 1 && i%4 != 0 {
			return math.NaN()
		}
		return 2*b2fg(x1 > 0) - 1
	})(n, seed)
}

// sphere10 writes n rows of 10 standard normal inputs labelled 1 inside the sphere of
// radius √10, 0 outside: a task where least squares on the labels beats the probit model.
func sphere10(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	for range n {
		r := 0.0
		for range 10 {
			v := rng.NormFloat64()
			r += v * v
			fmt.Fprintf(&b, "%s,", gfmt(v))
		}
		fmt.Fprintf(&b, "%g\n", b2fg(r < 10))
	}
	return b.String()
}

// noSignal writes n rows of 5 uniform inputs and a label independent of them.
func noSignal(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 13))
	var b strings.Builder
	for range n {
		for range 5 {
			fmt.Fprintf(&b, "%s,", gfmt(2*rng.Float64()-1))
		}
		fmt.Fprintf(&b, "%g\n", b2fg(rng.Float64() < 0.5))
	}
	return b.String()
}

// weakEffects writes n rows of 12 inputs (long-tailed amounts, indicators and normal values)
// and a label 0 or 1 whose log odds are a weak linear function of them all.
func weakEffects(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 17))
	var b strings.Builder
	for range n {
		z := -1.5
		for j := range 12 {
			var v float64
			switch j % 3 {
			case 0:
				v = math.Exp(1.5 * rng.NormFloat64())
			case 1:
				v = float64(rng.IntN(2))
			default:
				v = rng.NormFloat64()
			}
			z += 0.15 * v * float64(j%2*2-1)
			fmt.Fprintf(&b, "%s,", gfmt(v))
		}
		fmt.Fprintf(&b, "%g\n", b2fg(rng.Float64() < 1/(1+math.Exp(-z))))
	}
	return b.String()
}

// threeTasks writes n rows "task,x1,x2,y" of three binary tasks (labels 0 and 5).
func threeTasks(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	b.WriteString("task,x1,x2,y\n")
	for i := range n {
		x1, x2 := 100+30*rng.NormFloat64(), rng.NormFloat64()
		y := 5 * b2fg((x1-100)/30+x2+0.3*float64(i%3)+0.2*rng.NormFloat64() > 0)
		fmt.Fprintf(&b, "s%d,%s,%s,%g\n", i%3, gfmt(x1), gfmt(x2), y)
	}
	return b.String()
}

// mtRegression writes perTask rows "task,x1,x2,y" of each of three regression tasks;
// the training rows (seed 1) leave every third target unlabelled.
func mtRegression(perTask int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 2))
	var b strings.Builder
	b.WriteString("task,x1,x2,y\n")
	row := 0
	for task := 1; task <= 3; task++ {
		a := 1 + 0.2*float64(task)
		for range perTask {
			x1, x2 := 2*rng.NormFloat64(), rng.NormFloat64()
			y := 10 + a*math.Sin(0.6*x1) + 0.3*x2 + 0.05*rng.NormFloat64()
			if seed == 1 && row%3 == 0 {
				y = math.NaN()
			}
			fmt.Fprintf(&b, "%d,%s,%s,%s\n", 10*task, gfmt(x1), gfmt(x2), gfmt(y))
			row++
		}
	}
	return b.String()
}

// mtRegressionLabelled is mtRegression's tasks with every target labelled (seeds 101, 102).
func mtRegressionLabelled(perTask int, seed uint64) string {
	return mtRegression(perTask, 100+seed)
}

// pinwheel writes perClass rows of each of three spiral arms; in the training rows (seed
// 1) the first three of each arm are labelled and the rest unlabelled.
func pinwheel(perClass int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("x1,x2,label\n")
	for k := range 3 {
		for i := range perClass {
			r := 1 + 0.3*rng.NormFloat64()
			tt := 0.05 * rng.NormFloat64()
			a := 2*math.Pi*float64(k)/3 + 0.25*math.Exp(r)
			c, s := math.Cos(a), math.Sin(a)
			lab := "?"
			if seed != 1 || i < 3 {
				lab = strconv.Itoa(k + 1)
			}
			fmt.Fprintf(&b, "%.5f,%.5f,%s\n", r*c+tt*s, -r*s+tt*c, lab)
		}
	}
	return b.String()
}
