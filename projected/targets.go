package projected

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/subset"
)

// MinRows is the fewest training rows a projected model is fitted to.
const MinRows = 50

// Targets are what a projected model regresses: each training row's class (cls, of
// classes), or its real target (y, standardised by mean and sd: regression). ClassTargets
// and RealTargets make them.
type Targets struct {
	cls      []int
	classes  int
	y        []float64
	mean, sd float64
}

// ClassTargets are the targets of a classification into k classes: each training row's
// class, an index 0…k−1 (binary: 2 classes). There must be at least MinRows rows.
func ClassTargets(cls []int, k int) (Targets, error) {
	if err := checkRows(len(cls)); err != nil {
		return Targets{}, err
	}
	if k < 2 {
		return Targets{}, fmt.Errorf("ivm: a projected classification into %d classes", k)
	}
	for i, c := range cls {
		if c < 0 || c >= k {
			return Targets{}, fmt.Errorf("ivm: row %d's class index %d, want 0 to %d", i+1, c, k-1)
		}
	}
	return Targets{cls: cls, classes: k}, nil
}

// RealTargets are the targets y of a regression, of which there must be at least MinRows
// and not all the same: Fit regresses them standardised, and its model predicts them in
// their own units.
func RealTargets(y []float64) (Targets, error) {
	if err := checkRows(len(y)); err != nil {
		return Targets{}, err
	}
	t := Targets{}
	if t.mean, t.sd = stat.MeanStdDev(y, nil); !(t.sd > 0) {
		return Targets{}, errors.New("ivm: every target is the same: nothing to regress")
	}
	t.y = make([]float64, len(y))
	for i, v := range y {
		t.y[i] = (v - t.mean) / t.sd
	}
	return t, nil
}

// checkRows refuses fewer than MinRows training rows.
func checkRows(n int) error {
	if n < MinRows {
		return fmt.Errorf("ivm: a projected model needs at least %d training rows, not %d",
			MinRows, n)
	}
	return nil
}

// rows is the number of training rows the targets are of.
func (t Targets) rows() int { return max(len(t.cls), len(t.y)) }

// regression says whether the targets are real.
func (t Targets) regression() bool { return t.y != nil }

// system returns an empty system of m centres for the targets.
func (t Targets) system(m int) *system {
	if t.regression() {
		return newSystem(m, 1)
	}
	return newSystem(m, t.classes)
}

// add accumulates the kernel rows kb of the training rows rows into s.
func (t Targets) add(s *system, kb *mat.Dense, rows []int) {
	if t.regression() {
		s.addReal(kb, subset.Of(t.y, rows))
		return
	}
	s.add(kb, subset.Of(t.cls, rows))
}

// priorLosses is the constant predictor's −ln p(y) at each of the rows val, fitted to the
// rows rest: their class frequencies, or their targets' mean and variance.
func (t Targets) priorLosses(val, rest []int) []float64 {
	if t.regression() {
		mean, variance := stat.MeanVariance(subset.Of(t.y, rest), nil)
		return calib.GaussPriorLosses(subset.Of(t.y, val), mean, variance)
	}
	return calib.ClassPriorLosses(subset.Of(t.cls, rest), subset.Of(t.cls, val), t.classes)
}

// rowLosses is each held-out row's loss (see loss) of latents f at the rows rows.
func (t Targets) rowLosses(f *mat.Dense, rows []int) []float64 {
	if !t.regression() {
		cls := subset.Of(t.cls, rows)
		sc := fitSoftmax(f, cls)
		_, k := f.Dims()
		return mapRowLosses(temperatureMap(sc.a, k), f, cls, sc.eps)
	}
	r2 := make([]float64, len(rows))
	for i, r := range rows {
		r2[i] = (t.y[r] - f.At(i, 0)) * (t.y[r] - f.At(i, 0))
	}
	v := max(stat.Mean(r2, nil), 1e-12)
	for i := range r2 {
		r2[i] = 0.5*math.Log(2*math.Pi*v) + r2[i]/(2*v)
	}
	return r2
}

// loss is the search's score of latents f at the held-out rows rows: the log loss of
// their best softmax, or for regression the density of a Gaussian with the residuals'
// variance (a monotone function of their mean square).
func (t Targets) loss(f *mat.Dense, rows []int) float64 {
	if !t.regression() {
		return fitSoftmax(f, subset.Of(t.cls, rows)).loss
	}
	return stat.Mean(t.rowLosses(f, rows), nil)
}

// codes returns the targets of rows as the system regresses them (rows × classes): each
// class's code, +1 for the row's class and −1 for the others, or the standardised target.
func (t Targets) codes(rows []int) *mat.Dense {
	if t.regression() {
		return mat.NewDense(max(len(rows), 1), 1, subset.Of(t.y, rows))
	}
	y := mat.NewDense(max(len(rows), 1), t.classes, nil)
	for i, r := range rows {
		row := y.RawRowView(i)
		for c := range row {
			row[c] = -1
		}
		row[t.cls[r]] = 1
	}
	return y
}
