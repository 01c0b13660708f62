package plot

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ivmlab/ivm/engine"
)

// Trace draws the learning trace of Algorithm 2 (ModelMeta.Trace or LearnResult.Trace) in
// two or three panels against the outer iteration (1-based): the kernel objective at the
// start and end of each iteration's optimisation (Series "kernel before", "kernel after"),
// the noise objective likewise when the noise parameters were learnt ("noise before",
// "noise after"), and the held-out log likelihood per point at the start of each
// iteration, with the final model's at the iteration after the last ("held-out",
// "held-out final"). Objectives that were not computed (zero in the trace) are left out;
// iterations whose parameters were rejected are marked with a cross on the held-out curve.
func Trace(trace []engine.IterTrace, opt Options) (*Figure, error) {
	if len(trace) == 0 {
		return nil, errors.New("plot: the learning trace is empty (was the kernel learnt?)")
	}
	d := tracePoints(trace)
	fig := &Figure{}
	xl := orDefault(opt.XLabel, "outer iteration")
	title := orDefault(opt.Title, "Learning trace (Algorithm 2)")
	kernel := []traceCurve{{"kernel before", d.kb, 0, "dashed"}, {"kernel after", d.ka, 1, "solid"}}
	if err := addTracePanel(fig, title, xl, "kernel objective", kernel); err != nil {
		return nil, err
	}
	noise := []traceCurve{{"noise before", d.nb, 0, "dashed"}, {"noise after", d.na, 1, "solid"}}
	if err := addTracePanel(fig, "", xl, "noise objective", noise); err != nil {
		return nil, err
	}
	heldOut := []traceCurve{{"held-out", d.ho, 2, "solid"}, {"held-out final", d.fin, 3, "solid"}}
	if err := addTracePanel(fig, "", xl, "held-out ln p per point", heldOut); err != nil {
		return nil, err
	}
	if len(fig.Panels) == 0 {
		return nil, errors.New(
			"plot: the learning trace holds no finite objective or held-out value")
	}
	p := fig.Panels[len(fig.Panels)-1]
	cross := draw.GlyphStyle{Color: red, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
	if err := scatter(p, "rejected", d.rej, cross, true); err != nil {
		return nil, err
	}
	// Every panel spans the same iterations; the axis is named below the last.
	for i, q := range fig.Panels {
		q.X.Min, q.X.Max = 0.5, float64(d.last+1)+0.5
		if i < len(fig.Panels)-1 {
			q.X.Label.Text = ""
		}
	}
	if len(fig.Panels) == 1 {
		fig.Plot = fig.Panels[0]
	}
	return finishLegend(fig, opt), nil
}

// traceData holds the points of Trace's curves against the outer iteration (1-based).
type traceData struct {
	kb, ka, nb, na plotter.XYs // kernel and noise objectives before and after
	ho, fin, rej   plotter.XYs // held-out values: per iteration, final, rejected
	last           int         // the last iteration that is not the final model's
}

// tracePoints collects the finite values of the learning trace as Trace's curves; the
// final model's held-out value is placed at the iteration after the last.
func tracePoints(trace []engine.IterTrace) traceData {
	var d traceData
	for _, t := range trace {
		it := float64(t.Iter + 1)
		if t.Final {
			continue
		}
		d.last = max(d.last, t.Iter+1)
		addObjective(&d.kb, it, t.KernelBefore)
		addObjective(&d.ka, it, t.KernelAfter)
		if t.NoiseSteps > 0 {
			addObjective(&d.nb, it, t.NoiseBefore)
			addObjective(&d.na, it, t.NoiseAfter)
		}
		if !math.IsNaN(t.HeldOut) && !math.IsInf(t.HeldOut, 0) {
			d.ho = append(d.ho, plotter.XY{X: it, Y: t.HeldOut})
			if t.Rejected {
				d.rej = append(d.rej, plotter.XY{X: it, Y: t.HeldOut})
			}
		}
	}
	for _, t := range trace {
		if t.Final && !math.IsNaN(t.HeldOut) && !math.IsInf(t.HeldOut, 0) {
			d.fin = append(d.fin, plotter.XY{X: float64(d.last + 1), Y: t.HeldOut})
		}
	}
	return d
}

// addObjective appends the objective v at iteration it to dst unless it was not computed
// (zero in the trace) or is not finite.
func addObjective(dst *plotter.XYs, it, v float64) {
	if v != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
		*dst = append(*dst, plotter.XY{X: it, Y: v})
	}
}

// addTracePanel adds a Trace panel of curves to fig, with its Series, unless every curve is
// empty: a panel per kind of value, drawn only when the trace holds such values.
func addTracePanel(fig *Figure, title, xlabel, ylabel string, curves []traceCurve) error {
	nonEmpty := false
	for _, c := range curves {
		nonEmpty = nonEmpty || len(c.pts) > 0
	}
	if !nonEmpty {
		return nil
	}
	p := newPlot(title, xlabel, ylabel)
	p.X.Tick.Marker = integerTicks{}
	idx := len(fig.Panels)
	for _, c := range curves {
		if len(c.pts) == 0 {
			continue
		}
		col := palette8[c.col]
		l, s, err := plotter.NewLinePoints(c.pts)
		if err != nil {
			return err
		}
		l.LineStyle = lineStyle(col, c.dash)
		s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5),
			Shape: draw.CircleGlyph{}}
		p.Add(l, s)
		p.Legend.Add(c.name, l, s)
		x, y := make([]float64, len(c.pts)), make([]float64, len(c.pts))
		for i, pt := range c.pts {
			x[i], y[i] = pt.X, pt.Y
		}
		fig.Series = append(fig.Series, Series{Name: c.name, Panel: idx, X: x, Y: y})
	}
	fig.Panels = append(fig.Panels, p)
	return nil
}

// traceCurve is one curve of a Trace panel: its points, colour index and line style.
type traceCurve struct {
	name string
	pts  plotter.XYs
	col  int
	dash string
}

func finishLegend(fig *Figure, opt Options) *Figure {
	if opt.NoLegend {
		for _, p := range fig.Panels {
			p.Legend = plot.NewLegend()
		}
	}
	return fig
}

// integerTicks marks the integers of an axis (at most about ten of them).
type integerTicks struct{}

// Ticks implements plot.Ticker.
func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/10))
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
	}
	return ts
}

// Curves draws named (x, y) series in one panel with the axis labels of opt (e.g. KL
// divergence against time for several methods). Series of up to 30 points are drawn with
// their points marked, and with error bars where YErr is set. With opt.LogX or opt.LogY
// that axis is logarithmic and its values must be positive. Every value must be finite.
func Curves(series []Series, opt Options) (*Figure, error) {
	if len(series) == 0 {
		return nil, errors.New("plot: no series to draw")
	}
	p := newPlot(opt.Title, opt.XLabel, opt.YLabel)
	if opt.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if opt.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	fig := &Figure{Plot: p, Panels: []*plot.Plot{p}}
	for k, s := range series {
		if len(s.X) != len(s.Y) || len(s.X) == 0 {
			return nil, fmt.Errorf("plot: series %q has %d x and %d y values",
				s.Name, len(s.X), len(s.Y))
		}
		pts := make(plotter.XYs, len(s.X))
		for i := range s.X {
			x, y := s.X[i], s.Y[i]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
				return nil, fmt.Errorf("plot: series %q, point %d: (%g, %g) is not finite",
					s.Name, i+1, x, y)
			}
			if (opt.LogX && x <= 0) || (opt.LogY && y <= 0) {
				return nil, fmt.Errorf("plot: series %q, point %d: (%g, %g) on a logarithmic axis",
					s.Name, i+1, x, y)
			}
			pts[i] = plotter.XY{X: x, Y: y}
		}
		col := palette8[k%len(palette8)]
		if s.YErr != nil {
			bars, err := errorBars(s, pts, opt.LogY)
			if err != nil {
				return nil, err
			}
			bars.LineStyle = lineStyle(col, "solid")
			bars.LineStyle.Width = vg.Points(0.8)
			p.Add(bars)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.LineStyle = lineStyle(col, "solid")
		if k >= len(palette8) {
			l.LineStyle = lineStyle(col, "dashed")
		}
		p.Add(l)
		if len(pts) <= 30 {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.2),
				Shape: glyphs[k%len(glyphs)]}
			p.Add(sc)
			p.Legend.Add(s.Name, l, sc)
		} else {
			p.Legend.Add(s.Name, l)
		}
		fig.Series = append(fig.Series, Series{Name: s.Name,
			X: append([]float64(nil), s.X...), Y: append([]float64(nil), s.Y...),
			YErr: append([]float64(nil), s.YErr...)})
	}
	// A logarithmic axis whose data span no range (one point) would be widened by ±1 when
	// drawn, below 0 for values under 1, where gonum's log scale panics: widen it by a
	// factor of 2 each way instead.
	if opt.LogX && p.X.Min == p.X.Max {
		p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
	}
	if opt.LogY && p.Y.Min == p.Y.Max {
		p.Y.Min, p.Y.Max = p.Y.Min/2, p.Y.Max*2
	}
	return finishLegend(fig, opt), nil
}

// Task is one task of a multi-task model of 1-D inputs, in plain slices so that any
// multi-task model can be drawn.
type Task struct {
	// Name titles the task's panel ("task 1" when empty).
	Name string
	// X and Y are the task's data.
	X, Y []float64
	// Active holds the indices into X of the points the model used.
	Active []int
	// GridX are the inputs at which Mean and SD, the predictive mean and standard deviation,
	// are given (SD may be nil: no band).
	GridX, Mean, SD []float64
}

// MultiTask draws a multi-task model of 1-D inputs (extensions paper Fig. 7): one panel per
// task, top to bottom on a shared input range, each with the task's data, the predictive
// mean (Series "mean", Panel = the task's index) and, when SD is given, the band mean ± 2 sd
// ("mean-2sd", "mean+2sd"), and the points the model used circled.
func MultiTask(tasks []Task, opt Options) (*Figure, error) {
	if len(tasks) == 0 {
		return nil, errors.New("plot: no tasks")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for ti, t := range tasks {
		if err := checkTask(ti, t); err != nil {
			return nil, err
		}
		for _, vs := range [][]float64{t.X, t.GridX} {
			for _, v := range vs {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(hi >= lo) {
		return nil, errors.New("plot: the tasks hold no inputs")
	}
	if opt.XMin < opt.XMax {
		lo, hi = opt.XMin, opt.XMax
	}
	fig := &Figure{}
	for ti, t := range tasks {
		name := orDefault(t.Name, fmt.Sprintf("task %d", ti+1))
		title := name
		if ti == 0 && opt.Title != "" {
			title = opt.Title + "\n" + name
		}
		xl := ""
		if ti == len(tasks)-1 {
			xl = orDefault(opt.XLabel, "x")
		}
		p := newPlot(title, xl, orDefault(opt.YLabel, "y"))
		p.X.Min, p.X.Max = lo, hi
		if err := drawTask(p, fig, ti, t); err != nil {
			return nil, err
		}
		fig.Panels = append(fig.Panels, p)
	}
	if len(fig.Panels) == 1 {
		fig.Plot = fig.Panels[0]
	}
	return finishLegend(fig, opt), nil
}

// checkTask checks task t, the ti'th (0-based), before anything is drawn: matching
// lengths, active indices into its data, and finite values throughout.
func checkTask(ti int, t Task) error {
	if len(t.X) != len(t.Y) {
		return fmt.Errorf("plot: task %d has %d inputs and %d targets", ti+1, len(t.X), len(t.Y))
	}
	if len(t.GridX) != len(t.Mean) || (t.SD != nil && len(t.SD) != len(t.GridX)) {
		return fmt.Errorf("plot: task %d has %d grid points, %d means and %d standard deviations",
			ti+1, len(t.GridX), len(t.Mean), len(t.SD))
	}
	for _, a := range t.Active {
		if a < 0 || a >= len(t.X) {
			return fmt.Errorf("plot: task %d: active index %d outside its %d points", ti+1, a,
				len(t.X))
		}
	}
	for _, vs := range [][]float64{t.X, t.Y, t.GridX, t.Mean, t.SD} {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("plot: task %d holds the value %g", ti+1, v)
			}
		}
	}
	return nil
}

// drawTask draws task t, the ti'th (0-based), in panel p and adds its Series to fig: the
// band mean ± 2 sd under the mean, then the data and the points the model used over them.
func drawTask(p *plot.Plot, fig *Figure, ti int, t Task) error {
	if len(t.GridX) > 0 {
		if t.SD != nil {
			if err := addBand(p, fig, ti, t); err != nil {
				return err
			}
		}
		mean := xyOf(t.GridX, t.Mean)
		if _, err := addLine(p, "mean", mean, lineStyle(blue, "solid")); err != nil {
			return err
		}
		fig.Series = append(fig.Series, Series{Name: "mean", Panel: ti, X: t.GridX, Y: t.Mean})
	}
	dot := draw.GlyphStyle{Color: black, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
	if err := scatter(p, "data", xyOf(t.X, t.Y), dot, true); err != nil {
		return err
	}
	act := make(plotter.XYs, len(t.Active))
	for k, a := range t.Active {
		act[k] = plotter.XY{X: t.X[a], Y: t.Y[a]}
	}
	ring := draw.GlyphStyle{Color: red, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
	return scatter(p, fmt.Sprintf("used (%d)", len(t.Active)), act, ring, true)
}

// addBand draws the band mean ± 2 sd of task t, the ti'th (0-based), in panel p as a
// polygon along the lower edge and back along the upper, and adds its edges to fig's Series.
func addBand(p *plot.Plot, fig *Figure, ti int, t Task) error {
	l, u := make([]float64, len(t.GridX)), make([]float64, len(t.GridX))
	band := make(plotter.XYs, 0, 2*len(t.GridX))
	for i := range t.GridX {
		l[i], u[i] = t.Mean[i]-2*t.SD[i], t.Mean[i]+2*t.SD[i]
		band = append(band, plotter.XY{X: t.GridX[i], Y: l[i]})
	}
	for i := len(t.GridX) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: t.GridX[i], Y: u[i]})
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return err
	}
	poly.Color, poly.LineStyle.Width = lightBlue, 0
	p.Add(poly)
	p.Legend.Add("mean ± 2 sd", poly)
	fig.Series = append(fig.Series, Series{Name: "mean-2sd", Panel: ti, X: t.GridX, Y: l},
		Series{Name: "mean+2sd", Panel: ti, X: t.GridX, Y: u})
	return nil
}

// errorBars returns the vertical bars Y ± YErr of series s at points pts; on a logarithmic
// axis the lower end is clipped at Y/10, since Y − YErr may not be positive.
func errorBars(s Series, pts plotter.XYs, logY bool) (*plotter.YErrorBars, error) {
	if len(s.YErr) != len(s.Y) {
		return nil, fmt.Errorf("plot: series %q has %d error bars for %d points",
			s.Name, len(s.YErr), len(s.Y))
	}
	errs := make(plotter.YErrors, len(s.YErr))
	for i, e := range s.YErr {
		if !(e >= 0) || math.IsInf(e, 0) {
			return nil, fmt.Errorf(
				"plot: series %q, point %d: error bar %g is not a finite non-negative number",
				s.Name, i+1, e)
		}
		low := e
		if logY {
			low = math.Min(e, 0.9*s.Y[i])
		}
		errs[i] = struct{ Low, High float64 }{low, e}
	}
	return plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
}

// logTicks marks a logarithmic axis at 1, 2 and 5 times the powers of ten (labelled) and
// at the other integer multiples (unlabelled), so that an axis spanning less than two
// decades still has several labels; plot.LogTicks labels the powers of ten alone.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1.0; m <= 9; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
