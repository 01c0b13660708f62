package main

import (
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/toys"
)

// writeCSV writes x and y as a CSV file in dir and returns its path.
func writeCSV(t *testing.T, dir, name string, x *mat.Dense, y []float64) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteCSV(f, &dataset.Data{X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func pngSize(t *testing.T, path string) (int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	x, y, err := toys.ClassificationGP(120, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range y { // labels 0 and 1, stored in the model and mapped back by plot
		y[i] = (y[i] + 1) / 2
	}
	data := writeCSV(t, dir, "toy.csv", x, y)
	model := filepath.Join(dir, "toy.json")
	mustRun(t, "train", "-quiet", "-iters", "0", "-d", "30",
		"-kernel", "rbf(gamma=10,variance=10)+bias+white(variance=0.01)", data, model)

	// Default output: MODEL with .png, 12 × 9 cm at 96 dpi.
	out := mustRun(t, "plot", model, data)
	def := filepath.Join(dir, "toy.png")
	if !strings.Contains(out, def) {
		t.Errorf("output %q does not name %s", out, def)
	}
	if w, h := pngSize(t, def); w != 454 || h != 340 {
		t.Errorf("default PNG is %d × %d, want 454 × 340", w, h)
	}
	// -o, -w, -h; SVG by extension; the model alone without data.
	png2 := filepath.Join(dir, "small.png")
	mustRun(t, "plot", "-quiet", "-o", png2, "-w", "2in", "-h", "1.5in", model, data)
	if w, h := pngSize(t, png2); w != 192 || h != 144 {
		t.Errorf("2in × 1.5in PNG is %d × %d, want 192 × 144", w, h)
	}
	svg := filepath.Join(dir, "toy.svg")
	mustRun(t, "plot", "-quiet", "-o", svg, model)
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("SVG: %v", err)
	}

	// A learnt model's trace.
	learnt := filepath.Join(dir, "learnt.json")
	mustRun(t, "train", "-quiet", "-iters", "1", "-kiters", "3", "-d", "20", data, learnt)
	tr := filepath.Join(dir, "trace.pdf")
	mustRun(t, "plot", "-quiet", "-trace", "-o", tr, learnt)
	if b, err := os.ReadFile(tr); err != nil || !strings.HasPrefix(string(b), "%PDF-") {
		t.Errorf("trace PDF: %v", err)
	}

	// Errors: exit status 1 and a message saying what is wrong, or 2 for usage.
	x3 := mat.NewDense(30, 3, nil)
	y3 := make([]float64, 30)
	r := rand.New(rand.NewPCG(2, 0))
	for i := range y3 {
		for j := 0; j < 3; j++ {
			x3.Set(i, j, r.NormFloat64())
		}
		y3[i] = 1
		if x3.At(i, 0) < 0 {
			y3[i] = -1
		}
	}
	data3 := writeCSV(t, dir, "three.csv", x3, y3)
	model3 := filepath.Join(dir, "three.json")
	mustRun(t, "train", "-quiet", "-iters", "0", "-d", "10", data3, model3)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plot", "-trace", model}, 1, "no learning trace"},
		{[]string{"plot", model3, data3}, 1, "3 inputs"},
		{[]string{"plot", model, data3}, 1, "has 3 inputs, the model 2"},
		{[]string{"plot", "-o", filepath.Join(dir, "f.gif"), model}, 1, ".png, .svg or .pdf"},
		{[]string{"plot", "-w", "wide", model}, 1, "-w"},
		{[]string{"plot", "-trace", model, data}, 2, "Usage"},
		{[]string{"plot"}, 2, "Usage"},
		{[]string{"plot", filepath.Join(dir, "missing.json")}, 1, "missing.json"},
		{[]string{"plot", "-h"}, 0, "Usage"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("ivm %s: exit %d, stderr %q; want exit %d and %q",
				strings.Join(c.args, " "), code, errs, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "three.png")); err == nil {
		t.Error("a failed plot left a file")
	}
}

// TestPlotWhole draws the models train writes by default that no one IVM stands for: a
// blend (a small binary set), a projected binary model (over 5 000 rows) and a projected
// multi-class one, and checks what cannot be drawn is refused with what to do instead.
func TestPlotWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on 5 200 rows")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 0))
	ring := func(n, classes int) (*mat.Dense, []float64) {
		x, y := mat.NewDense(n, 2, nil), make([]float64, n)
		for i := range y {
			a, b := r.NormFloat64(), r.NormFloat64()
			x.Set(i, 0, a)
			x.Set(i, 1, b)
			if classes == 2 && a*a+b*b > 1.2 {
				y[i] = 1
			} else if classes > 2 {
				y[i] = float64(
					int((math.Atan2(b, a)+math.Pi)/(2*math.Pi)*float64(classes)) % classes)
			}
		}
		return x, y
	}
	for _, c := range []struct {
		name  string
		n     int
		cls   int
		flags []string
	}{
		{"blend", 200, 2, nil},
		{"projected", 5200, 2, []string{"-d", "50"}},
		{"multiclass", 600, 3, []string{"-multiclass", "projected", "-d", "30"}},
	} {
		x, y := ring(c.n, c.cls)
		data := writeCSV(t, dir, c.name+".csv", x, y)
		model := filepath.Join(dir, c.name+".json")
		mustRun(t, append(append([]string{"train", "-quiet"}, c.flags...), data, model)...)
		for _, args := range [][]string{{model, data}, {model}} {
			out := filepath.Join(dir, "x.png")
			os.Remove(out)
			mustRun(t, append([]string{"plot", "-quiet", "-o", out}, args...)...)
			if st, err := os.Stat(out); err != nil || st.Size() == 0 {
				t.Errorf("%s: plot %v wrote no PNG: %v", c.name, args, err)
			}
		}
	}
	// A projected regression of one input: its mean, ±2 sd band and centres.
	xr, yr := mat.NewDense(5100, 1, nil), make([]float64, 5100)
	for i := range yr {
		v := 6*r.Float64() - 3
		xr.Set(i, 0, v)
		yr[i] = math.Sin(2*v) + 0.2*r.NormFloat64()
	}
	reg := writeCSV(t, dir, "reg.csv", xr, yr)
	regModel := filepath.Join(dir, "reg.json")
	mustRun(t, "train", "-quiet", "-d", "30", reg, regModel)
	mustRun(t, "plot", "-quiet", "-o", filepath.Join(dir, "r.png"), regModel, reg)
	if w, h := pngSize(t, filepath.Join(dir, "r.png")); w == 0 || h == 0 {
		t.Errorf("projected regression: %d × %d PNG", w, h)
	}
	mustRun(t, "plot", "-quiet", "-o", filepath.Join(dir, "k.png"), "-model", "2",
		filepath.Join(dir, "multiclass.json"), filepath.Join(dir, "multiclass.csv"))
	mustRun(t, "plot", "-quiet", "-o", filepath.Join(dir, "m.png"), "-model", "1",
		filepath.Join(dir, "blend.json"), filepath.Join(dir, "blend.csv"))

	x3, y3 := mat.NewDense(60, 3, nil), make([]float64, 60)
	for i := range y3 {
		for j := 0; j < 3; j++ {
			x3.Set(i, j, r.NormFloat64())
		}
		y3[i] = float64(i % 3)
	}
	data3 := writeCSV(t, dir, "three.csv", x3, y3)
	model3 := filepath.Join(dir, "three.json")
	mustRun(t, "train", "-quiet", "-multiclass", "projected", "-d", "10", data3, model3)
	proj := filepath.Join(dir, "projected.json")
	tasks, _ := writeTaskFiles(t, dir, "tasks", 60, 1)
	mt := filepath.Join(dir, "mt.json")
	mustRun(t, "train", "-quiet", "-method", "mtivm", "-task-col", "first", "-d", "10",
		"-iters", "0", tasks, mt)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{model3, data3}, "ivm predict -prob gives its predictions"},
		{[]string{"-trace", proj}, "-trace is for IVM models"},
		{[]string{"-model", "1", proj}, "leave -model out"},
		{[]string{mt}, "give the DATA file"},
		{[]string{mt, tasks}, "pass -task-col"},
		{[]string{"-model", "4", filepath.Join(dir, "multiclass.json")}, "(1 to 3)"},
	} {
		args := append([]string{"plot", "-o", filepath.Join(dir, "no.png")}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("ivm %s: exit %d, stderr %q; want exit 1 and %q",
				strings.Join(args, " "), code, errs, c.want)
		}
	}
}

// writeCurveTable writes a table of learning curves as bench/active does: two sets, two
// strategies, three seeds, the full-data model's line and a comment.
func writeCurveTable(t *testing.T, path string) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 0))
	var b strings.Builder
	b.WriteString("# bench/active -seeds 3\n")
	b.WriteString("set\tstrategy\tseed\tlabels\taccuracy\tlogloss\tmse\tnlpd\tfit_s\n")
	for _, set := range []string{"bin", "reg"} {
		cls := set == "bin"
		for _, s := range []string{"active", "random"} {
			for seed := 1; seed <= 3; seed++ {
				for _, n := range []int{20, 40, 80} {
					v := 1/float64(n) + 0.01*r.Float64()
					fmt.Fprintf(&b, "%s\t%s\t%d\t%d\t%s\t%g\n",
						set, s, seed, n, figures(cls, v), 1.5)
				}
			}
		}
		fmt.Fprintf(&b, "%s\tfull\t0\t1000\t%s\t%g\n", set, figures(cls, 0.005), 9.0)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// figures are a line's accuracy, log loss, MSE and NLPD columns: v and NA where they do
// not apply.
func figures(classify bool, v float64) string {
	if classify {
		return fmt.Sprintf("%g\t%g\tNA\tNA", 1-v, v)
	}
	return fmt.Sprintf("NA\tNA\t%g\t%g", v, 1+v)
}

// ivm plot -curves draws a set's learning curves from bench/active's table, picking the
// set and figure by -set and -metric, and refuses a malformed table naming the line.
func TestPlotCurves(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "curves.tsv")
	writeCurveTable(t, table)
	out := mustRun(t, "plot", "-curves", table, "-set", "bin")
	def := filepath.Join(dir, "curves-curves.png")
	if !strings.Contains(out, def) {
		t.Errorf("output %q does not name %s", out, def)
	}
	if w, h := pngSize(t, def); w != 454 || h != 340 {
		t.Errorf("default PNG is %d × %d, want 454 × 340", w, h)
	}
	svg := filepath.Join(dir, "reg.svg")
	mustRun(t, "plot", "-quiet", "-curves", table, "-set", "reg", "-metric", "nlpd", "-logy",
		"-o", svg)
	b, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(b), "full data (1000 labels)") {
		t.Errorf("SVG without the full-data line: %v", err)
	}
	bad := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := "set\tstrategy\tseed\tlabels\tlogloss\n"
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-curves", table}, 1, "holds the sets bin, reg; pick one with -set"},
		{[]string{"-curves", table, "-set", "x"}, 1, "-set x"},
		{[]string{"-curves", table, "-set", "bin", "-metric", "mse"}, 1,
			"set bin of " + table + " has the figures accuracy, logloss, fit_s"},
		{[]string{"-curves", bad("short.tsv", head+"a\tactive\t1\t20\t0.5\na\tactive\t1\t40\n")}, 1,
			"short.tsv:3: 4 tab-separated fields, the header has 5"},
		{[]string{"-curves", bad("num.tsv", "# c\n"+head+"a\tactive\t1\t2O\t0.5\n")}, 1,
			`num.tsv:3: labels "2O" is not a number`},
		{[]string{"-curves", bad("inf.tsv", head+"a\tactive\t1\t20\tInf\n")}, 1,
			`inf.tsv:2: logloss "Inf" is not a number`},
		{[]string{"-curves", bad("head.tsv", "set\tseed\tlabels\tlogloss\n")}, 1,
			`head.tsv:1: the header "set seed labels logloss" has no column "strategy"`},
		{[]string{"-curves", bad("empty.tsv", "# nothing\n")}, 1, "no lines of learning curves"},
		{[]string{"-curves", table, "-set", "bin", "model.json"}, 1, "give no MODEL"},
		{[]string{"-metric", "mse", "model.json"}, 1, "are for -curves TABLE"},
		{[]string{"-curves", table, "-set", "bin", "-o", filepath.Join(dir, "c.gif")}, 1,
			".png, .svg or .pdf"},
	} {
		args := append([]string{"plot"}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("ivm %s: exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "),
				code, errs, c.code, c.want)
		}
	}
}
