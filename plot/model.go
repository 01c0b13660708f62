package plot

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/noise"
)

// Model draws the figure that fits m's noise model: NullCategory for the null category
// model, Regression for regression models, Classification for other binary models and
// Ordinal for ordered categories. x (N×D, D = 1 or 2, the model's inputs) and y are the
// data to show, in the model's coding (binary: −1, +1; ordinal: 0 … C−1; unlabelled: NaN
// or, for the null category model, 0); x may be nil to draw the model and its active set
// alone.
func Model(m *engine.Model, x *mat.Dense, y []float64, opt Options) (*Figure, error) {
	if m == nil || m.Noise == nil {
		return nil, errors.New("plot: no model")
	}
	if _, ok := m.Noise.(*noise.NullCategory); ok {
		return NullCategory(m, x, y, opt)
	}
	switch c := len(m.Noise.Classes()); {
	case c == 0:
		return Regression(m, x, y, opt)
	case c == 2:
		return Classification(m, x, y, opt)
	default:
		return Ordinal(m, x, y, opt)
	}
}

// setup is what every model figure needs: the checked inputs and the region drawn.
type setup struct {
	// predict gives the predictions at points in the model's coordinates: an engine model's,
	// or a whole predictor's (Predictions), which no one engine model stands for.
	predict func(pts *mat.Dense) ([]noise.Prediction, error)
	// active holds the points to mark (an engine model's active inputs, a projected model's
	// centres; nil: none) in the model's coordinates, activeRows their training rows when
	// known, and marks their legend name.
	active     *mat.Dense
	activeRows []int
	marks      string
	dim        int
	x          *mat.Dense
	// xa holds the marked points in the data's coordinates.
	xa     *mat.Dense
	y      []float64
	n      int
	opt    Options
	xr, yr [2]float64
	grid   int
}

func prepare(m *engine.Model, x *mat.Dense, y []float64, opt Options) (*setup, error) {
	if m == nil || m.Noise == nil || m.XActive == nil {
		return nil, errors.New("plot: no model")
	}
	_, dim := m.XActive.Dims()
	predict := func(pts *mat.Dense) ([]noise.Prediction, error) { return m.Predict(pts), nil }
	s := &setup{predict: predict,
		active: m.XActive, activeRows: m.Active, marks: "active", dim: dim}
	return s.check(x, y, opt)
}

// check completes s, whose predict, marks and dim are set, with the data and options.
func (s *setup) check(x *mat.Dense, y []float64, opt Options) (*setup, error) {
	s.x, s.y, s.opt = x, y, opt
	var d int
	var err error
	if s.dim != 1 && s.dim != 2 {
		return nil, fmt.Errorf(
			"plot: the model has %d inputs; figures of models are drawn for 1 or 2 inputs", s.dim)
	}
	if x != nil {
		s.n, d = x.Dims()
		if d != s.dim {
			return nil, fmt.Errorf("plot: the data have %d inputs, the model %d", d, s.dim)
		}
		if y != nil && len(y) != s.n {
			return nil, fmt.Errorf("plot: %d targets for %d data rows", len(y), s.n)
		}
	} else if y != nil {
		return nil, errors.New("plot: targets without inputs")
	}
	if s.xa, err = s.activeInputs(); err != nil {
		return nil, err
	}
	s.grid = opt.Grid
	if s.grid == 0 {
		s.grid = 80
		if s.dim == 1 {
			s.grid = 300
		}
	}
	if s.grid < 3 || s.grid > 2000 {
		return nil, fmt.Errorf("plot: grid of %d points per axis: want 3 to 2000", s.grid)
	}
	if s.xr, err = s.axisRange(0, opt.XMin, opt.XMax); err != nil {
		return nil, err
	}
	if s.dim == 2 {
		if s.yr, err = s.axisRange(1, opt.YMin, opt.YMax); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// axisRange is [lo, hi] when lo < hi, else the range of input j over the data and the
// active inputs, widened by 5 % on each side.
func (s *setup) axisRange(j int, lo, hi float64) ([2]float64, error) {
	if lo < hi && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
		return [2]float64{lo, hi}, nil
	}
	if lo > hi || math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return [2]float64{}, fmt.Errorf("plot: range [%g, %g] of input %d is empty", lo, hi, j+1)
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, a := range []*mat.Dense{s.x, s.xa} {
		if a == nil {
			continue
		}
		r, _ := a.Dims()
		for i := 0; i < r; i++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return [2]float64{}, fmt.Errorf("plot: input %d of row %d is %g", j+1, i+1, v)
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = 0.5 * math.Max(1, math.Abs(lo))
	}
	return [2]float64{lo - pad, hi + pad}, nil
}

func linspace(r [2]float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r[0] + (r[1]-r[0])*float64(i)/float64(n-1)
	}
	v[n-1] = r[1]
	return v
}

// predictGrid evaluates the model's predictions on the grid: 1-D, the points xs; 2-D, every
// (xs[c], ys[r]) in row-major order (r outer).
func (s *setup) predictGrid() (xs, ys []float64, preds []noise.Prediction, err error) {
	xs = linspace(s.xr, s.grid)
	if s.dim == 1 {
		preds, err = s.predict(s.toModel(mat.NewDense(len(xs), 1, append([]float64(nil), xs...))))
		return xs, nil, preds, err
	}
	ys = linspace(s.yr, s.grid)
	pts := mat.NewDense(len(xs)*len(ys), 2, nil)
	for r, yv := range ys {
		for c, xv := range xs {
			pts.Set(r*len(xs)+c, 0, xv)
			pts.Set(r*len(xs)+c, 1, yv)
		}
	}
	preds, err = s.predict(s.toModel(pts))
	if err == nil && len(preds) != len(xs)*len(ys) {
		err = fmt.Errorf("plot: %d predictions for %d grid points", len(preds), len(xs)*len(ys))
	}
	return xs, ys, preds, err
}

// activeInputs returns the model's active inputs in the data's coordinates, checking
// Options.InputShift and InputFactor.
func (s *setup) activeInputs() (*mat.Dense, error) {
	sh, f := s.opt.InputShift, s.opt.InputFactor
	if s.active == nil || (sh == nil && f == nil) {
		return s.active, nil
	}
	if len(sh) != s.dim || len(f) != s.dim {
		return nil, fmt.Errorf("plot: input scaling with %d shifts and %d factors for %d inputs",
			len(sh), len(f), s.dim)
	}
	for j := range f {
		if f[j] == 0 || math.IsNaN(f[j]) || math.IsInf(f[j], 0) || math.IsNaN(sh[j]) ||
			math.IsInf(sh[j], 0) {
			return nil, fmt.Errorf("plot: input %d scaled by (x − %g)·%g", j+1, sh[j], f[j])
		}
	}
	var xa mat.Dense
	xa.CloneFrom(s.active)
	d, _ := xa.Dims()
	for i := 0; i < d; i++ {
		for j := 0; j < s.dim; j++ {
			xa.Set(i, j, xa.At(i, j)/f[j]+sh[j])
		}
	}
	return &xa, nil
}

// toModel maps points in the data's coordinates to the model's, in place.
func (s *setup) toModel(pts *mat.Dense) *mat.Dense {
	if s.opt.InputFactor == nil {
		return pts
	}
	r, _ := pts.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < s.dim; j++ {
			pts.Set(i, j, (pts.At(i, j)-s.opt.InputShift[j])*s.opt.InputFactor[j])
		}
	}
	return pts
}

func surfaceOf(name string, xs, ys []float64, preds []noise.Prediction,
	f func(noise.Prediction) float64) Surface {
	z := make([]float64, len(preds))
	for i, p := range preds {
		z[i] = f(p)
	}
	return Surface{Name: name, Grid: &Grid{X: xs, Y: ys, Z: z}}
}

// probitLink is Φ⁻¹, clamped to ±8.3 (p within 1e−16 of 0 or 1). The level lines of a
// probability p = Φ(μ'/s) are found on Φ⁻¹(p), which is close to linear between grid
// points where p itself is not, so that linear interpolation along the grid's edges puts
// the lines where the model's probability is the level.
func probitLink(p float64) float64 {
	return distuv.UnitNormal.Quantile(math.Min(math.Max(p, 1e-16), 1-1e-16))
}

// addContours draws surface si's level lines at levels in one style and colour, with one
// legend entry named name (none when empty). With link (monotone increasing) the lines are
// found on link of the surface at link(level).
func addContours(p *plot.Plot, fig *Figure, si int, levels []float64, style string,
	col draw.LineStyle, name string, link func(float64) float64) error {
	g := fig.Surfaces[si].Grid
	if link != nil {
		lg := &Grid{X: g.X, Y: g.Y, Z: make([]float64, len(g.Z))}
		for i, v := range g.Z {
			lg.Z[i] = link(v)
		}
		g = lg
	}
	for _, lv := range levels {
		at := lv
		if link != nil {
			at = link(lv)
		}
		c := Contour{Surface: si, Level: lv, Style: style, Lines: g.Lines(at)}
		for _, l := range c.Lines {
			if len(l) < 2 {
				continue
			}
			if _, err := addLine(p, name, l, col); err != nil {
				return err
			}
			name = ""
		}
		fig.Contours = append(fig.Contours, c)
	}
	return nil
}

// points returns the data rows as plot points, 1-D inputs at height h(i).
func (s *setup) points(keep func(i int) bool, h func(i int) float64) plotter.XYs {
	var pts plotter.XYs
	for i := 0; i < s.n; i++ {
		if !keep(i) {
			continue
		}
		pt := plotter.XY{X: s.x.At(i, 0)}
		if s.dim == 2 {
			pt.Y = s.x.At(i, 1)
		} else {
			pt.Y = h(i)
		}
		pts = append(pts, pt)
	}
	return pts
}

// activePoints returns the active inputs as plot points. For 1-D inputs the height is the
// active point's target when the data are the training data (the model's Active rows hold
// its active inputs), else fallback at its input.
func (s *setup) activePoints(height func(i int) float64,
	fallback func(x float64) float64) plotter.XYs {
	if s.xa == nil {
		return nil
	}
	d, _ := s.xa.Dims()
	pts := make(plotter.XYs, d)
	train := s.isTrainingData()
	for k := range pts {
		pts[k].X = s.xa.At(k, 0)
		switch {
		case s.dim == 2:
			pts[k].Y = s.xa.At(k, 1)
		case train:
			pts[k].Y = height(s.activeRows[k])
		default:
			pts[k].Y = fallback(pts[k].X)
		}
	}
	return pts
}

// isTrainingData reports whether the model's Active rows of the data are its active inputs
// (to a relative 1e−9, the rounding of an input scaling undone).
func (s *setup) isTrainingData() bool {
	if s.xa == nil || s.x == nil || s.y == nil {
		return false
	}
	if d, _ := s.xa.Dims(); len(s.activeRows) != d {
		return false
	}
	for k, i := range s.activeRows {
		if i < 0 || i >= s.n {
			return false
		}
		for j := 0; j < s.dim; j++ {
			if a, b := s.x.At(i, j), s.xa.At(k, j); math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(a)) {
				return false
			}
		}
	}
	return true
}

// interp returns the piecewise linear interpolant of (xs, ys) at v.
func interp(xs, ys []float64, v float64) float64 {
	if v <= xs[0] {
		return ys[0]
	}
	for i := 1; i < len(xs); i++ {
		if v <= xs[i] {
			t := (v - xs[i-1]) / (xs[i] - xs[i-1])
			return ys[i-1] + t*(ys[i]-ys[i-1])
		}
	}
	return ys[len(ys)-1]
}

func (s *setup) labels(def string) (string, string) {
	if s.dim == 2 {
		return orDefault(s.opt.XLabel, "x1"), orDefault(s.opt.YLabel, "x2")
	}
	return orDefault(s.opt.XLabel, "x"), orDefault(s.opt.YLabel, def)
}

func (s *setup) className(k int, v float64) string {
	if k < len(s.opt.ClassNames) && s.opt.ClassNames[k] != "" {
		return "class " + s.opt.ClassNames[k]
	}
	return "class " + strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	activeRing = draw.GlyphStyle{Color: blue, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
	smallDot   = draw.GlyphStyle{Color: grey, Radius: vg.Points(1.2), Shape: draw.CircleGlyph{}}
)

func (s *setup) figure(title, ylabel string) (*Figure, *plot.Plot) {
	xl, yl := s.labels(ylabel)
	p := newPlot(orDefault(s.opt.Title, title), xl, yl)
	p.X.Min, p.X.Max = s.xr[0], s.xr[1]
	if s.dim == 2 {
		p.Y.Min, p.Y.Max = s.yr[0], s.yr[1]
	}
	return &Figure{Plot: p, Panels: []*plot.Plot{p}}, p
}

// finish adds the legend setting and returns the figure.
func (s *setup) finish(fig *Figure) (*Figure, error) {
	if s.opt.NoLegend {
		for _, p := range fig.Panels {
			p.Legend = plot.NewLegend()
		}
	}
	return fig, nil
}
