package reproduce

import (
	"fmt"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/plot"
)

// methodNames are the legend names of the multi-task experiments' methods.
var methodNames = map[string]string{"mtivm": "MT-IVM", "subsample": "random sub-sampling", "single": "single IVM (tasks ignored)"}

// regressionFigures draws the learning-to-learn paper's Fig. 4 from the regression
// experiment: the mean KL divergence per test point (bars: ± one standard deviation over
// the runs) against the mean CPU time of a fit (top) and against the points used
// (bottom), one curve per method, both axes logarithmic.
func regressionFigures(pts []multitask.RegressionPoint) (time, points *plot.Figure, err error) {
	byTime := map[string]*plot.Series{}
	byPoints := map[string]*plot.Series{}
	var order []string
	for _, p := range pts {
		if len(p.KL) == 0 {
			continue
		}
		if byTime[p.Method] == nil {
			name := methodNames[p.Method]
			byTime[p.Method], byPoints[p.Method] = &plot.Series{Name: name}, &plot.Series{Name: name}
			order = append(order, p.Method)
		}
		kl, sd := multitask.MeanSD(p.KL)
		cpu, _ := multitask.MeanSD(p.CPU)
		for _, s := range []*plot.Series{byTime[p.Method], byPoints[p.Method]} {
			s.Y, s.YErr = append(s.Y, kl), append(s.YErr, sd)
		}
		byTime[p.Method].X = append(byTime[p.Method].X, cpu)
		byPoints[p.Method].X = append(byPoints[p.Method].X, float64(p.Points))
	}
	var st, sp []plot.Series
	for _, m := range order {
		st, sp = append(st, *byTime[m]), append(sp, *byPoints[m])
	}
	if time, err = plot.Curves(st, plot.Options{Title: "KL divergence against training time", XLabel: "mean CPU seconds per fit",
		YLabel: "KL(θ‖θ̂), nats per test point", LogX: true, LogY: true}); err != nil {
		return nil, nil, err
	}
	points, err = plot.Curves(sp, plot.Options{Title: "KL divergence against data points used", XLabel: "points used (all tasks)",
		YLabel: "KL(θ‖θ̂), nats per test point", LogX: true, LogY: true})
	return time, points, err
}

// writeRegressionFigure saves regressionFigures' two panels, one above the other, as
// mtivm_regression_fig4.png in dir and returns the path.
func writeRegressionFigure(pts []multitask.RegressionPoint, dir string) (string, error) {
	t, p, err := regressionFigures(pts)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "mtivm_regression_fig4.png")
	return path, plot.SaveGrid([][]*gplot.Plot{{t.Plot}, {p.Plot}}, path, 16*vg.Centimeter, 22*vg.Centimeter)
}

// vowelFigure draws the learning-to-learn paper's Fig. 5 for one protocol: the mean test
// error over the held-out speakers against the mean CPU time to learn a speaker's eleven
// kernels, one curve per method, time on a logarithmic axis.
func vowelFigure(pts []multitask.VowelPoint, title string) (*plot.Figure, error) {
	series := map[string]*plot.Series{}
	var order []string
	for _, p := range pts {
		if len(p.Err) == 0 {
			continue
		}
		if series[p.Method] == nil {
			series[p.Method] = &plot.Series{Name: methodNames[p.Method]}
			order = append(order, p.Method)
		}
		e, _ := multitask.MeanSD(p.Err)
		cpu, _ := multitask.MeanSD(p.CPU)
		series[p.Method].X = append(series[p.Method].X, cpu)
		series[p.Method].Y = append(series[p.Method].Y, 100*e)
	}
	var s []plot.Series
	for _, m := range order {
		s = append(s, *series[m])
	}
	return plot.Curves(s, plot.Options{Title: title, XLabel: "mean CPU seconds per held-out speaker (11 kernels)", YLabel: "test error %", LogX: true})
}

// writeVowelFigure saves one vowelFigure panel per protocol, one above the other, as
// mtivm_vowel_fig5.png in dir and returns the path.
func writeVowelFigure(protocols [][]multitask.VowelPoint, titles []string, dir string) (string, error) {
	if len(protocols) != len(titles) {
		return "", fmt.Errorf("reproduce: %d vowel protocols with %d titles", len(protocols), len(titles))
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
