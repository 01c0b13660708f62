package plot

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
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
	if p.Scaler != nil && opt.InputFactor == nil {
		opt.InputShift, opt.InputFactor = p.Scaler.Shift, p.Scaler.Factor
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
	if p == nil || len(p.Models) == 0 {
		return nil, errors.New("plot: the predictor holds no model")
	}
	if k < 0 || k >= len(p.Models) {
		return nil, fmt.Errorf("plot: model %d of a predictor with %d models", k+1, len(p.Models))
	}
	return p.Models[k], nil
}

// CodeTargets returns targets y, as in p's training data, in the coding of p's model k:
// binary and semi-supervised classes −1, +1 (NaN stays NaN, unlabelled); ordinal categories
// 0 … C−1 by their rank in p.Classes; multi-class +1 for Classes[k] and −1 for the rest;
// regression targets unchanged. A label that is not one of p.Classes is an error. It also
// returns the legend names of the model's classes (nil for regression).
func CodeTargets(p *ivm.Predictor, k int, y []float64) (coded []float64, names []string, err error) {
	m, err := PredictorModel(p, k)
	if err != nil {
		return nil, nil, err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	nc := len(m.Noise.Classes())
	switch {
	case nc == 0:
		return y, nil, nil
	case len(p.Models) > 1:
		if k >= len(p.Classes) {
			return nil, nil, fmt.Errorf("plot: %d class labels for %d one-vs-rest models", len(p.Classes), len(p.Models))
		}
		names = []string{"not " + g(p.Classes[k]), g(p.Classes[k])}
	case len(p.Classes) == nc:
		for _, c := range p.Classes {
			names = append(names, g(c))
		}
	default:
		return nil, nil, fmt.Errorf("plot: %d class labels for a model of %d classes", len(p.Classes), nc)
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
			return nil, nil, fmt.Errorf("plot: row %d has label %g, not one of the model's classes %v", i+1, v, p.Classes)
		case len(p.Models) > 1:
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
