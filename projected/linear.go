package projected

// A two-class model's linear part. The model regresses the classes' codes by least squares
// and maps its latents to probabilities; where the log odds are close to a linear function
// of the inputs (weak effects in tabular data), a logistic regression of the inputs fits
// that function by the log loss itself and predicts better than any map of the codes'
// least squares. The linear part tilts the model's probabilities by such a regression's log
// odds, p ∝ p_model^a ⊙ exp(x·W + b), where the held-out rows say that this beats the model
// alone by more than twice its standard error (withLinear).

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/param"
)

const (
	// linearMaxInputs bounds the inputs of a model offered a linear part: a logistic
	// regression of more inputs (pixels, word counts) fits noise, and its Newton steps cost
	// D² a row.
	linearMaxInputs = 64
	// linearRows bounds the rows each logistic regression is fitted on.
	linearRows = 50000
	// linearRidge is the prior precision of the regression's weights on standardised inputs
	// (scikit-learn's default, C = 1).
	linearRidge = 1.0
	// logOddsBound bounds the model's log odds the tilt is fitted to: probabilities of 0 or 1
	// (no label noise) have none.
	logOddsBound = 30.0
)

// Linear is a model's linear part: class scores x·Weights + Bias of the scaled inputs x,
// added to Power times the logarithms of the model's class probabilities (after the label
// noise).
type Linear struct {
	Weights *mat.Dense // inputs × classes
	Bias    []float64
	Power   float64
}

// Tilt sets the class probabilities p of the scaled input x to p ∝ p^Power ⊙ exp(x·W + b).
func (l *Linear) Tilt(p, x []float64) {
	_, k := l.Weights.Dims()
	z := make([]float64, k)
	copy(z, l.Bias)
	raw := l.Weights.RawMatrix()
	for j, v := range x {
		floats.AddScaled(z, v, raw.Data[j*raw.Stride:j*raw.Stride+k])
	}
	for c := range z {
		z[c] += l.Power * max(math.Log(p[c]), -logOddsBound)
	}
	copy(p, z)
	calib.Softmax(p, 1)
}

// withLinear offers a two-class model of at most linearMaxInputs inputs its linear part
// (see the comment at the top of this file). The calibration rows are split into two
// folds, alternate rows. Each row's model log odds are its held-out probabilities
// (res.heldOut); its linear log odds come from a logistic regression of the inputs fitted
// without its fold. The tilt, a weighted sum of the two and a shift, is fitted to one fold
// and scored on the other; where the tilted rows' losses beat the model's by more than
// tiltBar standard errors, the model keeps the tilt fitted to every calibration row, with the
// regression fitted to the rows every, and those losses become its held-out figures.
func (res *Result) withLinear(x mat.Matrix, t Targets, every []int) error {
	_, dim := x.Dims()
	if t.regression() || t.classes != 2 || dim > linearMaxInputs || res.heldOut == nil ||
		len(res.cal) < 8 {
		return nil
	}
	cal, cls := res.cal, res.heldOutClasses
	n := len(cal)
	design := mat.NewDense(n, 3, nil) // model log odds, linear log odds, 1
	y := make([]bool, n)
	for i, c := range cls {
		p := res.heldOut.RawRowView(i)
		design.Set(i, 0, max(-logOddsBound, min(logOddsBound, math.Log(p[1])-math.Log(p[0]))))
		design.Set(i, 2, 1)
		y[i] = c == 1
	}
	var folds [2][]int
	for i := range n {
		folds[i%2] = append(folds[i%2], i)
	}
	if err := linearLogOdds(design, x, res.Scaler, t, every, cal, folds); err != nil {
		return err
	}
	tilted := make([]float64, n) // each row's class 1 probability, the tilt fitted without it
	for h, fold := range folds {
		other := folds[1-h]
		th, err := newtonLogistic(subset.Dense(design, other), subset.Of(y, other), tiltRidge)
		if err != nil {
			return err
		}
		for _, i := range fold {
			q := 1 / (1 + math.Exp(-floats.Dot(design.RawRowView(i), th)))
			tilted[i] = min(max(q, 1e-15), 1-1e-15)
		}
	}
	probs := mat.NewDense(n, 2, nil)
	for i, q := range tilted {
		probs.SetRow(i, []float64{1 - q, q})
	}
	model, losses := classLosses(res.heldOut, cls), classLosses(probs, cls)
	if gain, se := calib.PairedGain(model, losses); gain <= tiltBar*se {
		return nil
	}
	th, err := newtonLogistic(design, y, tiltRidge)
	if err != nil {
		return err
	}
	lg, err := fitInputs(x, res.Scaler, t, every)
	if err != nil {
		return err
	}
	res.Model.Linear, res.heldOut = lg.tilt(th), probs
	res.Baseline = calib.NewBaseline(losses, t.priorLosses(cal, subset.Others(t.rows(), cal)))
	return nil
}

// linearLogOdds sets column 1 of design, a row for each of the rows cal, to the log odds of
// a logistic regression of the inputs fitted to the rows every but those of the row's fold.
func linearLogOdds(design *mat.Dense, x mat.Matrix, sc *dataset.Scaler, t Targets,
	every, cal []int, folds [2][]int) error {
	for _, fold := range folds {
		rows := subset.Of(cal, fold)
		lg, err := fitInputs(x, sc, t, others(every, rows))
		if err != nil {
			return err
		}
		xf, err := subset.Scaled(x, sc, rows)
		if err != nil {
			return err
		}
		for i, r := range fold {
			design.Set(r, 1, floats.Dot(xf.RawRowView(i), lg.w)+lg.b)
		}
	}
	return nil
}

// tiltBar is how many standard errors the tilt must gain by: the model's log odds it is
// fitted to were themselves calibrated on the same rows, which flatters its held-out gain.
const tiltBar = 2

// tiltRidge draws the tilt's weights towards 0 only enough to keep them finite.
var tiltRidge = []float64{1e-6, 1e-6, 1e-6}

// others returns the rows of every not in rows, in every's order.
func others(every, rows []int) []int {
	skip := make(map[int]bool, len(rows))
	for _, r := range rows {
		skip[r] = true
	}
	out := make([]int, 0, len(every))
	for _, r := range every {
		if !skip[r] {
			out = append(out, r)
		}
	}
	return out
}

// inputsLogistic is a logistic regression of scaled inputs: log odds x·W + B of class 1.
type inputsLogistic struct {
	w []float64
	b float64
}

// fitInputs fits the log odds of class 1 to the scaled inputs of (at most linearRows of)
// the rows rows, the inputs standardised and their weights drawn towards 0 (linearRidge).
func fitInputs(x mat.Matrix, sc *dataset.Scaler, t Targets, rows []int) (inputsLogistic,
	error) {
	rows = rows[:min(len(rows), linearRows)]
	xs, err := subset.Scaled(x, sc, rows)
	if err != nil {
		return inputsLogistic{}, err
	}
	n, dim := xs.Dims()
	mean, sd := make([]float64, dim), make([]float64, dim)
	for j := range dim {
		col := mat.Col(nil, j, xs)
		mean[j] = floats.Sum(col) / float64(n)
		for _, v := range col {
			sd[j] += (v - mean[j]) * (v - mean[j])
		}
		sd[j] = math.Sqrt(sd[j] / float64(n))
		if !(sd[j] > 0) {
			sd[j] = 1 // a constant input: centred to 0, its weight stays 0
		}
	}
	design := mat.NewDense(n, dim+1, nil)
	for i := range n {
		row, d := xs.RawRowView(i), design.RawRowView(i)
		for j, v := range row {
			d[j] = (v - mean[j]) / sd[j]
		}
		d[dim] = 1
	}
	ridge := make([]float64, dim+1)
	for j := range dim {
		ridge[j] = linearRidge
	}
	y := make([]bool, n)
	for i, r := range rows {
		y[i] = t.cls[r] == 1
	}
	theta, err := newtonLogistic(design, y, ridge)
	if err != nil {
		return inputsLogistic{}, err
	}
	lg := inputsLogistic{w: make([]float64, dim), b: theta[dim]}
	for j := range dim {
		lg.w[j] = theta[j] / sd[j]
		lg.b -= theta[j] * mean[j] / sd[j]
	}
	return lg, nil
}

// tilt returns the linear part of the tilt th: class 1's log odds th₀·(the model's) +
// th₁·(x·w + b) + th₂.
func (lg inputsLogistic) tilt(th []float64) *Linear {
	w := mat.NewDense(len(lg.w), 2, nil)
	for j, v := range lg.w {
		w.Set(j, 1, th[1]*v)
	}
	return &Linear{Weights: w, Bias: []float64{0, th[1]*lg.b + th[2]}, Power: th[0]}
}

// logLoss is −ln p(y) under log odds z of class 1.
func logLoss(z float64, y bool) float64 {
	if !y {
		z = -z
	}
	return param.Softplus{}.Forward(-z)
}

// newtonLogistic returns θ minimising Σ_i −ln p(y_i) + ½ Σ_j ridge_j θ_j², where the log
// odds of row i are design_i·θ, by Newton's method with
// its steps halved where the objective would rise.
func newtonLogistic(design *mat.Dense, y []bool, ridge []float64) ([]float64, error) {
	n, d := design.Dims()
	theta := make([]float64, d)
	z, p, grad := make([]float64, n), make([]float64, n), make([]float64, d)
	scaled := mat.NewDense(n, d, nil)
	objective := func(th []float64) float64 {
		sum := 0.0
		for i := range n {
			z[i] = floats.Dot(design.RawRowView(i), th)
			sum += logLoss(z[i], y[i])
		}
		for j, r := range ridge {
			sum += 0.5 * r * th[j] * th[j]
		}
		return sum
	}
	f := objective(theta)
	for range 100 {
		for j := range d {
			grad[j] = ridge[j] * theta[j]
		}
		h := mat.NewSymDense(d, nil)
		for i := range n {
			p[i] = 1 / (1 + math.Exp(-z[i]))
			r := p[i]
			if y[i] {
				r--
			}
			row := design.RawRowView(i)
			floats.AddScaled(grad, r, row)
			floats.ScaleTo(scaled.RawRowView(i), math.Sqrt(p[i]*(1-p[i])), row)
		}
		blas64.Syrk(blas.Trans, 1, scaled.RawMatrix(), 0, h.RawSymmetric())
		for j, r := range ridge {
			h.SetSym(j, j, h.At(j, j)+r)
		}
		var chol mat.Cholesky
		if !chol.Factorize(h) {
			return nil, errors.New("ivm: the logistic regression's Hessian is not positive " +
				"definite")
		}
		var step mat.VecDense
		if err := chol.SolveVecTo(&step, mat.NewVecDense(d, slices.Clone(grad))); err != nil {
			return nil, fmt.Errorf("ivm: the logistic regression's Newton step: %w", err)
		}
		next := make([]float64, d)
		for t := 1.0; ; t /= 2 {
			floats.AddScaledTo(next, theta, -t, step.RawVector().Data)
			if fn := objective(next); fn <= f || t < 1e-10 {
				f = fn
				break
			}
		}
		change := floats.Distance(next, theta, math.Inf(1))
		theta = next
		if change <= 1e-9*(1+floats.Norm(theta, math.Inf(1))) {
			break
		}
	}
	if floats.HasNaN(theta) {
		return nil, errors.New("ivm: the logistic regression's weights are not finite")
	}
	return theta, nil
}
