package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	ivmplot "github.com/ivmlab/ivm/plot"
)

func init() {
	register("plot", command{Synopsis: "ivm plot [flags] MODEL [DATA]",
		Short: "draw a model of 1-D or 2-D inputs, its learning trace (-trace) or learning " +
			"curves (-curves)", Order: 40, Run: cmdPlot})
}

const plotSynopsis = `ivm plot [flags] MODEL [DATA]
       ivm plot -trace [flags] MODEL
       ivm plot -curves TABLE [-set SET] [-metric METRIC] [flags]

Draws a model of one or two inputs with DATA (without DATA: the model and its active set),
as the IVM papers' figures, chosen by the model's noise model: classification, the
p(y=+1) = 0.5 contour (solid) and 0.25, 0.75 (dashed); ordinal, the category boundaries and
expected quartiles; regression, the predictive mean (1-D: with a ±2 sd band; 2-D: as a heat
map); null category, the boundary and the null region's edges. Active points are circled.
-trace draws the learning trace of Algorithm 2 stored in the model file instead, for a
model of any dimension. -curves draws the learning curves of bench/active's TABLE instead
(bench/active.sh): for one set and figure, each strategy's mean over seeds against the
labels used, in a band of ± 1 standard deviation, and the full-data model's figure as a
dashed line. The format follows -o's extension: .png, .svg or .pdf.`

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plot", plotSynopsis, stderr)
	var df dataFlags
	df.register(fs)
	out := fs.String("o", "",
		"output file, .png, .svg or .pdf (default: MODEL with .png, or -trace.png)")
	width := fs.String("w", "12cm", "figure width (cm, mm, in or pt)")
	height := fs.String("h", "9cm",
		"figure height (cm, mm, in or pt); -trace: 4cm per panel + 2cm unless given")
	trace := fs.Bool("trace", false, "draw the learning trace stored in MODEL instead of the model")
	which := fs.Int("model", 0,
		"one-vs-rest model K (1-based; the class of Classes[K]) of a multi-class MODEL")
	grid := fs.Int("grid", 0,
		"grid points per input at which the model is evaluated (default 80 for 2-D, 300 for 1-D)")
	title := fs.String("title", "", "figure title (default: says what is drawn)")
	noLegend := fs.Bool("no-legend", false, "leave the legend out")
	quiet := fs.Bool("quiet", false, "print nothing on success")
	var cf curveFlags
	cf.register(fs)
	if len(args) == 1 &&
		(args[0] == "-h" || args[0] == "--h" || args[0] == "-help" || args[0] == "--help") {
		// -h is the height flag; alone it asks for help, as with every other command.
		fs.Usage()
		return flag.ErrHelp
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cf.table == "" && (cf.set != "" || cf.metric != "" || cf.logY) {
		return errors.New("-set, -metric and -logy are for -curves TABLE")
	}
	if cf.table != "" {
		if fs.NArg() > 0 || *trace || *which != 0 {
			return errCurvesArgs
		}
		return cf.plot(figureFlags{out: *out, width: *width, height: *height, title: *title,
			noLegend: *noLegend, quiet: *quiet, maxMem: *df.maxMem}, stdout)
	}
	if fs.NArg() < 1 || fs.NArg() > 2 || (*trace && fs.NArg() != 1) {
		fs.Usage()
		return errUsage
	}
	w, err := ivmplot.ParseLength(*width)
	if err != nil {
		return fmt.Errorf("-w: %w", err)
	}
	h, err := ivmplot.ParseLength(*height)
	if err != nil {
		return fmt.Errorf("-h: %w", err)
	}
	modelPath := fs.Arg(0)
	path := *out
	if path == "" {
		path = strings.TrimSuffix(modelPath, filepath.Ext(modelPath))
		if *trace {
			path += "-trace"
		}
		path += ".png"
	}
	if err := checkFigure(path, w, h); err != nil {
		return err
	}
	if err := checkGrid(*grid, 3); err != nil { // 0: the default; the drawing needs 3 or more
		return err
	}
	if err := checkOutputs([]string{modelPath, fs.Arg(1)}, path); err != nil {
		return err
	}
	figOut := stdout
	if path == stdoutPath {
		stdout = io.Discard // the figure itself goes there
	}
	mf, err := readModel(modelPath, *df.maxMem)
	if err != nil {
		return err
	}
	hSet := false
	fs.Visit(func(f *flag.Flag) { hSet = hSet || f.Name == "h" })
	fig, minH, err := drawModel(mf, plotRequest{
		modelPath: modelPath, dataPath: fs.Arg(1), data: df, trace: *trace, which: *which,
		grid: *grid, title: *title, noLegend: *noLegend, heightSet: hSet})
	if err != nil {
		return err
	}
	if err := saveFigure(path, figOut, fig, w, max(h, minH)); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stdout, "figure written to %s\n", path)
	}
	return nil
}

// plotRequest is what ivm plot was asked to draw.
type plotRequest struct {
	modelPath, dataPath string // dataPath "" when no DATA was given
	data                dataFlags
	trace               bool
	which, grid         int
	title               string
	noLegend            bool
	heightSet           bool // -h was given
	// pairClasses, for a one-vs-one pair's model, keeps DATA's rows of its two classes.
	pairClasses []float64
}

// drawModel draws the model file read into mf as r asks, with the least height its panels
// need (0: any).
func drawModel(mf *modelFile, r plotRequest) (*ivmplot.Figure, vg.Length, error) {
	if mf.family != nil {
		pl, ok := mf.family.(familyPlotter)
		if !ok {
			return nil, 0, fmt.Errorf("%s: ivm plot does not draw this kind of model", r.modelPath)
		}
		if r.trace || r.which != 0 {
			return nil, 0, fmt.Errorf("%s: -trace and -model are for single-task IVM models",
				r.modelPath)
		}
		fig, err := pl.Plot(plotCall{
			ModelPath: r.modelPath, DataPath: r.dataPath, Data: r.data, Grid: r.grid,
			Options: ivmplot.Options{Title: r.title, Grid: r.grid, NoLegend: r.noLegend}})
		return fig, 0, err
	}
	if tm := mf.multi; tm != nil {
		if r.trace || r.which != 0 {
			return nil, 0, fmt.Errorf("%s is a multi-task model: "+
				"-trace and -model are for single-task models", r.modelPath)
		}
		fig, err := plotTasks(tm, r.dataPath, r.data, r.grid,
			ivmplot.Options{Title: r.title, NoLegend: r.noLegend})
		return fig, vg.Length(len(tm.Tasks)) * 4 * vg.Centimeter, err
	}
	pred := mf.single
	opt := ivmplot.Options{Title: r.title, Grid: r.grid, NoLegend: r.noLegend}
	// Without -model, a predictor of several models is drawn whole, as ivm predict -prob
	// reports it; a projected model has no IVM to pick or trace.
	models, _ := modelsOf(pred)
	several := len(membersOf(pred)) > 0 || len(pairsOf(pred)) > 0 || len(models) > 1
	if _, projected := pred.Kind.(*ivm.ProjectedKind); projected ||
		(several && r.which == 0 && !r.trace) {
		class, err := pickClass(pred, r)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.modelPath, err)
		}
		fig, err := drawPredictor(pred, predictorSize(pred), r, opt,
			func(x *mat.Dense, y []float64, opt ivmplot.Options) (*ivmplot.Figure, error) {
				return ivmplot.Predictions(pred, class, x, y, opt)
			})
		if err == nil && len(fig.Panels) > 1 && !r.heightSet {
			// a class map and its entropy
			return fig, vg.Length(len(fig.Panels)) * 8 * vg.Centimeter, nil
		}
		return fig, 0, err
	}
	if pairs := pairsOf(pred); len(pairs) > 0 {
		j, err := pickPair(pred, r.which)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.modelPath, err)
		}
		pred, r.which, r.pairClasses = pairs[j], 0, pairs[j].Classes
		if bl := membersOf(pred); bl != nil {
			pred = bl[len(bl)-1] // a blended pair: its probit model
		}
	}
	if members := membersOf(pred); len(members) > 0 {
		j, err := pickMember(pred, r.which)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.modelPath, err)
		}
		pred, r.which = members[j], 0
	}
	k, err := pickModel(pred, r.which)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", r.modelPath, err)
	}
	models, traces := modelsOf(pred)
	if r.trace {
		var tr []engine.IterTrace
		if k < len(traces) {
			tr = traces[k]
		}
		if len(tr) == 0 {
			return nil, 0, fmt.Errorf("%s holds no learning trace "+
				"(was it trained with -iters 0, a fixed kernel?)", r.modelPath)
		}
		fig, err := ivmplot.Trace(tr, opt)
		if err != nil || r.heightSet {
			return fig, 0, err
		}
		return fig, vg.Length(len(fig.Panels))*4*vg.Centimeter + 2*vg.Centimeter, nil
	}
	fig, err := drawPredictor(pred, models[k].Size(), r, opt,
		func(x *mat.Dense, y []float64, opt ivmplot.Options) (*ivmplot.Figure, error) {
			return ivmplot.Predictor(pred, k, x, y, opt)
		})
	return fig, 0, err
}

// drawPredictor draws a single-task predictor of 1 or 2 inputs with draw, over DATA's rows
// when given, after checking that a grid's predictions from size active points or
// centres fit in memory.
func drawPredictor(pred *ivm.Predictor, size int, r plotRequest, opt ivmplot.Options,
	draw drawFunc) (*ivmplot.Figure, error) {
	dim := pred.InputDim()
	if dim != 1 && dim != 2 {
		hint := "-trace draws the learning trace of an IVM model of any dimension"
		if _, projected := pred.Kind.(*ivm.ProjectedKind); projected {
			hint = "ivm predict -prob gives its predictions at any inputs"
		}
		return nil, fmt.Errorf("%s has %d inputs; ivm plot draws models of 1 or 2 inputs (%s)",
			r.modelPath, dim, hint)
	}
	need := plotBytes(r.grid, dim, size)
	if err := r.data.maxMem.check(need, fmt.Sprintf("drawing %s", r.modelPath)); err != nil {
		return nil, err
	}
	var x *mat.Dense
	var y []float64
	if r.dataPath != "" {
		data, err := readPlotData(r.dataPath, r.data, dim)
		if err != nil {
			return nil, err
		}
		x, y = data.X, data.Y
		if r.pairClasses != nil {
			x, y = rowsOfClasses(x, y, r.pairClasses)
		}
		if len(data.Names) == dim {
			opt.XLabel = data.Names[0]
			if dim == 2 {
				opt.YLabel = data.Names[1]
			}
		}
	}
	fig, err := draw(x, y, opt)
	if err != nil && r.dataPath != "" {
		return nil, fmt.Errorf("%s: %w", r.dataPath, err)
	}
	return fig, err
}

// plotBytes estimates what drawing a model of d active points on a grid of points per
// input (0: the default, 300 for 1-D, 80 for 2-D) allocates: a kernel column per point and
// active point, twice over (predictive mean and variance).
func plotBytes(grid, dim, d int) float64 {
	if grid == 0 {
		grid = map[int]int{1: 300, 2: 80}[dim]
	}
	return 16 * math.Pow(float64(grid), float64(dim)) * float64(d+3)
}

// drawFunc draws a predictor over data x, y (nil: none) with options.
type drawFunc func(x *mat.Dense, y []float64, opt ivmplot.Options) (*ivmplot.Figure, error)

// pickClass returns the 0-based class -model K asks a predictor drawn whole to draw
// against the other classes (−1: all classes), refusing -trace and -model where they
// mean nothing.
func pickClass(p *ivm.Predictor, r plotRequest) (int, error) {
	if r.trace {
		return 0, errors.New("a projected model holds no learning trace " +
			"(-trace is for IVM models, which learn their kernel by Algorithm 2)")
	}
	n := len(p.Classes)
	switch {
	case r.which == 0:
		return -1, nil
	case p.Task == ivm.Regression || n <= 2:
		return 0, fmt.Errorf("-model %d: a projected %s model is drawn whole; leave -model out",
			r.which, p.Task)
	case r.which < 1 || r.which > n:
		return 0, fmt.Errorf("-model %d: the model has %d classes %v; "+
			"-model K draws p(Classes[K]) against the rest (1 to %d)", r.which, n, p.Classes, n)
	}
	return r.which - 1, nil
}

// predictorSize is the number of active points or centres of p's models together.
func predictorSize(p *ivm.Predictor) int {
	n := 0
	if k, ok := p.Kind.(*ivm.ProjectedKind); ok {
		n, _ = k.Projected.Centres.Dims()
	}
	models, _ := modelsOf(p)
	for _, m := range models {
		if m != nil {
			n += m.Size()
		}
	}
	for _, members := range [][]*ivm.Predictor{pairsOf(p), membersOf(p)} {
		for _, q := range members {
			n += predictorSize(q)
		}
	}
	return n
}

// pickModel returns the 0-based index of the model to draw: the only one, or -model K's.
func pickModel(p *ivm.Predictor, k int) (int, error) {
	models, _ := modelsOf(p)
	n := len(models)
	switch {
	case n == 0:
		return 0, errors.New("the file holds no model")
	case k == 0 && n == 1:
		return 0, nil
	case k == 0:
		return 0, fmt.Errorf("the file holds %d one-vs-rest models (classes %v); "+
			"pick one with -model K (1 to %d)", n, p.Classes, n)
	case k < 1 || k > n:
		return 0, fmt.Errorf("-model %d: the file holds %d model(s)", k, n)
	}
	return k - 1, nil
}

// pickPair returns the 0-based index of the one-vs-one pair -model K names.
func pickPair(p *ivm.Predictor, k int) (int, error) {
	pairs := pairsOf(p)
	n := len(pairs)
	switch {
	case k == 0:
		return 0, fmt.Errorf("the file holds %d one-vs-one pairs of classes %v "+
			"(classes %g and %g first); pick one with -model K (1 to %d; ivm info lists them)",
			n, p.Classes, pairs[0].Classes[0], pairs[0].Classes[1], n)
	case k < 1 || k > n:
		return 0, fmt.Errorf("-model %d: the file holds %d one-vs-one pairs", k, n)
	}
	return k - 1, nil
}

// pickMember returns the 0-based index of the blend member -model K names.
func pickMember(p *ivm.Predictor, k int) (int, error) {
	var names []string
	for _, sm := range p.Submodels() {
		names = append(names, sm.Name)
	}
	n := len(membersOf(p))
	switch {
	case k == 0:
		return 0, fmt.Errorf("the file blends %d models (%s); pick one with -model K (1 to %d)",
			n, strings.Join(names, ", "), n)
	case k < 1 || k > n:
		return 0, fmt.Errorf("-model %d: the file blends %d models", k, n)
	}
	return k - 1, nil
}

// rowsOfClasses keeps the rows of x and y whose label is one of classes.
func rowsOfClasses(x *mat.Dense, y, classes []float64) (*mat.Dense, []float64) {
	var idx []int
	for i, v := range y {
		if slices.Contains(classes, v) {
			idx = append(idx, i)
		}
	}
	ys := make([]float64, len(idx))
	for r, i := range idx {
		ys[r] = y[i]
	}
	return dataset.RowsOf(x, idx), ys
}

// readPlotData reads DATA and checks that it has the model's dim inputs; a libsvm file
// whose last inputs are all zero (so absent) is widened to dim.
func readPlotData(path string, df dataFlags, dim int) (*dataset.Data, error) {
	opt, err := df.options()
	if err != nil {
		return nil, err
	}
	data, err := readData(path, opt)
	if err != nil {
		return nil, err
	}
	n, d := data.X.Dims()
	if d < dim && data.Format == dataset.LibSVM {
		x := mat.NewDense(n, dim, nil)
		x.Slice(0, n, 0, d).(*mat.Dense).Copy(data.X)
		data.X, d = x, dim
	}
	if d != dim {
		return nil, fmt.Errorf("%s has %d inputs, the model %d", path, d, dim)
	}
	return data, nil
}

// checkFigurePath checks a figure path's extension before any work is done.
func checkFigurePath(path string) error {
	_, err := figureFormat(path)
	return err
}

// maxFigureSide caps a figure's width and height: a PNG's pixels grow with their product.
const maxFigureSide = 100 * vg.Centimeter

// minFigureSide is the least width or height: below it the axes and labels leave no room
// (and a PNG of under a pixel cannot be encoded).
const minFigureSide = vg.Centimeter

// checkFigure checks the figure's path and size before any work.
func checkFigure(path string, w, h vg.Length) error {
	if w > maxFigureSide || h > maxFigureSide {
		return fmt.Errorf("figure size %.4gcm × %.4gcm: at most 100cm a side",
			w.Points()/vg.Centimeter.Points(), h.Points()/vg.Centimeter.Points())
	}
	for _, side := range []struct {
		flag string
		len  vg.Length
	}{{"-w", w}, {"-h", h}} {
		if side.len < minFigureSide {
			cm := side.len.Points() / vg.Centimeter.Points()
			return fmt.Errorf("%s %.3gcm: a figure needs at least 1cm a side", side.flag, cm)
		}
	}
	return checkFigurePath(path)
}

// figureFormat is the figure format of an -o path, from its extension; "-" (standard
// output) is PNG.
func figureFormat(path string) (string, error) {
	if path == stdoutPath {
		return "png", nil
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg", ".pdf":
		return ext[1:], nil
	}
	return "", fmt.Errorf("-o %s: the figure's format comes from its extension: "+
		".png, .svg or .pdf (or - for PNG on standard output)", path)
}

// saveFigure writes fig to path as an outputFile.
func saveFigure(path string, stdout io.Writer, fig *ivmplot.Figure, w, h vg.Length) error {
	return encodeFigure(path, stdout, func(out io.Writer, format string) error {
		return fig.Encode(out, format, w, h)
	})
}

// encodeFigure writes a figure that encode draws to path as an outputFile.
func encodeFigure(path string, stdout io.Writer,
	encode func(w io.Writer, format string) error) error {
	format, err := figureFormat(path)
	if err != nil {
		return err
	}
	out, err := createOutput(path, stdout)
	if err != nil {
		return err
	}
	defer out.discard()
	if err := encode(out, format); err != nil {
		return err
	}
	return out.commit()
}
