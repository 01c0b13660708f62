package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ClassProbs returns the predictive class probabilities at the rows of x, one
// slice of length nClass per row (e.g. archipelago.Chain.Predict).
type ClassProbs func(x *mat.Dense) ([][]float64, error)

// ClassMap evaluates a multi-class predictive distribution over 2-D inputs on a
// grid (Options.Grid, default 50 per axis) and draws the Archipelago paper's
// Fig. 3 panels: Panels[0] the predictive mode (each cell in the colour of its
// most probable class) and Panels[1] the predictive entropy in nats (from 0,
// blue, to ln nClass, red). Both show the training inputs x: labelled rows
// (labels[i] in 0..nClass−1) as a black cross over their class colour,
// unlabelled rows (labels[i] < 0) as small dots. Surfaces are "mode" (the class
// index) and "entropy". The grid spans the data widened by 5 % unless the
// Options set XMin…YMax. name heads both panels' titles.
func ClassMap(predict ClassProbs, name string, x *mat.Dense, labels []int, nClass int,
	opt Options) (*Figure, error) {
	grid, err := checkClassMap(predict, x, labels, nClass, opt.Grid)
	if err != nil {
		return nil, err
	}
	s := &setup{x: x, dim: 2}
	xr, err := s.axisRange(0, opt.XMin, opt.XMax)
	if err != nil {
		return nil, err
	}
	yr, err := s.axisRange(1, opt.YMin, opt.YMax)
	if err != nil {
		return nil, err
	}
	xs, ys := linspace(xr, grid), linspace(yr, grid)
	probs, err := predict(gridPoints(xs, ys))
	if err != nil {
		return nil, err
	}
	if len(probs) != grid*grid {
		return nil, fmt.Errorf("plot: predictor returned %d rows for %d grid points", len(probs),
			grid*grid)
	}
	mode, ent, err := modeAndEntropy(probs, xs, ys, nClass)
	if err != nil {
		return nil, err
	}
	fig := &Figure{Surfaces: []Surface{{Name: "mode", Grid: mode}, {Name: "entropy", Grid: ent}}}
	panels := []*plot.Plot{modePanel(name, mode, nClass), entropyPanel(name, ent, nClass)}
	unl, lab := trainingPoints(x, labels, nClass)
	for _, p := range panels {
		if err := markTrainingPoints(p, unl, lab); err != nil {
			return nil, err
		}
		// The heat maps' cells are centred on the grid points: the axes end half a cell out.
		hx, hy := 0.5*(xs[1]-xs[0]), 0.5*(ys[1]-ys[0])
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xr[0]-hx, xr[1]+hx, yr[0]-hy, yr[1]+hy
	}
	fig.Panels = panels
	return fig, nil
}

// checkClassMap checks ClassMap's arguments before any prediction is made and returns the
// number of grid points per axis, grid or its default of 50.
func checkClassMap(predict ClassProbs, x *mat.Dense, labels []int, nClass, grid int) (int, error) {
	if predict == nil || x == nil {
		return 0, errors.New("plot: class map needs a predictor and the training inputs")
	}
	n, dim := x.Dims()
	if dim != 2 {
		return 0, fmt.Errorf("plot: class map of %d-D inputs; it draws 2-D inputs only", dim)
	}
	if len(labels) != n {
		return 0, fmt.Errorf("plot: %d labels for %d rows", len(labels), n)
	}
	if nClass < 2 {
		return 0, fmt.Errorf("plot: class map of %d classes", nClass)
	}
	for i, l := range labels {
		if l >= nClass {
			return 0, fmt.Errorf("plot: row %d has class %d of %d", i+1, l, nClass)
		}
	}
	if grid == 0 {
		grid = 50
	}
	if grid < 3 {
		return 0, fmt.Errorf("plot: grid of %d points per axis, want at least 3", grid)
	}
	return grid, nil
}

// gridPoints returns every point (xs[c], ys[r]) of a grid as a row, in row-major order
// (r outer), the order of a Grid's Z.
func gridPoints(xs, ys []float64) *mat.Dense {
	pts := mat.NewDense(len(xs)*len(ys), 2, nil)
	for r, yv := range ys {
		for c, xv := range xs {
			pts.Set(r*len(xs)+c, 0, xv)
			pts.Set(r*len(xs)+c, 1, yv)
		}
	}
	return pts
}

// modeAndEntropy returns the surfaces of the most probable class and of the entropy in nats
// of the class probabilities probs at the grid points, checking that each point has
// nClass probabilities, none NaN or negative.
func modeAndEntropy(probs [][]float64, xs, ys []float64, nClass int) (mode, ent *Grid,
	err error) {
	mode = &Grid{X: xs, Y: ys, Z: make([]float64, len(probs))}
	ent = &Grid{X: xs, Y: ys, Z: make([]float64, len(probs))}
	for i, p := range probs {
		if len(p) != nClass {
			return nil, nil, fmt.Errorf("plot: predictor returned %d probabilities for %d classes",
				len(p), nClass)
		}
		best := 0
		for k, v := range p {
			if math.IsNaN(v) || v < 0 {
				return nil, nil, fmt.Errorf("plot: predictor returned probability %g", v)
			}
			if v > p[best] {
				best = k
			}
			if v > 0 {
				ent.Z[i] -= v * math.Log(v)
			}
		}
		mode.Z[i] = float64(best)
	}
	return mode, ent, nil
}

// modePanel draws the mode surface with each cell in the pastel colour of its class,
// light enough for the training points drawn over it.
func modePanel(name string, mode *Grid, nClass int) *plot.Plot {
	colours := make([]color.Color, nClass)
	for k := range colours {
		colours[k] = pastel(palette8[k%len(palette8)])
	}
	mp := newPlot(name+": mode", "x1", "x2")
	hm := plotter.NewHeatMap(mode.GridXYZ(), fixedPalette(colours))
	hm.Min, hm.Max = 0, float64(nClass-1)
	hm.Rasterized = true
	mp.Add(hm)
	return mp
}

// entropyPanel draws the entropy surface from blue at 0 to red at ln nClass, the entropy
// of the uniform distribution, so that panels of the same number of classes compare.
func entropyPanel(name string, ent *Grid, nClass int) *plot.Plot {
	emax := math.Log(float64(nClass))
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(emax)
	ep := newPlot(fmt.Sprintf("%s: entropy, 0 (blue) to ln %d (red)", name, nClass), "x1", "x2")
	eh := plotter.NewHeatMap(ent.GridXYZ(), cm.Palette(255))
	eh.Min, eh.Max = 0, emax
	eh.Rasterized = true
	ep.Add(eh)
	return ep
}

// trainingPoints splits the training inputs x into the unlabelled rows (labels[i] < 0) and
// the labelled rows of each class, which are drawn differently.
func trainingPoints(x *mat.Dense, labels []int, nClass int) (unl plotter.XYs,
	lab []plotter.XYs) {
	lab = make([]plotter.XYs, nClass)
	for i, l := range labels {
		pt := plotter.XY{X: x.At(i, 0), Y: x.At(i, 1)}
		if l < 0 {
			unl = append(unl, pt)
		} else {
			lab[l] = append(lab[l], pt)
		}
	}
	return unl, lab
}

// markTrainingPoints draws the unlabelled training points unl on p as small dots and the
// labelled ones lab[k] as a black cross on a ring in class k's colour.
func markTrainingPoints(p *plot.Plot, unl plotter.XYs, lab []plotter.XYs) error {
	dot := draw.GlyphStyle{Color: black, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}
	if err := scatter(p, "", unl, dot, false); err != nil {
		return err
	}
	for k, pts := range lab {
		ring := draw.GlyphStyle{Color: palette8[k%len(palette8)], Radius: vg.Points(5),
			Shape: draw.CircleGlyph{}}
		if err := scatter(p, "", pts, ring, false); err != nil {
			return err
		}
		cross := draw.GlyphStyle{Color: black, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
		if err := scatter(p, "", pts, cross, false); err != nil {
			return err
		}
	}
	return nil
}

// pastel mixes c halfway with white, so that the points drawn over a class
// colour stay visible.
func pastel(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 255) / 2) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 255}
}

// fixedPalette is a palette.Palette of the given colours.
type fixedPalette []color.Color

func (p fixedPalette) Colors() []color.Color { return p }

// ClassCurves draws each class's predictive probability p(classes[k] | x) along a 1-D
// input, the counterpart of ClassMap for one input: Series k is class k's curve on a grid
// of Options.Grid points (default 300) over x widened by 5 %, or Options.XMin to XMax.
func ClassCurves(predict ClassProbs, classes []float64, x *mat.Dense,
	opt Options) (*Figure, error) {
	if predict == nil || x == nil {
		return nil, errors.New("plot: class curves need a predictor and inputs to span")
	}
	if _, dim := x.Dims(); dim != 1 {
		return nil, fmt.Errorf("plot: class curves of %d-D inputs; they draw 1-D inputs only", dim)
	}
	grid := opt.Grid
	if grid == 0 {
		grid = 300
	}
	if grid < 3 {
		return nil, fmt.Errorf("plot: grid of %d points, want at least 3", grid)
	}
	s := &setup{x: x, dim: 1}
	xr, err := s.axisRange(0, opt.XMin, opt.XMax)
	if err != nil {
		return nil, err
	}
	xs := linspace(xr, grid)
	probs, err := predict(mat.NewDense(grid, 1, append([]float64(nil), xs...)))
	if err != nil {
		return nil, err
	}
	series := make([]Series, len(classes))
	for k, c := range classes {
		series[k] = Series{Name: fmt.Sprintf("p(%g | x)", c), X: xs, Y: make([]float64, grid)}
		for i, p := range probs {
			if len(p) != len(classes) {
				return nil, fmt.Errorf("plot: predictor returned %d probabilities for %d classes",
					len(p), len(classes))
			}
			series[k].Y[i] = p[k]
		}
	}
	opt.Title = orDefault(opt.Title, "predictive class probabilities")
	opt.XLabel = orDefault(opt.XLabel, "x")
	opt.YLabel = orDefault(opt.YLabel, "probability")
	return Curves(series, opt)
}
