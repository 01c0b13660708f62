package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Options configures a figure. The zero value gives the defaults.
type Options struct {
	// Title is drawn above the figure; empty gives a title naming the figure.
	Title string
	// XLabel and YLabel name the axes; empty gives "x1" and "x2" for 2-D inputs, "x" and
	// the plotted quantity for 1-D inputs ("outer iteration" for Trace, whose panels name
	// their own y axes; nothing for Curves).
	XLabel, YLabel string
	// Grid is the number of grid points per input along each axis at which the model is
	// evaluated (default 80 for 2-D inputs, 300 for 1-D inputs; at least 3).
	Grid int
	// XMin, XMax and YMin, YMax bound the region of input space drawn (YMin, YMax for 2-D
	// inputs only). Where Min == Max the range is taken from the data and the active
	// inputs, widened by 5 % on each side.
	XMin, XMax, YMin, YMax float64
	// ClassNames name the classes in the legend, in the order of the noise model's
	// Classes() (binary: −1, +1; ordinal: 0 … C−1); nil gives the class values.
	ClassNames []string
	// LogX and LogY draw Curves on logarithmic axes (every value must then be positive).
	LogX, LogY bool
	// InputShift and InputFactor, when set (one per input), say that the model sees the
	// data's input x_j as (x_j − InputShift[j])·InputFactor[j] (ivm.Scaler): the figure is
	// drawn in the data's coordinates and the model evaluated at the scaled ones.
	InputShift, InputFactor []float64
	// NoLegend leaves the legend out.
	NoLegend bool
}

// Figure is a drawn figure and the data behind it.
type Figure struct {
	// Plot is the figure when it has one panel, nil otherwise.
	Plot *plot.Plot
	// Panels holds the figure's panels, stacked from top to bottom (Panels[0] == Plot for a
	// one-panel figure).
	Panels []*plot.Plot
	// Surfaces are the functions of 2-D inputs the figure evaluated on a grid (p(y=+1|x),
	// P(y > k|x) per ordinal boundary, the predictive mean, the latent mean), in the
	// order the figure's Contours refer to them.
	Surfaces []Surface
	// Contours are the level lines drawn, in data coordinates.
	Contours []Contour
	// Series are the curves drawn (predictive mean and band edges, traces, the caller's
	// curves), in data coordinates.
	Series []Series
}

// Surface is a named function evaluated on a regular grid.
type Surface struct {
	// Name says what the surface is ("p(y=+1)", "P(y>2)", "mean", "latent").
	Name string
	*Grid
}

// Contour is one level line of a surface, possibly in several pieces.
type Contour struct {
	// Surface is the index in Figure.Surfaces of the surface the contour is drawn on.
	Surface int
	// Level is the surface's value along the contour.
	Level float64
	// Style says how it is drawn: "solid", "dashed" or "dotted".
	Style string
	// Lines are the contour's pieces, each a polyline in data coordinates; a closed loop
	// ends at its first point.
	Lines []plotter.XYs
}

// Series is one curve of a figure.
type Series struct {
	// Name is the series' name in the legend.
	Name string
	// Panel is the index in Figure.Panels of the panel it is drawn in.
	Panel int
	// X and Y are its points.
	X, Y []float64
	// YErr, when set (one per point, non-negative), draws error bars from Y − YErr to
	// Y + YErr (Curves); on a logarithmic y axis a bar's lower end is clipped at Y/10.
	YErr []float64
}

// Grid holds a function's values on a regular grid: Z[r·len(X) + c] is the value at
// (X[c], Y[r]), X and Y ascending. GridXYZ gives it to gonum's heat maps and contours.
type Grid struct {
	X, Y []float64
	Z    []float64
}

// Dims returns the number of columns (len(X)) and rows (len(Y)).
func (g *Grid) Dims() (c, r int) { return len(g.X), len(g.Y) }

// At returns the value at (X[c], Y[r]).
func (g *Grid) At(c, r int) float64 { return g.Z[r*len(g.X)+c] }

// Min returns the smallest value of the grid (NaN ignored).
func (g *Grid) Min() float64 {
	m := math.Inf(1)
	for _, v := range g.Z {
		if v < m {
			m = v
		}
	}
	return m
}

// Max returns the largest value of the grid (NaN ignored).
func (g *Grid) Max() float64 {
	m := math.Inf(-1)
	for _, v := range g.Z {
		if v > m {
			m = v
		}
	}
	return m
}

// gridXYZ adapts a Grid to plotter.GridXYZ (whose Z method collides with the field).
type gridXYZ struct{ g *Grid }

func (a gridXYZ) Dims() (c, r int)   { return a.g.Dims() }
func (a gridXYZ) Z(c, r int) float64 { return a.g.At(c, r) }
func (a gridXYZ) X(c int) float64    { return a.g.X[c] }
func (a gridXYZ) Y(r int) float64    { return a.g.Y[r] }
func (a gridXYZ) Min() float64       { return a.g.Min() }
func (a gridXYZ) Max() float64       { return a.g.Max() }

// GridXYZ returns g as a plotter.GridXYZ (whose method Z its field Z does not allow).
func (g *Grid) GridXYZ() plotter.GridXYZ { return gridXYZ{g} }

// Save writes the figure to path in the format its extension names (.png, .svg or .pdf),
// width by height (e.g. 12*vg.Centimeter). Legends go in a strip on the right, outside the
// data. Saving one figure from two goroutines at once is not safe.
func (f *Figure) Save(path string, width, height vg.Length) error {
	if f == nil || len(f.Panels) == 0 {
		return errors.New("plot: empty figure")
	}
	return SavePanels(f.Panels, path, width, height)
}

// Save writes p to path in the format its extension names (.png, .svg or .pdf), width by
// height.
func Save(p *plot.Plot, path string, width, height vg.Length) error {
	return SavePanels([]*plot.Plot{p}, path, width, height)
}

// SavePanels writes the panels, stacked from top to bottom with their axes aligned, to path
// in the format its extension names (.png, .svg or .pdf), width by height in all.
func SavePanels(panels []*plot.Plot, path string, width, height vg.Length) (err error) {
	if len(panels) == 0 {
		return errors.New("plot: nothing to save")
	}
	for _, p := range panels {
		if p == nil {
			return errors.New("plot: nil panel")
		}
	}
	return saveCanvas(path, width, height, func(dc draw.Canvas) { drawPanels(dc, panels) })
}

// SaveGrid writes rows of panels as a table (every row as long as the first), their axes
// aligned by row and column and their legends left out, to path in the format its
// extension names, width by height in all: the layout of a paper's figure of panels.
func SaveGrid(rows [][]*plot.Plot, path string, width, height vg.Length) error {
	if err := checkGrid(rows); err != nil {
		return err
	}
	return saveCanvas(path, width, height, func(dc draw.Canvas) { drawGrid(dc, rows) })
}

// checkGrid refuses an empty or ragged grid of panels, or one with a nil panel.
func checkGrid(rows [][]*plot.Plot) error {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return errors.New("plot: nothing to save")
	}
	for _, r := range rows {
		if len(r) != len(rows[0]) {
			return fmt.Errorf("plot: grid rows of %d and %d panels", len(rows[0]), len(r))
		}
		for _, p := range r {
			if p == nil {
				return errors.New("plot: nil panel")
			}
		}
	}
	return nil
}

// drawGrid draws rows of panels as a table with their axes aligned by row and column.
func drawGrid(dc draw.Canvas, rows [][]*plot.Plot) {
	t := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: 3 * vg.Millimeter,
		PadY: 5 * vg.Millimeter, PadTop: 3 * vg.Millimeter}
	aligned := plot.Align(rows, t, dc)
	for i, r := range rows {
		for j, p := range r {
			p.Draw(aligned[i][j])
		}
	}
}

// Encode writes the figure to w in format ("png", "svg" or "pdf"), width by height: Save
// for a caller that manages the file (standard output, a device, an atomic replacement).
func (f *Figure) Encode(w io.Writer, format string, width, height vg.Length) error {
	if f == nil || len(f.Panels) == 0 {
		return errors.New("plot: empty figure")
	}
	return encodeCanvas(w, format, width, height, func(dc draw.Canvas) { drawPanels(dc, f.Panels) })
}

// EncodeGrid is SaveGrid writing to w in format ("png", "svg" or "pdf").
func EncodeGrid(rows [][]*plot.Plot, w io.Writer, format string, width, height vg.Length) error {
	if err := checkGrid(rows); err != nil {
		return err
	}
	return encodeCanvas(w, format, width, height, func(dc draw.Canvas) { drawGrid(dc, rows) })
}

// encodeCanvas checks the size and format, draws with paint on a canvas of that format and
// writes it to w.
func encodeCanvas(w io.Writer, format string, width, height vg.Length,
	paint func(draw.Canvas)) error {
	if !(width > 0 && height > 0) || math.IsInf(float64(width+height), 0) {
		return fmt.Errorf("plot: size %v × %v: both must be positive", width, height)
	}
	switch format {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("plot: unknown figure format %q (want png, svg or pdf)", format)
	}
	c, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return err
	}
	paint(draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

// saveCanvas checks the size and format, draws with paint on a canvas of that format and
// writes it to path. The figure is drawn and encoded first: an error there leaves path as
// it was (it is never removed: it may be a device or a file the caller did not mean to lose).
func saveCanvas(path string, width, height vg.Length, paint func(draw.Canvas)) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch format {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("plot: %s: unknown figure format %q (want .png, .svg or .pdf)",
			path, filepath.Ext(path))
	}
	var buf bytes.Buffer
	if err := encodeCanvas(&buf, format, width, height, paint); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o666)
}

// drawPanels draws the panels stacked from top to bottom on dc with their axes aligned,
// and their legends in a strip on the right, outside the data, each at the top of its
// panel's data area.
func drawPanels(dc draw.Canvas, panels []*plot.Plot) {
	var lw vg.Length
	for _, p := range panels {
		r := p.Legend.Rectangle(dc)
		lw = max(lw, r.Max.X-r.Min.X)
	}
	gap := 2 * vg.Millimeter
	if lw > 0 {
		lw += gap
	}
	area := draw.Crop(dc, 0, -lw, 0, 0)
	legends := make([]plot.Legend, len(panels))
	for i, p := range panels {
		legends[i] = p.Legend
		p.Legend = plot.NewLegend()
	}
	defer func() {
		for i, p := range panels {
			p.Legend = legends[i]
		}
	}()
	canvases := []draw.Canvas{area}
	if len(panels) == 1 {
		panels[0].Draw(area)
	} else {
		grid := make([][]*plot.Plot, len(panels))
		for i, p := range panels {
			grid[i] = []*plot.Plot{p}
		}
		t := draw.Tiles{Rows: len(panels), Cols: 1, PadY: 2 * vg.Millimeter}
		aligned := plot.Align(grid, t, area)
		canvases = canvases[:0]
		for i, p := range panels {
			p.Draw(aligned[i][0])
			canvases = append(canvases, aligned[i][0])
		}
	}
	if lw == 0 {
		return
	}
	for i, p := range panels {
		strip := canvases[i]
		strip.Min.X, strip.Max.X = area.Max.X+gap, dc.Max.X
		if p.Title.Text != "" {
			strip.Max.Y -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		l := legends[i]
		l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
		l.Draw(strip)
	}
}

// ParseLength parses a figure dimension: a positive number followed by a unit, cm, mm, in
// or pt ("12cm", "4.5in"); a bare number is in centimetres.
func ParseLength(s string) (vg.Length, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	unit := vg.Centimeter
	for _, u := range []struct {
		suffix string
		l      vg.Length
	}{{"cm", vg.Centimeter}, {"mm", vg.Millimeter}, {"in", vg.Inch}, {"pt", vg.Points(1)}} {
		if strings.HasSuffix(t, u.suffix) {
			t, unit = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.l
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf(
			"length %q: want a positive number with a unit cm, mm, in or pt (e.g. 12cm)", s)
	}
	if l := vg.Length(v) * unit; l <= 100*vg.Inch {
		return l, nil
	}
	return 0, fmt.Errorf("length %q: larger than 100 inches", s)
}

// Colours and line styles shared by the figures (IVM paper Fig. 3: red solid boundary,
// blue dashed quartiles, blue active points).
var (
	red       = color.RGBA{R: 205, G: 20, B: 20, A: 255}
	blue      = color.RGBA{R: 20, G: 40, B: 210, A: 255}
	green     = color.RGBA{R: 0, G: 140, B: 40, A: 255}
	grey      = color.RGBA{R: 140, G: 140, B: 140, A: 255}
	black     = color.RGBA{A: 255}
	lightBlue = color.RGBA{R: 170, G: 195, B: 245, A: 255}
	// categorical colours for ordinal categories and curves.
	palette8 = []color.Color{
		color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255},
		color.RGBA{R: 44, G: 160, B: 44, A: 255}, color.RGBA{R: 148, G: 103, B: 189, A: 255},
		color.RGBA{R: 255, G: 127, B: 14, A: 255}, color.RGBA{R: 140, G: 86, B: 75, A: 255},
		color.RGBA{R: 227, G: 119, B: 194, A: 255}, color.RGBA{R: 23, G: 190, B: 207, A: 255},
	}
	glyphs = []draw.GlyphDrawer{draw.CrossGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{},
		draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{},
		draw.CircleGlyph{}}
)

func lineStyle(c color.Color, style string) draw.LineStyle {
	ls := draw.LineStyle{Color: c, Width: vg.Points(1.4)}
	switch style {
	case "dashed":
		ls.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	case "dotted":
		ls.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2)}
	}
	return ls
}

// newPlot makes a plot with the title and axis labels, the legend at the top right.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.ThumbnailWidth = vg.Points(18)
	return p
}

// scatter adds points with a glyph style (nothing when there are none) and a legend entry.
func scatter(p *plot.Plot, name string, pts plotter.XYs, gs draw.GlyphStyle, legend bool) error {
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle = gs
	p.Add(s)
	if legend && name != "" {
		p.Legend.Add(name, s)
	}
	return nil
}

// addLine adds a polyline and, when name is not empty, a legend entry.
func addLine(p *plot.Plot, name string, pts plotter.XYs, ls draw.LineStyle) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.LineStyle = ls
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return l, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
