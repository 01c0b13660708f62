package ivm

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/exactgp"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/projected"
	"github.com/ivmlab/ivm/search"
)

// projectedScalings are the input scalings the projected model's search compares, each
// with the width its search starts from (search.StartGamma, as the kernel search's): those of
// projectedScalers and, for several inputs with ScaleAuto, per-input widths as the
// regression search weighs its inputs, fitted to the targets y (the relevance scaling; a
// candidate only, learnt beside the others' searches). A classification (classes > 0; 0: a
// regression) has it for at most relevanceMaxClasses classes, of its relevanceMaxInputs
// inputs most correlated with the classes where it has more (screenedRelevance), and
// searches it where the widths differ (exactgp.RelevanceMinGain).
func projectedScalings(x mat.Matrix, y []float64, cfg *Config,
	classes int) ([]projected.Scaling, error) {
	scalers, err := projectedScalers(x, cfg.Scale)
	if err != nil {
		return nil, err
	}
	out := make([]projected.Scaling, len(scalers))
	for i, sc := range scalers {
		out[i] = projected.Scaling{Scaler: sc, StartGamma: search.StartGamma(x, sc)}
	}
	_, dim := x.Dims()
	regression := classes == 0
	if cfg.Scale == dataset.ScaleAuto && dim > 1 && (regression ||
		classes <= relevanceMaxClasses) {
		out = append(out, projected.Scaling{Learn: func() (*dataset.Scaler, float64, error) {
			refine := exactgp.RelevanceRefineRows
			if regression {
				refine = 0 // searched anyway, and refining cost more than it gained
			}
			relevance := exactgp.RelevanceScaler
			if !regression && dim > relevanceMaxInputs {
				relevance = screenedRelevance
			}
			rel, err := relevance(x, y, scalers[0], cfg.Learn.Seed, refine)
			if err != nil {
				return nil, 0, err
			}
			if !regression && rel.Gain < exactgp.RelevanceMinGain {
				return nil, 0, errAlike
			}
			return rel.Scaler, search.StartGamma(x, rel.Scaler), nil
		}})
	}
	return out, nil
}

// relevanceMaxInputs is the most inputs a classification's projected search learns a
// relevance scaling for, as the default kernel's per-input widths (engine.DefaultKernel):
// an image's hundreds of pixels matter alike, and a width each costs the fit and its search
// much for nothing. Of more inputs it learns the widths of this many, screened
// (screenedRelevance).
const relevanceMaxInputs = 32

// screenRows bounds the rows whose correlations screen the inputs (screenedRelevance).
const screenRows = 5000

// screenedRelevance is exactgp.RelevanceScaler for many inputs: the widths of the
// relevanceMaxInputs inputs most correlated with the targets y (sure independence
// screening), the others as good as ignored. Wide tabular data (a grant's hundreds of coded
// answers) often hold their signal in a few inputs, which one width for all drowns.
func screenedRelevance(x mat.Matrix, y []float64, std *dataset.Scaler, seed uint64,
	refine int) (exactgp.Relevance, error) {
	n, _ := x.Dims()
	top := screenInputs(x, y, subset.Random(n, min(n, screenRows), seed, 0x5c12),
		relevanceMaxInputs)
	if len(top) == 0 {
		return exactgp.Relevance{}, errAlike
	}
	return exactgp.ScreenedRelevanceScaler(x, y, std, top, seed, 0)
}

// screenInputs returns, in increasing order, the k inputs whose values over rows are most
// correlated with y's (in absolute value); an input constant over rows is never among them.
func screenInputs(x mat.Matrix, y []float64, rows []int, k int) []int {
	_, dim := x.Dims()
	ys := subset.Of(y, rows)
	col := make([]float64, len(rows))
	score := make([]float64, dim)
	var order []int
	for j := range dim {
		for r, i := range rows {
			col[r] = x.At(i, j)
		}
		if c := stat.Correlation(col, ys, nil); !math.IsNaN(c) {
			score[j] = math.Abs(c)
			order = append(order, j)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	top := order[:min(k, len(order))]
	slices.Sort(top)
	return top
}

// relevanceMaxClasses is the most classes a projected search learns a relevance scaling
// for: the exact GP regresses the class indices, which stand for a few classes but put
// many near and far at random.
const relevanceMaxClasses = 3

// errAlike leaves out a relevance scaling whose inputs matter about alike.
var errAlike = errors.New("ivm: the inputs matter about alike")

// projectedScalers are the scalings the projected model's search compares: the one
// asked for, and with ScaleAuto (standardising) the training range's too, and where some
// of at most relevanceMaxInputs columns have a long tail, the standardised logarithms of
// those (dataset.FitLogScaler): an image's rarely lit border pixels are long-tailed too, and
// their search would cost much for nothing. Of more columns, all of them ≥ 0 (pixels, word
// counts), the range of their square roots is a candidate instead (dataset.FitRootScaler).
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
		var more *dataset.Scaler
		if _, dim := x.Dims(); dim <= relevanceMaxInputs {
			more, err = dataset.FitLogScaler(x)
		} else {
			more, err = dataset.FitRootScaler(x)
		}
		if err != nil {
			return nil, err
		}
		if more != nil {
			out = append(out, more)
		}
	}
	return out, nil
}
