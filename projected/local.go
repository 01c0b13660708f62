package projected

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/local"
)

// localMaxInputs bounds the inputs of a regression offered a local part: nearest rows are
// found by a k-d tree, which does no better than a scan of every row in many dimensions.
const localMaxInputs = 32

// withLocal adds to res's regression a local part (package local) fitted to its training
// rows' residuals, where it predicts the calibration rows' held-out residuals better, and
// then recalibrates the predictive variance and the comparison with the constant predictor
// on those rows. The centres see what varies over many rows; rows near each other in time,
// place or a code may share more, which only their own residuals show.
func (res *Result) withLocal(x mat.Matrix, t Targets, opts Options) error {
	n, dim := x.Dims()
	if !t.regression() || dim > localMaxInputs {
		return nil
	}
	xs, err := subset.Scaled(x, res.Scaler, subset.All(n))
	if err != nil {
		return err
	}
	residuals := func(rows []int) ([]float64, error) {
		return res.residuals(xs, t, rows, opts.Workers), nil
	}
	heldRes := make([]float64, len(res.cal))
	for i, row := range res.cal {
		heldRes[i] = t.y[row] - res.Model.Scores(res.calLatents.RawRowView(i))[0]
	}
	fit, err := local.Fit(xs, residuals, res.cal, heldRes, opts.Seed, opts.Workers)
	if err != nil || fit == nil {
		return err
	}
	u := make([]float64, len(fit.Errors))
	for i, e := range fit.Errors {
		u[i] = e * e / fit.Variances[i]
	}
	losses, scale := gaussianHeldOut(u)
	for i, v := range fit.Variances {
		losses[i] += 0.5 * math.Log(v)
	}
	fit.Model.Scale = scale
	res.Model.Local = fit.Model
	res.Baseline = calib.NewBaseline(losses, t.priorLosses(res.cal, subset.Others(n, res.cal)))
	return nil
}

// residualBlock is how many rows' residuals one goroutine computes at a time.
const residualBlock = 8192

// residuals returns the targets t less the model's predictions at the rows given of the
// scaled inputs xs, blocks of rows on workers goroutines.
func (res *Result) residuals(xs *mat.Dense, t Targets, rows []int, workers int) []float64 {
	out := make([]float64, len(rows))
	pool.ForEach((len(rows)+residualBlock-1)/residualBlock, pool.Workers(workers), func(b int) {
		lo, hi := b*residualBlock, min(len(rows), (b+1)*residualBlock)
		f := res.Model.Latents(subset.Dense(xs, rows[lo:hi]))
		for i := lo; i < hi; i++ {
			out[i] = t.y[rows[i]] - res.Model.Scores(f.RawRowView(i - lo))[0]
		}
	})
	return out
}
