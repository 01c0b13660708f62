package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/noise"
)

// Classification draws a binary classifier (IVM paper Fig. 3). With 2-D inputs: the
// contour p(y=+1|x) = 0.5 (red, solid) and 0.25, 0.75 (blue, dashed) of Surfaces[0] =
// p(y=+1|x); class −1 as green crosses, class +1 as red circles, unlabelled rows as small
// grey dots; active inputs circled in blue. With 1-D inputs: the curve p(y=+1|x) (Series
// "p(y=+1)"), the data at heights 0 (class −1) and 1 (class +1), active points circled.
// y is in the model's coding (−1, +1; NaN unlabelled); see Model.
func Classification(m *engine.Model, x *mat.Dense, y []float64, opt Options) (*Figure, error) {
	s, err := prepare(m, x, y, opt)
	if err != nil {
		return nil, err
	}
	if len(m.Noise.Classes()) != 2 {
		return nil, fmt.Errorf("plot: classification figure of a %s model, which is not binary",
			m.Noise.Name())
	}
	title := fmt.Sprintf("IVM %s classifier, %d active points", m.Noise.Name(), m.Size())
	return s.classification(title)
}

// classification draws the figure Classification describes for s's predictions, whose
// Prob[1] is p(y=+1|x), with title unless Options set one.
func (s *setup) classification(title string) (*Figure, error) {
	fig, p := s.figure(title, "p(y=+1|x)")
	xs, ys, preds, err := s.predictGrid()
	if err != nil {
		return nil, err
	}
	prob := func(q noise.Prediction) float64 { return q.Prob[1] }
	is := func(v float64) func(int) bool {
		return func(i int) bool { return s.y != nil && s.y[i] == v }
	}
	unlabelled := func(i int) bool { return s.y == nil || (s.y[i] != -1 && s.y[i] != 1) }
	height := func(i int) float64 {
		if s.y[i] == 1 {
			return 1
		}
		if s.y[i] == -1 {
			return 0
		}
		return 0.5
	}
	if s.dim == 2 {
		fig.Surfaces = append(fig.Surfaces, surfaceOf("p(y=+1)", xs, ys, preds, prob))
		if err := addContours(p, fig, 0, []float64{0.5}, "solid", lineStyle(red, "solid"),
			"p = 0.5", probitLink); err != nil {
			return nil, err
		}
		if err := addContours(p, fig, 0, []float64{0.25, 0.75}, "dashed",
			lineStyle(blue, "dashed"), "p = 0.25, 0.75", probitLink); err != nil {
			return nil, err
		}
	} else {
		pv := make([]float64, len(preds))
		for i, q := range preds {
			pv[i] = prob(q)
		}
		fig.Series = append(fig.Series, Series{Name: "p(y=+1)", X: xs, Y: pv})
		if _, err := addLine(p, "p(y=+1|x)", xyOf(xs, pv), lineStyle(red, "solid")); err != nil {
			return nil, err
		}
		for _, lv := range []float64{0.25, 0.75} {
			if _, err := addLine(p, "", xyOf(s.xr[:], []float64{lv, lv}),
				lineStyle(blue, "dashed")); err != nil {
				return nil, err
			}
		}
		p.Y.Min, p.Y.Max = -0.05, 1.05
	}
	if s.x != nil {
		for _, e := range []struct {
			keep func(int) bool
			name string
			gs   draw.GlyphStyle
		}{
			{is(-1), s.className(0, -1),
				draw.GlyphStyle{Color: green, Radius: vg.Points(2.5), Shape: draw.CrossGlyph{}}},
			{is(1), s.className(1, 1),
				draw.GlyphStyle{Color: red, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}},
			{unlabelled, "unlabelled", smallDot},
		} {
			if err := scatter(p, e.name, s.points(e.keep, height), e.gs, true); err != nil {
				return nil, err
			}
		}
	}
	act := s.activePoints(height, func(v float64) float64 { return interp(xs, seriesY(fig, 0), v) })
	if err := scatter(p, s.marks, act, activeRing, true); err != nil {
		return nil, err
	}
	return s.finish(fig)
}

// seriesY returns the Y of series i, nil when there is none (2-D figures never use it).
func seriesY(fig *Figure, i int) []float64 {
	if i < len(fig.Series) {
		return fig.Series[i].Y
	}
	return nil
}

func xyOf(x, y []float64) plotter.XYs {
	pts := make(plotter.XYs, len(x))
	for i := range pts {
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts
}

// NullCategory draws a null category model (extensions paper Fig. 5): labelled points of
// class −1 as crosses and +1 as circles, unlabelled points (y NaN or 0) as small grey dots,
// active points as large blue dots; with 2-D inputs Surfaces[0] is the latent mean μ + b,
// the decision boundary its 0 contour (solid) and the edges of the null region its ±w/2
// contours (dotted, w = noise.NullWidth). With 1-D inputs the latent mean is Series 0, the
// boundary and edges horizontal lines, labelled points at ±1 and unlabelled ones at 0.
func NullCategory(m *engine.Model, x *mat.Dense, y []float64, opt Options) (*Figure, error) {
	s, err := prepare(m, x, y, opt)
	if err != nil {
		return nil, err
	}
	if len(m.Noise.Classes()) != 2 {
		return nil, fmt.Errorf("plot: null category figure of a %s model, which is not binary",
			m.Noise.Name())
	}
	fig, p := s.figure(fmt.Sprintf("IVM null category model, %d active points", m.Size()),
		"latent mean")
	xs, ys, preds, err := s.predictGrid()
	if err != nil {
		return nil, err
	}
	latent := func(q noise.Prediction) float64 { return q.Mean }
	is := func(v float64) func(int) bool {
		return func(i int) bool { return s.y != nil && s.y[i] == v }
	}
	unlabelled := func(i int) bool { return s.y == nil || (s.y[i] != -1 && s.y[i] != 1) }
	height := func(i int) float64 {
		if s.y[i] == 1 || s.y[i] == -1 {
			return s.y[i]
		}
		return 0
	}
	edge := float64(noise.NullWidth) / 2
	if s.dim == 2 {
		fig.Surfaces = append(fig.Surfaces, surfaceOf("latent", xs, ys, preds, latent))
		if err := addContours(p, fig, 0, []float64{0}, "solid", lineStyle(red, "solid"),
			"boundary", nil); err != nil {
			return nil, err
		}
		if err := addContours(p, fig, 0, []float64{-edge, edge}, "dotted",
			lineStyle(blue, "dotted"), "null region", nil); err != nil {
			return nil, err
		}
	} else {
		mv := make([]float64, len(preds))
		for i, q := range preds {
			mv[i] = latent(q)
		}
		fig.Series = append(fig.Series, Series{Name: "latent", X: xs, Y: mv})
		if _, err := addLine(p, "latent mean", xyOf(xs, mv),
			lineStyle(black, "solid")); err != nil {
			return nil, err
		}
		if _, err := addLine(p, "boundary", xyOf(s.xr[:], []float64{0, 0}),
			lineStyle(red, "solid")); err != nil {
			return nil, err
		}
		for _, lv := range []float64{-edge, edge} {
			if _, err := addLine(p, "", xyOf(s.xr[:], []float64{lv, lv}),
				lineStyle(blue, "dotted")); err != nil {
				return nil, err
			}
		}
	}
	// Active points first, so that the labelled points' markers show on top of them.
	act := s.activePoints(height, func(v float64) float64 { return interp(xs, seriesY(fig, 0), v) })
	big := draw.GlyphStyle{Color: blue, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
	if err := scatter(p, s.marks, act, big, true); err != nil {
		return nil, err
	}
	if s.x != nil {
		if err := scatter(p, "unlabelled", s.points(unlabelled, height),
			smallDot, true); err != nil {
			return nil, err
		}
		if err := scatter(p, s.className(0, -1), s.points(is(-1), height),
			draw.GlyphStyle{Color: green, Radius: vg.Points(3), Shape: draw.CrossGlyph{}},
			true); err != nil {
			return nil, err
		}
		if err := scatter(p, s.className(1, 1), s.points(is(1), height),
			draw.GlyphStyle{Color: red, Radius: vg.Points(3), Shape: draw.RingGlyph{}},
			true); err != nil {
			return nil, err
		}
	}
	return s.finish(fig)
}

// Ordinal draws an ordered categorical model (IVM paper Fig. 4). With 2-D inputs Surfaces[k]
// is P(y > k | x) for k = 0 … C−2; its 0.5 contour is the boundary between categories k and
// k+1 (red, solid) and its 0.25 and 0.75 contours the expected quartiles (blue, dashed).
// The categories get different markers and colours, active inputs are circled. With 1-D
// inputs Series 0 is the expected category E[y|x] and the data are drawn at their categories.
func Ordinal(m *engine.Model, x *mat.Dense, y []float64, opt Options) (*Figure, error) {
	s, err := prepare(m, x, y, opt)
	if err != nil {
		return nil, err
	}
	classes := m.Noise.Classes()
	nc := len(classes)
	if nc < 3 {
		return nil, fmt.Errorf("plot: ordinal figure of a %s model with %d classes",
			m.Noise.Name(), nc)
	}
	fig, p := s.figure(fmt.Sprintf("IVM ordinal model, %d categories, %d active points",
		nc, m.Size()), "category")
	xs, ys, preds, err := s.predictGrid()
	if err != nil {
		return nil, err
	}
	// above(k) is P(y > k) = Σ_{j>k} p_j.
	above := func(k int) func(noise.Prediction) float64 {
		return func(q noise.Prediction) float64 {
			var sum float64
			for _, v := range q.Prob[k+1:] {
				sum += v
			}
			return math.Min(sum, 1)
		}
	}
	if s.dim == 2 {
		for k := 0; k < nc-1; k++ {
			fig.Surfaces = append(fig.Surfaces,
				surfaceOf(fmt.Sprintf("P(y>%g)", classes[k]), xs, ys, preds, above(k)))
		}
		bname, qname := "boundaries", "quartiles"
		for k := 0; k < nc-1; k++ {
			if err := addContours(p, fig, k, []float64{0.5}, "solid", lineStyle(red, "solid"),
				bname, probitLink); err != nil {
				return nil, err
			}
			if err := addContours(p, fig, k, []float64{0.25, 0.75}, "dashed",
				lineStyle(blue, "dashed"), qname, probitLink); err != nil {
				return nil, err
			}
			bname, qname = "", ""
		}
	} else {
		ev := make([]float64, len(preds))
		for i, q := range preds {
			for j, v := range q.Prob {
				ev[i] += classes[j] * v
			}
		}
		fig.Series = append(fig.Series, Series{Name: "E[y]", X: xs, Y: ev})
		if _, err := addLine(p, "E[y|x]", xyOf(xs, ev), lineStyle(red, "solid")); err != nil {
			return nil, err
		}
	}
	height := func(i int) float64 { return s.y[i] }
	if s.x != nil {
		for k, c := range classes {
			gs := draw.GlyphStyle{Color: palette8[k%len(palette8)], Radius: vg.Points(2.5),
				Shape: glyphs[k%len(glyphs)]}
			keep := func(i int) bool { return s.y != nil && s.y[i] == c }
			if err := scatter(p, s.className(k, c), s.points(keep, height), gs, true); err != nil {
				return nil, err
			}
		}
		// Rows without a category (unlabelled, or not one of the model's) have no height in
		// a 1-D figure; in a 2-D one they are small grey dots.
		other := func(i int) bool {
			if s.y == nil {
				return true
			}
			v := s.y[i]
			return !(v == math.Trunc(v) && v >= classes[0] && v <= classes[nc-1])
		}
		if s.dim == 2 {
			if err := scatter(p, "other", s.points(other, nil), smallDot, true); err != nil {
				return nil, err
			}
		}
	}
	act := s.activePoints(height, func(v float64) float64 { return interp(xs, seriesY(fig, 0), v) })
	if err := scatter(p, s.marks, act, activeRing, true); err != nil {
		return nil, err
	}
	return s.finish(fig)
}

// Regression draws a regression model (IVM paper Fig. 2). With 1-D inputs: the data as black
// dots, the predictive mean (Series 0, "mean") and the band mean ± 2 standard deviations of
// the predictive distribution (Series 1 and 2, "mean-2sd", "mean+2sd"), active points
// circled in red. With 2-D inputs: the predictive mean (Surfaces[0]) as a heat map (blue
// low, red high), the data as small black dots and the active inputs circled.
func Regression(m *engine.Model, x *mat.Dense, y []float64, opt Options) (*Figure, error) {
	s, err := prepare(m, x, y, opt)
	if err != nil {
		return nil, err
	}
	if m.Noise.Classes() != nil {
		return nil, fmt.Errorf("plot: regression figure of a %s model", m.Noise.Name())
	}
	return s.regression(fmt.Sprintf("IVM regression, %d active points", m.Size()))
}

// regression draws the figure Regression describes for s's predictions (Mean and Var of
// y), with title unless Options set one.
func (s *setup) regression(title string) (*Figure, error) {
	fig, p := s.figure(title, "y")
	xs, ys, preds, err := s.predictGrid()
	if err != nil {
		return nil, err
	}
	height := func(i int) float64 { return s.y[i] }
	ring := draw.GlyphStyle{Color: red, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
	dot := draw.GlyphStyle{Color: black, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}
	if s.dim == 1 {
		mean, lo, hi := make([]float64, len(preds)), make([]float64, len(preds)),
			make([]float64, len(preds))
		for i, q := range preds {
			sd := math.Sqrt(math.Max(q.Var, 0))
			mean[i], lo[i], hi[i] = q.Mean, q.Mean-2*sd, q.Mean+2*sd
		}
		fig.Series = append(fig.Series, Series{Name: "mean", X: xs, Y: mean},
			Series{Name: "mean-2sd", X: xs, Y: lo}, Series{Name: "mean+2sd", X: xs, Y: hi})
		band := make(plotter.XYs, 0, 2*len(xs))
		band = append(band, xyOf(xs, lo)...)
		for i := len(xs) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: xs[i], Y: hi[i]})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, err
		}
		poly.Color = lightBlue
		poly.LineStyle.Width = 0
		p.Add(poly)
		p.Legend.Add("mean ± 2 sd", poly)
		if _, err := addLine(p, "mean", xyOf(xs, mean), lineStyle(blue, "solid")); err != nil {
			return nil, err
		}
		if s.x != nil && s.y != nil {
			finite := func(i int) bool { return !math.IsNaN(s.y[i]) && !math.IsInf(s.y[i], 0) }
			if err := scatter(p, "data", s.points(finite, height), dot, true); err != nil {
				return nil, err
			}
		}
		act := s.activePoints(height, func(v float64) float64 { return interp(xs, mean, v) })
		if err := scatter(p, s.marks, act, ring, true); err != nil {
			return nil, err
		}
		return s.finish(fig)
	}
	fig.Surfaces = append(fig.Surfaces, surfaceOf("mean", xs, ys, preds,
		func(q noise.Prediction) float64 { return q.Mean }))
	g := fig.Surfaces[0].Grid
	lo, hi := g.Min(), g.Max()
	if !(hi > lo) {
		hi = lo + 1
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(lo)
	cm.SetMax(hi)
	hm := plotter.NewHeatMap(g.GridXYZ(), cm.Palette(255))
	hm.Min, hm.Max = lo, hi
	hm.Rasterized = true // no seams between the cells
	p.Add(hm)
	if s.opt.Title == "" {
		p.Title.Text += fmt.Sprintf("\npredictive mean from %s (blue) to %s (red)",
			fmtG(lo), fmtG(hi))
	}
	if s.x != nil {
		if err := scatter(p, "data", s.points(func(int) bool { return true }, nil),
			dot, true); err != nil {
			return nil, err
		}
	}
	act := s.activePoints(nil, nil)
	ring.Color = black
	if err := scatter(p, s.marks, act, ring, true); err != nil {
		return nil, err
	}
	return s.finish(fig)
}
