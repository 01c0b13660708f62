package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CurvePoint is one run's figure on a learning curve: a model of strategy Strategy after
// Labels labels scored Value (one seed's, say).
type CurvePoint struct {
	Strategy      string
	Labels, Value float64
}

// CurveReference is a horizontal reference line of a learning-curve figure, such as the
// full-data model's figure.
type CurveReference struct {
	Name  string
	Value float64
}

// LearningCurves draws each strategy's learning curve: the mean of its points' values at
// each number of labels (Series named after the strategy, YErr the standard deviation),
// with a band from mean − sd to mean + sd (sd the sample standard deviation over the
// points there, 0 for one point; on a logarithmic y axis the band's lower edge is clipped
// at a tenth of the mean), and each reference as a dashed horizontal line across the
// labels drawn (Series named after it). Strategies keep the order of their first point.
// The legend names the strategies alone: the title, opt.Title, should say what the band is.
// Every value must be finite (and positive on a logarithmic axis).
func LearningCurves(points []CurvePoint, refs []CurveReference, opt Options) (*Figure, error) {
	curves, err := curveStats(points, opt)
	if err != nil {
		return nil, err
	}
	p := newPlot(opt.Title, orDefault(opt.XLabel, "labels"), opt.YLabel)
	if opt.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if opt.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	fig := &Figure{Plot: p, Panels: []*plot.Plot{p}}
	for k, c := range curves {
		col, glyph := palette8[k%len(palette8)], glyphs[k%len(glyphs)]
		if err := drawCurve(p, c, col, glyph, opt.LogY); err != nil {
			return nil, err
		}
		fig.Series = append(fig.Series, Series{Name: c.name, X: c.x, Y: c.mean, YErr: c.sd})
	}
	lo, hi := curves[0].x[0], curves[0].x[len(curves[0].x)-1]
	for _, c := range curves[1:] {
		lo, hi = math.Min(lo, c.x[0]), math.Max(hi, c.x[len(c.x)-1])
	}
	for k, r := range refs {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || (opt.LogY && r.Value <= 0) {
			return nil, fmt.Errorf("plot: reference %q is %g", r.Name, r.Value)
		}
		x, y := []float64{lo, hi}, []float64{r.Value, r.Value}
		col := []color.Color{black, grey}[k%2]
		if _, err := addLine(p, r.Name, xyOf(x, y), lineStyle(col, "dashed")); err != nil {
			return nil, err
		}
		fig.Series = append(fig.Series, Series{Name: r.Name, X: x, Y: y})
	}
	return finishLegend(fig, opt), nil
}

// curveStat is one strategy's curve: the numbers of labels in ascending order, and the
// mean and standard deviation of the values at each.
type curveStat struct {
	name        string
	x, mean, sd []float64
}

// curveStats groups the points by strategy and number of labels, checking their values.
func curveStats(points []CurvePoint, opt Options) ([]curveStat, error) {
	if len(points) == 0 {
		return nil, errors.New("plot: no points to draw")
	}
	var names []string
	values := map[string]map[float64][]float64{}
	for i, pt := range points {
		if !finite(pt.Labels) || !finite(pt.Value) || (opt.LogX && pt.Labels <= 0) ||
			(opt.LogY && pt.Value <= 0) {
			return nil, fmt.Errorf("plot: point %d (%s): (%g, %g) cannot be drawn", i+1,
				pt.Strategy, pt.Labels, pt.Value)
		}
		if values[pt.Strategy] == nil {
			names = append(names, pt.Strategy)
			values[pt.Strategy] = map[float64][]float64{}
		}
		values[pt.Strategy][pt.Labels] = append(values[pt.Strategy][pt.Labels], pt.Value)
	}
	out := make([]curveStat, len(names))
	for k, name := range names {
		c := curveStat{name: name}
		for x := range values[name] {
			c.x = append(c.x, x)
		}
		slices.Sort(c.x)
		for _, x := range c.x {
			v := values[name][x]
			m, s := stat.Mean(v, nil), 0.0
			if len(v) > 1 {
				s = stat.StdDev(v, nil)
			}
			c.mean, c.sd = append(c.mean, m), append(c.sd, s)
		}
		out[k] = c
	}
	return out, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// drawCurve draws curve c in colour col: its band under its mean line and marked points.
func drawCurve(p *plot.Plot, c curveStat, col color.Color, glyph draw.GlyphDrawer,
	logY bool) error {
	band := make(plotter.XYs, 0, 2*len(c.x))
	for i := range c.x {
		low := c.mean[i] - c.sd[i]
		if logY {
			low = math.Max(low, c.mean[i]/10)
		}
		band = append(band, plotter.XY{X: c.x[i], Y: low})
	}
	for i := len(c.x) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: c.x[i], Y: c.mean[i] + c.sd[i]})
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return err
	}
	r, g, b, _ := col.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 56}
	poly.LineStyle.Width = 0
	p.Add(poly)
	pts := xyOf(c.x, c.mean)
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	l.LineStyle = lineStyle(col, "solid")
	s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.2), Shape: glyph}
	p.Add(l, s)
	p.Legend.Add(c.name, l, s, poly)
	return nil
}
