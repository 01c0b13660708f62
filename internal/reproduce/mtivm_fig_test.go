package reproduce

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The regression figure's curves are the table's means: KL (± sd) against mean CPU time and
// against points used, one curve per method in the order the points come.
func TestRegressionFigures(t *testing.T) {
	pts := []RegressionPoint{
		{Method: "mtivm", Size: 400, Points: 400, KL: []float64{0.01, 0.03},
			CPU: []float64{2, 4}},
		{Method: "mtivm", Size: 500, Points: 500, KL: []float64{0.002, 0.004},
			CPU: []float64{3, 5}},
		{Method: "subsample", Size: 150, Points: 600, KL: []float64{0.005, 0.005},
			CPU: []float64{1, 1}},
	}
	tf, pf, err := regressionFigures(pts)
	if err != nil {
		t.Fatal(err)
	}
	if len(tf.Series) != 2 || tf.Series[0].Name != "MT-IVM" ||
		tf.Series[1].Name != "random sub-sampling" {
		t.Fatalf("series %+v", tf.Series)
	}
	mt := tf.Series[0]
	want := struct{ x, y, e []float64 }{[]float64{3, 4}, []float64{0.02, 0.003},
		[]float64{0.01 * math.Sqrt2, 0.001 * math.Sqrt2}}
	for i := range want.x {
		if math.Abs(mt.X[i]-want.x[i]) > 1e-12 || math.Abs(mt.Y[i]-want.y[i]) > 1e-12 ||
			math.Abs(mt.YErr[i]-want.e[i]) > 1e-12 {
			t.Errorf("MT-IVM point %d: (%g, %g ± %g), want (%g, %g ± %g)",
				i, mt.X[i], mt.Y[i], mt.YErr[i], want.x[i], want.y[i], want.e[i])
		}
	}
	if got := pf.Series[1].X; len(got) != 1 || got[0] != 600 {
		t.Errorf("sub-sampling by points: x %v, want [600]", got)
	}
	dir := t.TempDir()
	path, err := writeRegressionFigure(pts, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
}

func TestVowelFigure(t *testing.T) {
	pts := []VowelPoint{
		{Method: "mtivm", Size: 28, Err: []float64{0.5, 0.3}, CPU: []float64{1, 3}},
		{Method: "mtivm", Size: 56, Err: []float64{0.1, 0.1}, CPU: []float64{4, 4}},
		{Method: "subsample", Size: 2, Err: []float64{0.2}, CPU: []float64{1}},
		{Method: "single", Size: 28, Err: []float64{0.15}, CPU: []float64{10}},
	}
	f, err := vowelFigure(pts, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Series) != 3 || f.Series[0].Y[0] != 40 || f.Series[0].X[1] != 4 ||
		f.Series[2].Name != "single IVM (tasks ignored)" {
		t.Errorf("series %+v", f.Series)
	}
	path, err := writeVowelFigure([][]VowelPoint{pts, pts}, []string{"a", "b"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
	if _, err := writeVowelFigure([][]VowelPoint{pts}, nil, t.TempDir()); err == nil {
		t.Error("one protocol with no title accepted")
	}
}

// The quick regression run prints its table and writes the figure into Config.Out.
func TestMTIVMRegressionQuickFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: runs the quick multi-task regression experiment")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runMTIVMRegression(&out, Config{Quick: true, Out: dir}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "mtivm_regression_fig4.png") {
		t.Errorf("output does not name the figure:\n%s", out.String())
	}
	checkPNG(t, filepath.Join(dir, "mtivm_regression_fig4.png"))
}

// checkPNG fails unless path is a PNG file of some size.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10000 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("%s: %d bytes, not a drawn PNG", path, len(b))
	}
}
