package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/noise"
)

// Predictor draws model k (0-based; 0 unless the predictor is multi-class, whose model k
// tells Classes[k] from the rest) of a trained predictor with Model, for data x in the
// predictor's own input coordinates (its Scaler is undone for the figure) and targets y as
// in its training data (class labels from p.Classes, NaN unlabelled; x and y may be nil).
// The legend names the classes by their labels unless opt.ClassNames is set.
func Predictor(p *ivm.Predictor, k int, x *mat.Dense, y []float64, opt Options) (*Figure, error) {
	m, err := PredictorModel(p, k)
	if err != nil {
		return nil, err
	}
	if _, sc := engineModels(p); sc != nil && opt.InputFactor == nil {
		if sc.Log != nil {
			return nil, errors.New("plot: the model takes the logarithm of inputs, " +
				"which a figure in the inputs' own units cannot undo")
		}
		opt.InputShift, opt.InputFactor = sc.Shift, sc.Factor
	}
	coded, names, err := CodeTargets(p, k, y)
	if err != nil {
		return nil, err
	}
	if opt.ClassNames == nil {
		opt.ClassNames = names
	}
	return Model(m, x, coded, opt)
}

// PredictorModel returns model k of p, checking k.
func PredictorModel(p *ivm.Predictor, k int) (*engine.Model, error) {
	var models []*engine.Model
	if p != nil {
		models, _ = engineModels(p)
	}
	if len(models) == 0 {
		return nil, errors.New("plot: the predictor holds no model")
	}
	if k < 0 || k >= len(models) {
		return nil, fmt.Errorf("plot: model %d of a predictor with %d models", k+1, len(models))
	}
	return models[k], nil
}

// engineModels returns the IVM models of a predictor of one model or one-vs-rest models, which
// Predictor draws, and their input scaling; none for other kinds.
func engineModels(p *ivm.Predictor) ([]*engine.Model, *dataset.Scaler) {
	switch k := p.Kind.(type) {
	case *ivm.SingleKind:
		return []*engine.Model{k.Model}, k.Scaler
	case *ivm.OneVsRestKind:
		return k.Models, k.Scaler
	}
	return nil, nil
}

// CodeTargets returns targets y, as in p's training data, in the coding of p's model k:
// binary and semi-supervised classes −1, +1 (NaN stays NaN, unlabelled); ordinal categories
// 0 … C−1 by their rank in p.Classes; multi-class +1 for Classes[k] and −1 for the rest;
// regression targets unchanged. A label that is not one of p.Classes is an error. It also
// returns the legend names of the model's classes (nil for regression).
func CodeTargets(p *ivm.Predictor, k int, y []float64) (coded []float64, names []string,
	err error) {
	m, err := PredictorModel(p, k)
	if err != nil {
		return nil, nil, err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	nc := len(m.Noise.Classes())
	models, _ := engineModels(p)
	switch {
	case nc == 0:
		return y, nil, nil
	case len(models) > 1:
		if k >= len(p.Classes) {
			return nil, nil, fmt.Errorf("plot: %d class labels for %d one-vs-rest models",
				len(p.Classes), len(models))
		}
		names = []string{"not " + g(p.Classes[k]), g(p.Classes[k])}
	case len(p.Classes) == nc:
		for _, c := range p.Classes {
			names = append(names, g(c))
		}
	default:
		return nil, nil, fmt.Errorf("plot: %d class labels for a model of %d classes",
			len(p.Classes), nc)
	}
	if y == nil {
		return nil, names, nil
	}
	coded = make([]float64, len(y))
	for i, v := range y {
		if math.IsNaN(v) {
			coded[i] = v
			continue
		}
		idx := -1
		for c, l := range p.Classes {
			if l == v {
				idx = c
			}
		}
		switch {
		case idx < 0:
			return nil, nil, fmt.Errorf(
				"plot: row %d has label %g, not one of the model's classes %v",
				i+1, v, p.Classes)
		case len(models) > 1:
			coded[i] = -1
			if idx == k {
				coded[i] = 1
			}
		case nc == 2:
			coded[i] = float64(2*idx - 1)
		default:
			coded[i] = float64(idx)
		}
	}
	return coded, names, nil
}

// Predictions draws what p.Predict predicts, the numbers ivm predict -prob writes, for
// predictors that no one engine model stands for: a blend (its members' probabilities
// averaged), a projected model, one-vs-rest or one-vs-one classes together. x (in the
// data's coordinates, nil: none) and y (labels as in the training data, NaN unlabelled)
// are the data to show.
//
//   - Regression: Regression's figure of the predictive mean (and ±2 sd band in 1-D).
//   - Two classes: Classification's figure of p(Classes[1] | x).
//   - More classes, class < 0: ClassMap's predictive mode and entropy (2-D) or ClassCurves
//     (1-D), over x or, without x, a projected model's centres.
//   - More classes, class k ≥ 0: Classification's figure of p(Classes[k] | x) against the
//     other classes.
//
// A projected model's centres are marked ("centres") as an engine model's active points are.
func Predictions(p *ivm.Predictor, class int, x *mat.Dense, y []float64,
	opt Options) (*Figure, error) {
	if p == nil || p.InputDim() == 0 {
		return nil, errors.New("plot: the predictor holds no model")
	}
	s := &setup{dim: p.InputDim(), marks: "centres"}
	if k, ok := p.Kind.(*ivm.ProjectedKind); ok {
		s.active = unscaled(k.Projected.Centres, k.Scaler)
	}
	nc := len(p.Classes)
	regression := p.Task == ivm.Regression
	idx, err := classIndices(p.Classes, y, regression)
	if err != nil {
		return nil, err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	name := describe(p)
	if !regression && nc > 2 && class < 0 {
		over := x
		if over == nil && s.active != nil {
			// Without data the map spans the centres, drawn as unlabelled points.
			over, idx = s.active, make([]int, len(s.active.RawMatrix().Data)/s.dim)
			for i := range idx {
				idx[i] = -1
			}
		}
		if over == nil {
			return nil, errors.New("plot: a map of several classes spans the data: give the inputs")
		}
		probs := func(pts *mat.Dense) ([][]float64, error) {
			preds, err := p.Predict(pts)
			out := make([][]float64, len(preds))
			for i, q := range preds {
				out[i] = q.Prob
			}
			return out, err
		}
		if s.dim == 1 {
			opt.Title = orDefault(opt.Title, name+": predictive class probabilities")
			return ClassCurves(probs, p.Classes, over, opt)
		}
		return ClassMap(probs, orDefault(opt.Title, name), over, idx, nc, opt)
	}
	var coded []float64
	var title string
	pick := func(q noise.Prediction) noise.Prediction { return noise.Prediction{Prob: q.Prob} }
	switch {
	case regression:
		coded, title = y, name+", predictive mean"
		pick = func(q noise.Prediction) noise.Prediction {
			return noise.Prediction{Mean: q.Label, Var: q.Var}
		}
	case nc == 2:
		title = fmt.Sprintf("%s, p(y=%s|x)", name, g(p.Classes[1]))
		opt.ClassNames = namesOr(opt.ClassNames, []string{g(p.Classes[0]), g(p.Classes[1])})
		coded = codeAgainst(idx, 1)
	case class >= nc:
		return nil, fmt.Errorf("plot: class %d of a model of %d classes", class+1, nc)
	default:
		title = fmt.Sprintf("%s, p(y=%s|x)", name, g(p.Classes[class]))
		c := g(p.Classes[class])
		opt.ClassNames = namesOr(opt.ClassNames, []string{"not " + c, c})
		coded = codeAgainst(idx, class)
		pick = func(q noise.Prediction) noise.Prediction {
			return noise.Prediction{Prob: []float64{1 - q.Prob[class], q.Prob[class]}}
		}
	}
	s.predict = func(pts *mat.Dense) ([]noise.Prediction, error) {
		preds, err := p.Predict(pts)
		if err != nil {
			return nil, err
		}
		out := make([]noise.Prediction, len(preds))
		for i, q := range preds {
			out[i] = pick(q)
		}
		return out, nil
	}
	if y == nil {
		coded = nil
	}
	if s, err = s.check(x, coded, opt); err != nil {
		return nil, err
	}
	if regression {
		return s.regression(title)
	}
	return s.classification(title)
}

// namesOr is names unless it is empty, else def.
func namesOr(names, def []string) []string {
	if len(names) > 0 {
		return names
	}
	return def
}

// describe names what kind of predictor p is, for a figure's title.
func describe(p *ivm.Predictor) string {
	switch k := p.Kind.(type) {
	case *ivm.ProjectedKind:
		m, _ := k.Projected.Centres.Dims()
		if a := k.Projected.Additive; a != nil {
			return fmt.Sprintf("Projected model, %d centres and %d knots", m, a.Knots())
		}
		return fmt.Sprintf("Projected model, %d centres", m)
	case *ivm.BlendKind:
		var names []string
		for _, sm := range p.Submodels() {
			names = append(names, sm.Name)
		}
		return "Blend of " + strings.Join(names, " and ")
	case *ivm.OneVsOneKind:
		return fmt.Sprintf("%d one-vs-one IVM pairs", len(k.Pairs))
	case *ivm.OneVsRestKind:
		return fmt.Sprintf("%d one-vs-rest IVMs", len(k.Models))
	}
	return "IVM"
}

// classIndices returns the index in classes of each label of y, −1 for NaN (unlabelled);
// a label that is not one of classes is an error. Regression targets have none (nil).
func classIndices(classes, y []float64, regression bool) ([]int, error) {
	if regression || y == nil {
		return nil, nil
	}
	idx := make([]int, len(y))
	for i, v := range y {
		idx[i] = slices.Index(classes, v)
		if idx[i] < 0 && !math.IsNaN(v) {
			return nil, fmt.Errorf("plot: row %d has label %g, not one of the model's classes %v",
				i+1, v, classes)
		}
	}
	return idx, nil
}

// codeAgainst codes class indices as Classification draws them: +1 for class k, −1 for the
// others, NaN for unlabelled rows.
func codeAgainst(idx []int, k int) []float64 {
	coded := make([]float64, len(idx))
	for i, c := range idx {
		switch {
		case c < 0:
			coded[i] = math.NaN()
		case c == k:
			coded[i] = 1
		default:
			coded[i] = -1
		}
	}
	return coded
}

// unscaled returns points in a predictor's scaled coordinates in the data's (nil sc: as
// they are), where a figure draws them.
func unscaled(pts *mat.Dense, sc *dataset.Scaler) *mat.Dense {
	var out mat.Dense
	out.CloneFrom(pts)
	if sc == nil {
		return &out
	}
	r, c := out.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out.Set(i, j, sc.Unscaled(j, out.At(i, j)))
		}
	}
	return &out
}
