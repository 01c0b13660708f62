package ivm

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/multiclass"
	"github.com/ivmlab/ivm/noise"
)

// queryUnit is one IVM model of a predictor as Query scores it: the latent mean (bias
// included) and variance at every pool row, the link of its label, the weight of its score
// at each row (nil: 1), and the rows chosen so far as the batch rule includes them.
type queryUnit struct {
	model    *engine.Model
	scaler   *dataset.Scaler
	link     queryLink
	mean, vs []float64
	weight   []float64

	// Row s of the chosen rows: its scaled inputs, its projection (engine.Model.Projections),
	// its coordinates w on the earlier chosen rows (see conditionalVars) and its site's ν.
	chosenX, proj, w [][]float64
	nu               []float64
}

func (u *queryUnit) weightAt(i int) float64 {
	if u.weight == nil {
		return 1
	}
	return u.weight[i]
}

// conditionalVars sets vs[i] to the latent variance at pool row rows[i] given the chosen
// rows' sites, and returns each row's coordinates w: with c_s the covariance of the row and
// chosen row s given the active set and the chosen rows before s, w_s = c_s √ν_s and the
// variance is ς − Σ w_s², the engine's update of ς repeated for each chosen row.
func (u *queryUnit) conditionalVars(x mat.Matrix, rows []int, vs []float64) ([][]float64,
	error) {
	xs, err := u.scaler.Apply(pickRows(x, rows))
	if err != nil {
		return nil, err
	}
	proj := u.model.Projections(xs)
	t := len(u.chosenX)
	var kc *mat.Dense
	if t > 0 {
		_, dim := xs.Dims()
		kc = mat.NewDense(len(rows), t, nil)
		u.model.Kernel.K(kc, xs, mat.NewDense(t, dim, slices.Concat(u.chosenX...)))
	}
	ws := make([][]float64, len(rows))
	for i, r := range rows {
		w := make([]float64, t)
		v := u.vs[r]
		for s := range t {
			c := kc.At(i, s) - floats.Dot(proj.RawRowView(i), u.proj[s]) - floats.Dot(w[:s], u.w[s])
			w[s] = c * math.Sqrt(u.nu[s])
			v -= w[s] * w[s]
		}
		vs[i], ws[i] = max(0, v), w
	}
	return ws, nil
}

// include adds pool row r to the chosen rows, with the site its label's expected ν gives.
func (u *queryUnit) include(x mat.Matrix, r int) error {
	vs := make([]float64, 1)
	w, err := u.conditionalVars(x, []int{r}, vs)
	if err != nil {
		return err
	}
	xs, err := u.scaler.Apply(pickRows(x, []int{r}))
	if err != nil {
		return err
	}
	u.chosenX = append(u.chosenX, xs.RawRowView(0))
	u.proj = append(u.proj, u.model.Projections(xs).RawRowView(0))
	u.w = append(u.w, w[0])
	u.nu = append(u.nu, u.link.siteNu(u.mean[r], vs[0]))
	return nil
}

// queryUnits returns the query units of p's kind at the pool rows x, and p's predictions
// there when it made them (nil for a regression, whose units need the latents alone).
//
// Refused: an ordinal or semi-supervised task (their labels are not a binary model's;
// query is for binary, multi-class and regression tasks) and a projected model, which keeps
// no factor of its system and so has no latent variances to score by.
func (p *Predictor) queryUnits(x mat.Matrix) ([]*queryUnit, []noise.Prediction, error) {
	if p.Task != Binary && p.Task != MultiClass && p.Task != Regression {
		return nil, nil, fmt.Errorf("ivm: query is for binary, multi-class and regression models, "+
			"not a %v one", p.Task)
	}
	if _, ok := p.Kind.(*ProjectedKind); ok {
		return nil, nil, errors.New("ivm: query needs the latent variances, and a projected model " +
			"keeps none (the factor of its system is not saved): query needs IVM models " +
			"(ivm train -multiclass ovr or ovo; Config.Decomposition OneVsRest or OneVsOne)")
	}
	if sk, ok := p.Kind.(*SingleKind); ok && p.Task == Regression {
		u, err := regressionUnit(sk, x)
		return []*queryUnit{u}, nil, err
	}
	preds, err := p.Kind.predict(p, x)
	if err != nil {
		return nil, nil, err
	}
	var units []*queryUnit
	switch k := p.Kind.(type) {
	case *SingleKind:
		units = []*queryUnit{binaryUnit(k, preds, 0)}
	case *OneVsRestKind:
		for c, m := range k.Models {
			units = append(units, binaryUnit(&SingleKind{Model: m, Scaler: k.Scaler}, preds, c))
		}
	case *BlendKind:
		j := slices.IndexFunc(k.Members, func(mp *Predictor) bool {
			return mp.Kind.(*SingleKind).Logistic == nil
		})
		units = []*queryUnit{binaryUnit(k.Members[max(j, 0)].Kind.(*SingleKind), preds, max(j, 0))}
	case *OneVsOneKind:
		units = pairUnits(k, preds, len(p.Classes))
	default:
		return nil, nil, fmt.Errorf("ivm: query: a predictor of kind %T", p.Kind)
	}
	return units, preds, nil
}

// pairUnits are a one-vs-one predictor's pairs' units (a blended pair's: the member whose
// latent its predictions report, the last), each pair's information weighed at each row by
// the probability that the row is of one of its two classes: a pair's label means nothing
// for a row of neither.
func pairUnits(k *OneVsOneKind, preds []noise.Prediction, classes int) []*queryUnit {
	units := make([]*queryUnit, len(k.Pairs))
	for j, pp := range k.Pairs {
		sk, single := pp.Kind.(*SingleKind)
		if !single {
			members := pp.Kind.(*BlendKind).Members
			sk = members[len(members)-1].Kind.(*SingleKind)
		}
		u := binaryUnit(sk, preds, j)
		a, b := multiclass.PairOf(j, classes)
		u.weight = make([]float64, len(preds))
		for i := range preds {
			u.weight[i] = preds[i].Prob[a] + preds[i].Prob[b]
		}
		units[j] = u
	}
	return units
}

// binaryUnit is the unit of binary model sk whose latent is the c-th of preds' latents: a
// probit model, or a label regression whose logistic map σ(aμ + b) is read as the probit
// Φ(κ(aμ + b)), κ² = π/8, with its Gaussian noise as the batch rule's site.
func binaryUnit(sk *SingleKind, preds []noise.Prediction, c int) *queryUnit {
	u := &queryUnit{model: sk.Model, scaler: sk.Scaler, mean: make([]float64, len(preds)),
		vs: make([]float64, len(preds))}
	for i := range preds {
		u.mean[i], u.vs[i] = preds[i].Latent[c], preds[i].LatentVar[c]
	}
	w := sk.Model.Kernel.White()
	u.link = queryLink{white: w, probitVar: w + noise.ProbitVariance}
	if l := sk.Logistic; l != nil {
		const kappa2 = math.Pi / 8
		u.link = queryLink{white: w, shift: l.Offset / l.Slope,
			probitVar: w + 1/(kappa2*l.Slope*l.Slope), gaussianSite: true,
			noiseVar: noiseVariance(sk.Model.Noise)}
	}
	return u
}

// regressionUnit is a regression model's unit, its latents computed at the pool rows.
func regressionUnit(sk *SingleKind, x mat.Matrix) (*queryUnit, error) {
	mus, vss, err := latentsAt(sk.Scaler, []*engine.Model{sk.Model}, x, true)
	if err != nil {
		return nil, err
	}
	return &queryUnit{model: sk.Model, scaler: sk.Scaler, mean: mus[0], vs: vss[0],
		link: queryLink{regression: true, gaussianSite: true, white: sk.Model.Kernel.White(),
			noiseVar: noiseVariance(sk.Model.Noise)}}, nil
}

// noiseVariance is a Gaussian noise model's variance σ² of y about the latent: the
// predictive variance at a latent of variance 0.
func noiseVariance(nm noise.Model) float64 {
	var np noise.Prediction
	nm.Predict(&np, 0, 0)
	return np.Var
}
