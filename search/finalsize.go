package search

// The final size: the chosen kernel fitted on models of the final model's size, for its
// calibration, and moved towards sharper kernels where those do better (finalSize).

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
)

// finalSize returns the validation outputs of the chosen kernel fitted on folds, the
// search's folds at the final model's size, and the searcher whose validation rows they
// are (for the calibration). Where the search scored small models of a subsample (above
// searchCVRows rows: at most searchMaxD active points of searchMaxFit rows) and the final
// model is much larger, it climbs towards sharper kernels at that size: it fits a sharper
// neighbour (γ·2 with variance·4, else variance·2) and moves there, in c.p, when its
// held-out log loss is lower by more than the standard error of the rows' paired
// differences (a gain below it is what another held-out sample could reverse). A model of
// 200 active points cannot carry the narrow, confident kernel that one of 1 200 can, and
// how far the small models' choice lies from the large one's varies with the subsample the
// search drew (bench/RESULTS.md records the runs). The neighbours fitted cost
// at most half the final selection, finalCost (d²·candidates), and at least one is fitted.
// On large sets the validation rows are more than the search's (finalValRows).
func (s *searcher) finalSize(c *climb, folds []searchFold, finalCost float64) (*searcher,
	[][2][]float64, error) {
	if len(folds) > 1 || s.regression || folds[0].d < 2*s.folds[0].d {
		out, err := s.outputs(folds, c.p)
		return s, out, err
	}
	fs := s.withFinalVal(folds)
	out, err := fs.outputs(fs.folds, c.p)
	if err != nil {
		return nil, nil, err
	}
	eps := calib.LabelNoiseLevels[0]
	losses := func(out [][2][]float64) []float64 {
		return fs.rowLosses(out, probMap{a: fs.sharpness(out, eps, false), eps: eps})
	}
	cur := losses(out)
	fs.reportFinal(c.p, cur)
	nFit, _ := folds[0].xFit.Dims()
	fits := max(1, int(finalCost/2/(float64(folds[0].d)*float64(folds[0].d)*float64(nFit))))
	for moved := true; moved && fits > 0; {
		moved = false
		for _, grow := range []float64{4, 2} {
			if fits == 0 {
				break
			}
			q := c.p
			q.gamma, q.variance = 2*q.gamma, grow*q.variance
			if q.variance > searchMaxVariance {
				continue
			}
			fits--
			alt, err := fs.outputs(fs.folds, q)
			if err != nil {
				return nil, nil, err
			}
			next := losses(alt)
			fs.reportFinal(q, next)
			gain, se := calib.PairedGain(cur, next)
			if w := s.opt.Trace; w != nil {
				fmt.Fprintf(w,
					"search: final size d = %d, %d validation rows: %s → %s lowers "+
						"the held-out log loss by %.5f ± %.5f\n",
					folds[0].d, len(cur), c.p.spec(), q.spec(), gain, se)
			}
			if gain > se {
				c.p, out, cur, moved = q, alt, next, true
				break
			}
		}
	}
	return fs, out, nil
}

// reportFinal reports a kernel finalSize fitted, with its validation rows' losses, as a
// step of the search: it takes as long as several of the search's.
func (s *searcher) reportFinal(p searchParams, losses []float64) {
	if s.report != nil {
		s.report(p, s.folds[0].d, stat.Mean(losses, nil), s.priorMean())
	}
}

// withFinalVal returns a copy of s that validates folds on its rows and the extra
// validation rows newSearcher kept for finalSize.
func (s *searcher) withFinalVal(folds []searchFold) *searcher {
	fs := *s
	fs.folds = slices.Clone(folds)
	if s.xValExtra != nil {
		var v mat.Dense
		v.Stack(folds[0].xVal, s.xValExtra)
		fs.folds[0].xVal = &v
		fs.valClass = append(slices.Clone(s.valClass), s.valClassExtra...)
	}
	return &fs
}

// finalValRows is how many validation rows finalSize uses on one held-out fold of n
// training rows: the search's searchMaxVal, up to n/12 on large sets. The kernels it
// compares differ by a few thousandths of a nat per row, which 1 000 rows do not resolve,
// and their fits cost as much as the search's whole climb there, so more validation rows
// cost little in proportion.
func finalValRows(n int) int { return max(searchMaxVal, n/12) }
