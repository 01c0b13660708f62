package ivm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/exactgp"
	"github.com/ivmlab/ivm/projected"
	"github.com/ivmlab/ivm/search"
)

// projectedScalings are the input scalings the projected model's search compares, each
// with the width its search starts from (search.StartGamma, as the kernel search's): those of
// projectedScalers and, for a regression of several inputs with ScaleAuto, per-input widths
// as the regression search weighs its inputs (the relevance scaling; a candidate only,
// learnt beside the others' searches).
func projectedScalings(x mat.Matrix, y []float64, cfg *Config,
	regression bool) ([]projected.Scaling, error) {
	scalers, err := projectedScalers(x, cfg.Scale)
	if err != nil {
		return nil, err
	}
	out := make([]projected.Scaling, len(scalers))
	for i, sc := range scalers {
		out[i] = projected.Scaling{Scaler: sc, StartGamma: search.StartGamma(x, sc)}
	}
	if _, dim := x.Dims(); regression && cfg.Scale == dataset.ScaleAuto && dim > 1 {
		out = append(out, projected.Scaling{Learn: func() (*dataset.Scaler, float64, error) {
			rel, _, err := exactgp.RelevanceScaler(x, y, scalers[0], cfg.Learn.Seed)
			if err != nil {
				return nil, 0, err
			}
			return rel, search.StartGamma(x, rel), nil
		}})
	}
	return out, nil
}

// projectedScalers are the scalings the projected model's search compares: the one
// asked for, and with ScaleAuto (standardising) the training range's too.
func projectedScalers(x mat.Matrix, kind dataset.Scaling) ([]*dataset.Scaler, error) {
	sc, err := dataset.FitScaler(x, kind)
	if err != nil {
		return nil, err
	}
	out := []*dataset.Scaler{sc}
	if kind == dataset.ScaleAuto {
		mm, err := dataset.FitScaler(x, dataset.ScaleMinMax)
		if err != nil {
			return nil, err
		}
		out = append(out, mm)
	}
	return out, nil
}
