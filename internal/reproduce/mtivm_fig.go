package reproduce

import (
	"fmt"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm/plot"
)

// methodNames are the legend names of the multi-task experiments' methods.
var methodNames = map[string]string{"mtivm": "MT-IVM", "subsample": "random sub-sampling",
	"single": "single IVM (tasks ignored)"}

// methodSeries collects one curve per method, in the order the methods first appear.
type methodSeries struct {
	byMethod map[string]*plot.Series
	order    []string
}

// add appends the point (x, y) to method's curve, with error bar yErr unless it is negative.
func (ms *methodSeries) add(method string, x, y, yErr float64) {
	if ms.byMethod == nil {
		ms.byMethod = map[string]*plot.Series{}
	}
	s := ms.byMethod[method]
	if s == nil {
		s = &plot.Series{Name: methodNames[method]}
		ms.byMethod[method] = s
		ms.order = append(ms.order, method)
	}
	s.X, s.Y = append(s.X, x), append(s.Y, y)
	if yErr >= 0 {
		s.YErr = append(s.YErr, yErr)
	}
}

// list returns the curves in order.
func (ms *methodSeries) list() []plot.Series {
	out := make([]plot.Series, len(ms.order))
	for i, m := range ms.order {
		out[i] = *ms.byMethod[m]
	}
	return out
}

// regressionFigures draws the learning-to-learn paper's Fig. 4 from the regression
// experiment: the mean KL divergence per test point (bars: ± one standard deviation over
// the runs) against the mean CPU time of a fit (top) and against the points used
// (bottom), one curve per method, both axes logarithmic.
func regressionFigures(pts []RegressionPoint) (time, points *plot.Figure, err error) {
	var byTime, byPoints methodSeries
	for _, p := range pts {
		if len(p.KL) == 0 {
			continue
		}
		kl, sd := sampleMeanSD(p.KL)
		cpu, _ := sampleMeanSD(p.CPU)
		byTime.add(p.Method, cpu, kl, sd)
		byPoints.add(p.Method, float64(p.Points), kl, sd)
	}
	if time, err = plot.Curves(byTime.list(),
		plot.Options{Title: "KL divergence against training time",
			XLabel: "mean CPU seconds per fit", YLabel: "KL(θ‖θ̂), nats per test point",
			LogX: true, LogY: true}); err != nil {
		return nil, nil, err
	}
	points, err = plot.Curves(byPoints.list(),
		plot.Options{Title: "KL divergence against data points used",
			XLabel: "points used (all tasks)", YLabel: "KL(θ‖θ̂), nats per test point",
			LogX: true, LogY: true})
	return time, points, err
}

// writeRegressionFigure saves regressionFigures' two panels, one above the other, as
// mtivm_regression_fig4.png in dir and returns the path.
func writeRegressionFigure(pts []RegressionPoint, dir string) (string, error) {
	t, p, err := regressionFigures(pts)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "mtivm_regression_fig4.png")
	return path, plot.SaveGrid([][]*gplot.Plot{{t.Plot}, {
		p.Plot}}, path, 16*vg.Centimeter, 22*vg.Centimeter)
}

// vowelFigure draws the learning-to-learn paper's Fig. 5 for one protocol: the mean test
// error over the held-out speakers against the mean CPU time to learn a speaker's eleven
// kernels, one curve per method, time on a logarithmic axis.
func vowelFigure(pts []VowelPoint, title string) (*plot.Figure, error) {
	var ms methodSeries
	for _, p := range pts {
		if len(p.Err) == 0 {
			continue
		}
		e, _ := sampleMeanSD(p.Err)
		cpu, _ := sampleMeanSD(p.CPU)
		ms.add(p.Method, cpu, 100*e, -1)
	}
	return plot.Curves(ms.list(), plot.Options{Title: title,
		XLabel: "mean CPU seconds per held-out speaker (11 kernels)", YLabel: "test error %",
		LogX: true})
}

// writeVowelFigure saves one vowelFigure panel per protocol, one above the other, as
// mtivm_vowel_fig5.png in dir and returns the path.
func writeVowelFigure(protocols [][]VowelPoint, titles []string, dir string) (string, error) {
	if len(protocols) != len(titles) {
		return "", fmt.Errorf("reproduce: %d vowel protocols with %d titles",
			len(protocols), len(titles))
	}
	var rows [][]*gplot.Plot
	for i, pts := range protocols {
		f, err := vowelFigure(pts, titles[i])
		if err != nil {
			return "", err
		}
		rows = append(rows, []*gplot.Plot{f.Plot})
	}
	path := filepath.Join(dir, "mtivm_vowel_fig5.png")
	return path, plot.SaveGrid(rows, path, 16*vg.Centimeter, vg.Length(len(rows))*11*vg.Centimeter)
}
