package ivm

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/subset"
)

// preferProjectedPairs returns p, one-vs-one pairs fitted by the default search to a
// multi-class task of more than ivmOnlyRows rows, or in its place a projected model of
// every row where that tells the classes apart better on held-out rows: its mean gain over
// each pair's constant predictor, −ln of a class's probability against the other class of
// the pair, exceeds the pairs' own held-out gains (their searches') by more than twice the
// larger standard error. Pairs compare where the coupled probabilities of one-vs-one have
// no held-out figure; twice, for the two figures come from other rows and other fits (the
// pairs' at the search's active size), which one standard error does not cover. Rows near
// each other in time or place (a storm's track) are drawn better by every row than by the
// pairs' active sets.
func (p *Predictor) preferProjectedPairs(x mat.Matrix, y []float64, cfg Config) (*Predictor,
	error) {
	n, _ := x.Dims()
	k, ok := p.Kind.(*OneVsOneKind)
	if !ok || n <= ivmOnlyRows || cfg.Decomposition != DecomposeAuto || cfg.Part.IsPart() ||
		cfg.ActiveSize != 0 || cfg.FixedKernel {
		return p, nil
	}
	gp, sep, ok := pairsGain(k.Pairs)
	if !ok {
		return p, nil
	}
	q := &Predictor{Task: p.Task, Classes: p.Classes}
	if err := q.fitProjectedKind(x, y, &cfg); err != nil {
		return nil, err
	}
	qk := q.Kind.(*ProjectedKind)
	if qk.heldOut == nil {
		return p, nil
	}
	counts := calib.ClassPriors(subset.ClassIndices(y, p.Classes), len(p.Classes))
	gq, seq := pairwiseGain(qk.heldOut, qk.heldOutClasses, counts)
	if !(gq-gp > 2*max(sep, seq)) {
		return p, nil
	}
	return q, nil
}

// pairsGain is the mean held-out gain of one-vs-one pairs over their constant predictors,
// each pair weighted by its held-out rows, and its standard error; false where a pair has
// no held-out figure.
func pairsGain(pairs []*Predictor) (gain, se float64, ok bool) {
	var sum, rows, varSum float64
	for _, pp := range pairs {
		b := pp.Baseline
		if b == nil || b.Rows == 0 {
			return 0, 0, false
		}
		w := float64(b.Rows)
		sum += w * (b.Prior - b.Model)
		varSum += w * w * b.SE * b.SE
		rows += w
	}
	return sum / rows, math.Sqrt(varSum) / rows, rows > 0
}

// pairwiseGain is the mean gain over the constant predictor of class probabilities p (rows
// × classes) of rows of classes cls, scored as one-vs-one pairs are: for each row and each
// other class b, ln of the row's class's probability against b's, less ln of the same for
// the class frequencies priors. It returns too the standard error of the rows' means.
func pairwiseGain(p *mat.Dense, cls []int, priors []float64) (gain, se float64) {
	rows := make([]float64, len(cls))
	for i, a := range cls {
		pr := p.RawRowView(i)
		for b, q := range pr {
			if b != a {
				rows[i] += math.Log(pr[a]/(pr[a]+q)) - math.Log(priors[a]/(priors[a]+priors[b]))
			}
		}
		rows[i] /= float64(len(pr) - 1)
	}
	mean, sd := stat.MeanStdDev(rows, nil)
	return mean, sd / math.Sqrt(float64(len(rows)))
}
