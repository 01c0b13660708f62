package plot

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/toys"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// toy is a small trained model with its data, in the model's coding.
type toy struct {
	name string
	m    *engine.Model
	x    *mat.Dense
	y    []float64
}

func fit(t testing.TB, name string, x *mat.Dense, y []float64, spec string, nm noise.Model,
	d int) toy {
	t.Helper()
	_, dim := x.Dims()
	k, err := kern.Parse(spec, dim)
	if err != nil {
		t.Fatal(err)
	}
	m, err := engine.FitFixed(x, y, k, nm, d, engine.Options{Workers: 1})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return toy{name, m, x, y}
}

var (
	toysOnce sync.Once
	toysList []toy
	toysErr  error
)

// toyModels returns one small model of every kind the figures draw, trained with fixed kernels
// on the seeded toy problems (well under a second in all).
func toyModels(t *testing.T) []toy {
	t.Helper()
	toysOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				toysErr = fmt.Errorf("%v", r)
			}
		}()
		ft := &fatalT{}
		must := func(x *mat.Dense, y []float64, err error) (*mat.Dense, []float64) {
			if err != nil {
				panic(err)
			}
			return x, y
		}
		xc, yc := must(toys.ClassificationGP(200, rng(1)))
		xr, yr := must(toys.Regression(200, [2]float64{1, 0.2}, rng(1)))
		xo, yo := must(toys.Ordinal(20, 4, rng(1)))
		xn, _, yn, err := toys.Interlocking(200, 0.2, rng(1))
		if err != nil {
			panic(err)
		}
		for i, v := range yn {
			if math.IsNaN(v) {
				yn[i] = 0 // the null category model's coding of unlabelled points
			}
		}
		x1, y1 := must(toys.Sine1D(60, rng(1)))
		c1 := make([]float64, len(y1))
		for i, v := range y1 {
			c1[i] = -1
			if v > 0 {
				c1[i] = 1
			}
		}
		n1 := make([]float64, len(y1))
		for i, v := range c1 {
			if i%3 != 0 {
				v = 0 // unlabelled
			}
			n1[i] = v
		}
		o1 := make([]float64, len(y1))
		for i, v := range y1 {
			o1[i] = math.Min(2, math.Floor((v+1.2)/0.8))
		}
		toysList = []toy{
			fit(ft, "probit-2d", xc, yc, "rbf(gamma=10,variance=10)+bias+white(variance=0.01)",
				noise.NewProbit(), 60),
			fit(ft, "gaussian-2d", xr, yr, "rbf(gamma=5,variance=1)+bias+white(variance=0.01)",
				noise.NewGaussian(0), 40),
			fit(ft, "ordinal-2d", xo, yo, "lin(variance=1)+bias+white(variance=0.01)",
				noise.NewOrdinal(), 40),
			fit(ft, "ncnm-2d", xn, yn, "rbf(gamma=3,variance=5)+bias+white(variance=0.01)",
				noise.NewNullCategory(), 50),
			fit(ft, "gaussian-1d", x1, y1, "rbf(gamma=1,variance=1)+bias+white(variance=0.01)",
				noise.NewGaussian(0), 15),
			fit(ft, "probit-1d", x1, c1, "rbf(gamma=1,variance=10)+bias+white(variance=0.01)",
				noise.NewProbit(), 15),
			fit(ft, "ordinal-1d", x1, o1, "rbf(gamma=1,variance=10)+bias+white(variance=0.01)",
				noise.NewOrdinal(), 15),
			fit(ft, "ncnm-1d", x1, n1, "rbf(gamma=1,variance=10)+bias+white(variance=0.01)",
				noise.NewNullCategory(), 15),
		}
	})
	if toysErr != nil {
		t.Fatal(toysErr)
	}
	return toysList
}

// fatalT turns Fatal into a panic, for setup shared by tests.
type fatalT struct{ testing.TB }

func (fatalT) Helper()                   {}
func (fatalT) Fatal(a ...any)            { panic(fmt.Sprint(a...)) }
func (fatalT) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }

// checkFiles saves fig as PNG, SVG and PDF of w × h and checks each: the PNG decodes to
// w × h at 96 dpi, the SVG header states w × h in points, the PDF starts as one.
func checkFiles(t *testing.T, fig *Figure, w, h vg.Length) {
	t.Helper()
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "f.png")
	if err := fig.Save(pngPath, w, h); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("PNG: %v", err)
	}
	wantW, wantH := int(float64(w/vg.Inch)*96+0.5), int(float64(h/vg.Inch)*96+0.5)
	if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
		t.Errorf("PNG is %d × %d pixels, want %d × %d", b.Dx(), b.Dy(), wantW, wantH)
	}
	svgPath := filepath.Join(dir, "f.svg")
	if err := fig.Save(svgPath, w, h); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	mt := regexp.MustCompile(`<svg[^>]*width="([0-9.]+)pt"` +
		`[^>]*height="([0-9.]+)pt"`).FindSubmatch(b)
	if mt == nil {
		t.Fatalf("SVG header not found in %.200q", b)
	}
	sw, _ := strconv.ParseFloat(string(mt[1]), 64)
	sh, _ := strconv.ParseFloat(string(mt[2]), 64)
	if math.Abs(sw-w.Points()) > 0.01 || math.Abs(sh-h.Points()) > 0.01 {
		t.Errorf("SVG is %g × %g pt, want %g × %g", sw, sh, w.Points(), h.Points())
	}
	pdfPath := filepath.Join(dir, "f.pdf")
	if err := fig.Save(pdfPath, w, h); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(pdfPath); err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("PDF: %v, starts %.10q", err, b)
	}
}

// Every model figure writes valid PNG, SVG and PDF of the requested size, with and
// without data. IVM_PLOT_KEEP=DIR keeps a PNG of each in DIR.
func TestModelFiguresFiles(t *testing.T) {
	for i, ty := range toyModels(t) {
		t.Run(ty.name, func(t *testing.T) {
			fig, err := Model(ty.m, ty.x, ty.y, Options{Grid: 30})
			if err != nil {
				t.Fatal(err)
			}
			w, h := 12*vg.Centimeter, 9*vg.Centimeter
			if i%2 == 1 {
				w, h = 4*vg.Inch, 5*vg.Inch
			}
			checkFiles(t, fig, w, h)
			if dir := os.Getenv("IVM_PLOT_KEEP"); dir != "" { // for looking at the figures
				if err := fig.Save(filepath.Join(dir, ty.name+".png"), w, h); err != nil {
					t.Error(err)
				}
			}
			if _, dim := ty.x.Dims(); dim == 2 &&
				(len(fig.Surfaces) == 0 || fig.Surfaces[0].Grid == nil) {
				t.Errorf("no surface")
			}
			bare, err := Model(ty.m, nil, nil, Options{Grid: 20, NoLegend: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := bare.Save(filepath.Join(t.TempDir(), "bare.png"), w, h); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func find(t *testing.T, ts []toy, name string) toy {
	for _, ty := range ts {
		if ty.name == name {
			return ty
		}
	}
	t.Fatalf("no toy %s", name)
	return toy{}
}

// contourValues evaluates f at every point of the figure's contours at level and returns
// the largest |f − level| and the number of points.
func contourValues(fig *Figure, surface int, level float64,
	f func(x *mat.Dense) []float64) (worst float64, n int) {
	for _, c := range fig.Contours {
		if c.Surface != surface || c.Level != level {
			continue
		}
		for _, l := range c.Lines {
			x := mat.NewDense(len(l), 2, nil)
			for i, p := range l {
				x.Set(i, 0, p.X)
				x.Set(i, 1, p.Y)
			}
			for _, v := range f(x) {
				worst = math.Max(worst, math.Abs(v-level))
				n++
			}
		}
	}
	return worst, n
}

// The 0.5 contour of a classifier runs where the model predicts 0.5 (and the 0.25, 0.75
// ones where it predicts those), checked by evaluating the model at the contour's points.
func TestClassificationContoursFollowTheModel(t *testing.T) {
	ty := find(t, toyModels(t), "probit-2d")
	fig, err := Classification(ty.m, ty.x, ty.y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	prob := func(x *mat.Dense) []float64 {
		var out []float64
		for _, p := range ty.m.Predict(x) {
			out = append(out, p.Prob[1])
		}
		return out
	}
	for _, lv := range []float64{0.5, 0.25, 0.75} {
		worst, n := contourValues(fig, 0, lv, prob)
		if n < 20 {
			t.Fatalf("contour p = %g has %d points", lv, n)
		}
		if worst > 0.02 {
			t.Errorf("contour p = %g: the model predicts up to %g away from it", lv, worst)
		}
		t.Logf("p = %g: %d points, max |p − level| = %.2g", lv, n, worst)
	}
	styles := map[float64]string{}
	for _, c := range fig.Contours {
		styles[c.Level] = c.Style
	}
	if styles[0.5] != "solid" || styles[0.25] != "dashed" || styles[0.75] != "dashed" {
		t.Errorf("contour styles %v", styles)
	}
}

// Scaled inputs: the figure is in the data's coordinates, the model evaluated at the
// scaled ones, so the 0.5 contour still follows the model.
func TestScaledInputs(t *testing.T) {
	x, y, err := toys.ClassificationGP(150, rng(2))
	if err != nil {
		t.Fatal(err)
	}
	shift, factor := []float64{0.5, 0.5}, []float64{4, 2}
	var xs mat.Dense
	xs.CloneFrom(x)
	n, _ := x.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < 2; j++ {
			xs.Set(i, j, (x.At(i, j)-shift[j])*factor[j])
		}
	}
	ty := fit(t, "scaled", &xs, y, "rbf(gamma=1,variance=10)+bias+white(variance=0.01)",
		noise.NewProbit(), 40)
	fig, err := Classification(ty.m, x, y, Options{InputShift: shift, InputFactor: factor})
	if err != nil {
		t.Fatal(err)
	}
	worst, cnt := contourValues(fig, 0, 0.5, func(p *mat.Dense) []float64 {
		r, _ := p.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < 2; j++ {
				p.Set(i, j, (p.At(i, j)-shift[j])*factor[j])
			}
		}
		var out []float64
		for _, q := range ty.m.Predict(p) {
			out = append(out, q.Prob[1])
		}
		return out
	})
	if cnt == 0 || worst > 0.02 {
		t.Errorf("scaled: %d contour points, max |p − 0.5| = %g", cnt, worst)
	}
	if fig.Plot.X.Min > 0 || fig.Plot.X.Max < 1 {
		t.Errorf("x axis [%g, %g] is not in the data's coordinates", fig.Plot.X.Min, fig.Plot.X.Max)
	}
	if _, err := Classification(ty.m, x, y,
		Options{InputShift: shift, InputFactor: []float64{1, 0}}); err == nil {
		t.Error("a zero scale factor was accepted")
	}
}

// Ordinal boundaries are P(y > k) = 0.5 and the quartiles 0.25, 0.75, on C − 1 surfaces.
func TestOrdinalBoundaries(t *testing.T) {
	ty := find(t, toyModels(t), "ordinal-2d")
	fig, err := Ordinal(ty.m, ty.x, ty.y, Options{Grid: 60})
	if err != nil {
		t.Fatal(err)
	}
	nc := len(ty.m.Noise.Classes())
	if len(fig.Surfaces) != nc-1 {
		t.Fatalf("%d surfaces for %d categories", len(fig.Surfaces), nc)
	}
	for k := 0; k < nc-1; k++ {
		above := func(x *mat.Dense) []float64 {
			var out []float64
			for _, p := range ty.m.Predict(x) {
				s := 0.0
				for _, v := range p.Prob[k+1:] {
					s += v
				}
				out = append(out, s)
			}
			return out
		}
		for _, lv := range []float64{0.5, 0.25, 0.75} {
			worst, n := contourValues(fig, k, lv, above)
			if n == 0 {
				t.Errorf("boundary %d, level %g: no contour", k, lv)
			}
			if worst > 0.02 {
				t.Errorf("boundary %d, level %g: off by %g", k, lv, worst)
			}
		}
	}
}

// The null category figure's boundary is the latent mean's zero and the null region's edges
// its ±w/2 contours.
func TestNullCategoryEdges(t *testing.T) {
	ty := find(t, toyModels(t), "ncnm-2d")
	fig, err := NullCategory(ty.m, ty.x, ty.y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	latent := func(x *mat.Dense) []float64 {
		var out []float64
		for _, p := range ty.m.Predict(x) {
			out = append(out, p.Mean)
		}
		return out
	}
	for _, lv := range []float64{0, -0.5, 0.5} {
		worst, n := contourValues(fig, 0, lv, latent)
		if n == 0 || worst > 0.02 {
			t.Errorf("latent level %g: %d points, off by up to %g", lv, n, worst)
		}
	}
}

// The 1-D regression figure's series are the model's predictive mean and mean ± 2 sd.
func TestRegression1DSeries(t *testing.T) {
	ty := find(t, toyModels(t), "gaussian-1d")
	fig, err := Regression(ty.m, ty.x, ty.y, Options{Grid: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Series) != 3 || fig.Series[0].Name != "mean" {
		t.Fatalf("series %+v", fig.Series)
	}
	xs := fig.Series[0].X
	preds := ty.m.Predict(mat.NewDense(len(xs), 1, append([]float64(nil), xs...)))
	for i, p := range preds {
		sd := math.Sqrt(p.Var)
		if math.Abs(fig.Series[0].Y[i]-p.Mean) > 1e-12 ||
			math.Abs(fig.Series[1].Y[i]-(p.Mean-2*sd)) > 1e-12 ||
			math.Abs(fig.Series[2].Y[i]-(p.Mean+2*sd)) > 1e-12 {
			t.Fatalf("point %d: series %g %g %g, model mean %g sd %g",
				i, fig.Series[0].Y[i], fig.Series[1].Y[i], fig.Series[2].Y[i], p.Mean, sd)
		}
	}
	if xs[0] > 0 && xs[len(xs)-1] < 0 {
		t.Errorf("grid [%g, %g] does not cover the data", xs[0], xs[len(xs)-1])
	}
}

// Marching squares on functions with known level sets: a circle (one closed loop) and a
// saddle, whose centre rule gives two lines.
func TestGridLines(t *testing.T) {
	mk := func(f func(x, y float64) float64) *Grid {
		g := &Grid{X: linspace([2]float64{-2, 2}, 41), Y: linspace([2]float64{-2, 2}, 37)}
		for _, y := range g.Y {
			for _, x := range g.X {
				g.Z = append(g.Z, f(x, y))
			}
		}
		return g
	}
	circle := mk(func(x, y float64) float64 { return x*x + y*y })
	lines := circle.Lines(1)
	if len(lines) != 1 {
		t.Fatalf("circle: %d lines", len(lines))
	}
	l := lines[0]
	if l[0] != l[len(l)-1] || len(l) < 20 {
		t.Errorf("circle: not a closed loop of many points: %d points, ends %v %v",
			len(l), l[0], l[len(l)-1])
	}
	for _, p := range l {
		if r := math.Hypot(p.X, p.Y); math.Abs(r-1) > 0.01 {
			t.Errorf("circle point %v at radius %g", p, r)
		}
	}
	saddle := mk(func(x, y float64) float64 { return (x - 0.05) * (y - 0.03) })
	lines = saddle.Lines(0.01)
	if len(lines) != 2 {
		t.Errorf("saddle: %d lines, want 2", len(lines))
	}
	for _, l := range lines {
		for _, p := range l {
			if v := (p.X - 0.05) * (p.Y - 0.03); math.Abs(v-0.01) > 0.01 {
				t.Errorf("saddle point %v: value %g", p, v)
			}
		}
	}
	if got := circle.Lines(100); len(got) != 0 {
		t.Errorf("level above the surface: %d lines", len(got))
	}
	circle.Z[5] = math.NaN()
	if got := circle.Lines(1); len(got) != 1 {
		t.Errorf("NaN away from the level set: %d lines", len(got))
	}
}

func TestErrors(t *testing.T) {
	ts := toyModels(t)
	ty := find(t, ts, "probit-2d")
	x3 := mat.NewDense(5, 3, nil)
	k, _ := kern.Parse("rbf+bias", 3)
	m3, err := engine.NewModel(k, noise.NewProbit(), mat.NewDense(1, 3, nil), nil,
		[]float64{1}, []float64{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]error{}
	_, cases["3 inputs"] = Model(m3, x3, nil, Options{})
	_, cases["data of 1 input"] = Model(ty.m, mat.NewDense(5, 1, nil), nil, Options{})
	_, cases["targets of wrong length"] = Model(ty.m, ty.x, ty.y[:3], Options{})
	_, cases["regression figure of probit"] = Regression(ty.m, ty.x, ty.y, Options{})
	_, cases["ordinal figure of probit"] = Ordinal(ty.m, ty.x, ty.y, Options{})
	_, cases["empty range"] = Model(ty.m, ty.x, ty.y, Options{XMin: 2, XMax: 1})
	_, cases["grid of 2"] = Model(ty.m, ty.x, ty.y, Options{Grid: 2})
	fig, _ := Model(ty.m, nil, nil, Options{Grid: 10})
	cases["jpg"] = fig.Save(filepath.Join(t.TempDir(), "f.jpg"), vg.Inch, vg.Inch)
	cases["zero size"] = fig.Save(filepath.Join(t.TempDir(), "f.png"), 0, vg.Inch)
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestParseLength(t *testing.T) {
	for s, want := range map[string]vg.Length{"12cm": 12 * vg.Centimeter,
		"90mm": 90 * vg.Millimeter, "4in": 4 * vg.Inch, "300pt": 300, "9": 9 * vg.Centimeter,
		" 4.5 IN ": 4.5 * vg.Inch} {
		got, err := ParseLength(s)
		if err != nil || math.Abs(float64(got-want)) > 1e-9 {
			t.Errorf("ParseLength(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "cm", "-3cm", "0", "12px", "NaNcm", "1000in"} {
		if _, err := ParseLength(s); err == nil {
			t.Errorf("ParseLength(%q) accepted", s)
		}
	}
}

// Predictor draws a predictor's model from labels as in its training data.
func TestPredictorLabels(t *testing.T) {
	ty := find(t, toyModels(t), "probit-2d")
	y := make([]float64, len(ty.y))
	for i, v := range ty.y {
		y[i] = 3
		if v > 0 {
			y[i] = 7
		}
	}
	p := &ivm.Predictor{Task: ivm.Binary, Classes: []float64{3, 7},
		Kind: &ivm.SingleKind{Model: ty.m}}
	coded, names, err := CodeTargets(p, 0, y)
	if err != nil {
		t.Fatal(err)
	}
	for i := range coded {
		if coded[i] != ty.y[i] {
			t.Fatalf("row %d coded %g, want %g", i, coded[i], ty.y[i])
		}
	}
	if fmt.Sprint(names) != "[3 7]" {
		t.Errorf("names %v", names)
	}
	if _, err := Predictor(p, 0, ty.x, y, Options{Grid: 20}); err != nil {
		t.Error(err)
	}
	y[0] = 5
	if _, err := Predictor(p, 0, ty.x, y, Options{}); err == nil {
		t.Error("label 5 accepted")
	}
	if _, err := Predictor(p, 1, ty.x, nil, Options{}); err == nil {
		t.Error("model 2 of 1 accepted")
	}
}

// The demo figure: a trained classifier's contours on the 2-D toy.
func TestDemo(t *testing.T) {
	fig, err := Demo(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Contours) != 3 || len(fig.Contours[0].Lines) == 0 {
		t.Errorf("demo contours %+v", fig.Contours)
	}
	path := filepath.Join(t.TempDir(), "demo.png")
	if dir := os.Getenv("IVM_PLOT_KEEP"); dir != "" {
		path = filepath.Join(dir, "demo.png")
	}
	if err := DemoFigure(path, 0, 0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

var _ plotter.GridXYZ = (&Grid{}).GridXYZ()
