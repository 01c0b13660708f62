package ivm

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/multiclass"
	"github.com/ivmlab/ivm/noise"
)

// queryUnit is one IVM model of a predictor as Query scores it: the latent mean (bias
// included) and variance at every pool row, the link of its label, the weight of its score
// at each row (nil: 1), and the rows chosen so far as the batch rule includes them.
type queryUnit struct {
	model    queryModel
	scaler   *dataset.Scaler
	link     queryLink
	mean, vs []float64
	weight   []float64
	// ranks: while a row's bound level l is below len(ranks), vs holds an upper bound on its
	// variance from the first ranks[l] active points (boundLatents), not the variance.
	ranks []int
	// lazyMeans: a row's mean is set when it is first solved (priorLatents). fixedMeans:
	// the means are set apart, from the predictor's predictions (projectedLatents).
	lazyMeans, fixedMeans bool

	// Row s of the chosen rows: its scaled inputs, its projection (engine.Model.Projections),
	// its coordinates w on the earlier chosen rows (see conditionalVars) and its site's ν.
	chosenX, proj, w [][]float64
	nu               []float64

	// targets, EPIG's: the pool rows its scores are about (query_targets.go).
	targets *targetSet

	// leader, if not nil, is the unit whose posterior this one shares, chosen rows and
	// targets included (a projected model's classes: one latent process); only its means and
	// link are its own, and the batch updates the leader alone.
	leader *queryUnit
}

// posterior is the unit whose posterior state u reads: its leader, or itself.
func (u *queryUnit) posterior() *queryUnit {
	if u.leader != nil {
		return u.leader
	}
	return u
}

func (u *queryUnit) weightAt(i int) float64 {
	if u.weight == nil {
		return 1
	}
	return u.weight[i]
}

// score is the unit's weighed score at pool row r, given its latent variance vs and, scored
// by EPIG, its coordinates w on the chosen rows and covariances with the targets.
func (u *queryUnit) score(r int, vs float64, w, covs []float64) float64 {
	if u.targets != nil {
		return u.targetInformation(r, vs, floats.Dot(w, w), covs)
	}
	return u.weightAt(r) * u.link.score(u.mean[r], vs)
}

// conditioned is what conditionalVars finds of some pool rows: their scaled inputs,
// projections (engine.Model.Projections), coordinates ws on the chosen rows and, scored by
// EPIG, covariances with the unit's targets (targetCovs; nil otherwise).
type conditioned struct {
	xs, proj *mat.Dense
	ws       [][]float64
	covs     *mat.Dense
}

// conditionalVars sets vs[i] to the latent variance at pool row rows[i] given the chosen
// rows' sites, and returns what it found of the rows: with c_s the covariance of a row and
// chosen row s given the active set and the chosen rows before s, its coordinate w_s is
// c_s √ν_s and its variance ς − Σ w_s², the engine's update of ς repeated for each chosen
// row.
func (u *queryUnit) conditionalVars(x mat.Matrix, rows []int, vs []float64) (*conditioned,
	error) {
	xs, err := u.scaler.Apply(pickRows(x, rows))
	if err != nil {
		return nil, err
	}
	proj := u.project(xs, rows)
	t := len(u.chosenX)
	var kc *mat.Dense
	if t > 0 {
		_, dim := xs.Dims()
		kc = mat.NewDense(len(rows), t, nil)
		u.model.K(kc, xs, mat.NewDense(t, dim, slices.Concat(u.chosenX...)))
	}
	var prior []float64
	if len(u.ranks) > 0 { // u.vs holds bounds: the rows' variances from their projections
		prior = make([]float64, len(rows))
		u.model.Diag(prior, xs)
	}
	ws := make([][]float64, len(rows))
	for i, r := range rows {
		w := make([]float64, t)
		var v float64
		if len(u.ranks) > 0 {
			v = max(0, prior[i]-floats.Dot(proj.RawRowView(i), proj.RawRowView(i)))
		} else {
			v = u.vs[r]
		}
		for s := range t {
			c := kc.At(i, s) - floats.Dot(proj.RawRowView(i), u.proj[s]) - floats.Dot(w[:s], u.w[s])
			w[s] = c * math.Sqrt(u.nu[s])
			v -= w[s] * w[s]
		}
		vs[i], ws[i] = max(0, v), w
	}
	out := &conditioned{xs: xs, proj: proj, ws: ws}
	if u.targets != nil {
		out.covs = u.targetCovs(xs, proj, ws)
	}
	return out, nil
}

// include adds pool row r to the chosen rows, with the site its label's expected ν gives.
func (u *queryUnit) include(x mat.Matrix, r int) error {
	vs := make([]float64, 1)
	c, err := u.conditionalVars(x, []int{r}, vs)
	if err != nil {
		return err
	}
	u.chosenX = append(u.chosenX, c.xs.RawRowView(0))
	u.proj = append(u.proj, c.proj.RawRowView(0))
	u.w = append(u.w, c.ws[0])
	u.nu = append(u.nu, u.link.siteNu(u.mean[r], vs[0]))
	if u.targets != nil {
		u.includeTargets(c.covs.RawRowView(0))
	}
	return nil
}

// queryUnits returns the query units of p's kind, their latents not yet set (queryLatents).
//
// Refused: an ordinal or semi-supervised task (their labels are not a binary model's;
// query is for binary, multi-class and regression tasks) and a projected model whose file
// has no query part (written before it had one).
func (p *Predictor) queryUnits() ([]*queryUnit, error) {
	if p.Task != Binary && p.Task != MultiClass && p.Task != Regression {
		return nil, fmt.Errorf("ivm: query is for binary, multi-class and regression models, "+
			"not a %v one", p.Task)
	}
	switch k := p.Kind.(type) {
	case *ProjectedKind:
		units, err := projectedUnits(p, k)
		if err != nil {
			return nil, fmt.Errorf("ivm: query: %w; or train IVM models (-multiclass ovr)", err)
		}
		return units, nil
	case *OneVsOneKind:
		return pairUnits(k), nil
	case *SingleKind:
		if p.Task == Regression {
			return []*queryUnit{regressionUnit(k)}, nil
		}
		return []*queryUnit{binaryUnit(k)}, nil
	case *OneVsRestKind:
		units := make([]*queryUnit, len(k.Models))
		for i, m := range k.Models {
			units[i] = binaryUnit(&SingleKind{Model: m, Scaler: k.Scaler})
		}
		return units, nil
	case *BlendKind:
		j := slices.IndexFunc(k.Members, func(mp *Predictor) bool {
			return mp.Kind.(*SingleKind).Logistic == nil
		})
		return []*queryUnit{binaryUnit(k.Members[max(j, 0)].Kind.(*SingleKind))}, nil
	}
	return nil, fmt.Errorf("ivm: query: a predictor of kind %T", p.Kind)
}

// queryLatents sets the units' latents at the pool rows x, and returns p's predictions there
// when it made them: a one-vs-one predictor's pairs weigh their scores by them. The variances
// are bounded (leadingRanks) or, scored by EPIG, left at their priors, for every row is solved
// to find its covariances with the targets.
func (p *Predictor) queryLatents(units []*queryUnit, x mat.Matrix,
	epig bool) ([]noise.Prediction, error) {
	if k, ok := p.Kind.(*ProjectedKind); ok {
		return projectedLatents(p, k, units, x, epig)
	}
	if k, ok := p.Kind.(*OneVsOneKind); ok {
		preds, err := k.predict(p, x)
		if err != nil {
			return nil, err
		}
		setPairLatents(units, preds, len(p.Classes))
		return preds, nil
	}
	for _, u := range units {
		if epig {
			if err := u.priorLatents(x); err != nil {
				return nil, err
			}
		} else if err := u.boundLatents(x, leadingRanks(u.model.Size())); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// priorLatents sets the unit's latent variances at the pool rows x to their priors, bounds
// at level 0 (rank 0), and leaves their means to be set as they are solved: EPIG solves
// every row, and their kernel values give both.
func (u *queryUnit) priorLatents(x mat.Matrix) error {
	xs, err := u.scaler.Apply(x)
	if err != nil {
		return err
	}
	n, _ := x.Dims()
	u.mean, u.vs, u.ranks, u.lazyMeans = make([]float64, n), make([]float64, n), []int{0}, true
	u.model.Diag(u.vs, xs)
	return nil
}

// project returns the projections of pool rows rows (their scaled inputs xs) and, where the
// means are lazy, sets the rows' means from the same kernel values.
func (u *queryUnit) project(xs *mat.Dense, rows []int) *mat.Dense {
	var mu []float64
	if u.lazyMeans {
		mu = make([]float64, len(rows))
	}
	proj := u.model.ProjectionsAndMeans(xs, mu)
	u.setMeans(rows, mu)
	return proj
}

// setMeans sets the unit's means at the pool rows from their latent means mu (nil: none),
// through its noise model (bias included).
func (u *queryUnit) setMeans(rows []int, mu []float64) {
	if mu == nil {
		return
	}
	for i, r := range rows {
		u.mean[r] = u.model.noiseMean(mu[i])
	}
}

// leadingRanks are how many leading active points bound a pool row's latent variance, level
// by level, before Query solves it in full (engine.Model.LatentBound): r² of the d² flops a
// row, while the information the first points bring leaves most rows' bounds below the
// winners' scores.
func leadingRanks(d int) []int {
	return []int{3 * d / 8, 3 * d / 4}
}

// boundLatents sets the unit's latent mean (its noise model's, bias included; fixed means
// stay) at every pool row and an upper bound on its variance from the first ranks[0] active
// points (exact when ranks is empty): Query scores by these bounds until a row could win.
func (u *queryUnit) boundLatents(x mat.Matrix, ranks []int) error {
	xs, err := u.scaler.Apply(x)
	if err != nil {
		return err
	}
	n, _ := x.Dims()
	u.vs, u.ranks = make([]float64, n), ranks
	r := u.model.Size()
	if len(ranks) > 0 {
		r = ranks[0]
	}
	mu := make([]float64, n)
	u.model.LatentBound(xs, r, mu, u.vs)
	switch {
	case u.fixedMeans:
	case u.link.regression:
		u.mean = mu
	default:
		u.mean = make([]float64, n)
		u.setMeans(subset.All(n), mu)
	}
	return nil
}

// tighten sets the variance bounds of the pool rows to those from the first ranks[level]
// active points.
func (u *queryUnit) tighten(x mat.Matrix, rows []int, level int) error {
	xs, err := u.scaler.Apply(pickRows(x, rows))
	if err != nil {
		return err
	}
	mu, vs := make([]float64, len(rows)), make([]float64, len(rows))
	u.model.LatentBound(xs, u.ranks[level], mu, vs)
	for i, r := range rows {
		u.vs[r] = vs[i]
	}
	return nil
}

// pairUnits are a one-vs-one predictor's pairs' units (a blended pair's: the member whose
// latent its predictions report, the last).
func pairUnits(k *OneVsOneKind) []*queryUnit {
	units := make([]*queryUnit, len(k.Pairs))
	for j, pp := range k.Pairs {
		sk, single := pp.Kind.(*SingleKind)
		if !single {
			members := pp.Kind.(*BlendKind).Members
			sk = members[len(members)-1].Kind.(*SingleKind)
		}
		units[j] = binaryUnit(sk)
	}
	return units
}

// setPairLatents sets the pairs' latents to preds' exact ones, each pair's information
// weighed at each row by the probability that the row is of one of its two classes: a
// pair's label means nothing for a row of neither.
func setPairLatents(units []*queryUnit, preds []noise.Prediction, classes int) {
	for j, u := range units {
		a, b := multiclass.PairOf(j, classes)
		u.mean, u.vs = make([]float64, len(preds)), make([]float64, len(preds))
		u.weight = make([]float64, len(preds))
		for i := range preds {
			u.mean[i], u.vs[i] = preds[i].Latent[j], preds[i].LatentVar[j]
			u.weight[i] = preds[i].Prob[a] + preds[i].Prob[b]
		}
	}
}

// binaryUnit is the unit of binary model sk, its latents not yet set: a probit model, or a
// label regression whose logistic map σ(aμ + b) is read as the probit Φ(κ(aμ + b)),
// κ² = π/8, with its Gaussian noise as the batch rule's site.
func binaryUnit(sk *SingleKind) *queryUnit {
	u := &queryUnit{model: ivmPosterior{sk.Model}, scaler: sk.Scaler}
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

// regressionUnit is a regression model's unit, its latents not yet set.
func regressionUnit(sk *SingleKind) *queryUnit {
	return &queryUnit{model: ivmPosterior{sk.Model}, scaler: sk.Scaler,
		link: queryLink{regression: true, gaussianSite: true, white: sk.Model.Kernel.White(),
			noiseVar: noiseVariance(sk.Model.Noise)}}
}

// noiseVariance is a Gaussian noise model's variance σ² of y about the latent: the
// predictive variance at a latent of variance 0.
func noiseVariance(nm noise.Model) float64 {
	var np noise.Prediction
	nm.Predict(&np, 0, 0)
	return np.Var
}
