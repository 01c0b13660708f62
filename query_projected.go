package ivm

import (
	"encoding/binary"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/local"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/projected"
)

// queryModel is the posterior a query unit scores: an IVM model's, or a projected model's
// through its query centres. Both give a row's latent variance as its prior variance less
// the squares of its projections, and two rows' covariance as their prior covariance less
// their projections' inner product, which the batch rule and EPIG build on.
type queryModel interface {
	K(dst *mat.Dense, x, y mat.Matrix)
	Diag(dst []float64, x mat.Matrix)
	// Size is the number of projections a row has.
	Size() int
	// ProjectionsAndMeans returns the rows' projections and sets their latent means in mu
	// when it is not nil.
	ProjectionsAndMeans(x mat.Matrix, mu []float64) *mat.Dense
	// LatentBound sets the rows' latent means (where the model makes them) and an upper
	// bound on their variances from their first r projections.
	LatentBound(x mat.Matrix, r int, mu, vs []float64)
	// noiseMean is the unit's mean at a latent mean mu (an IVM's noise model adds its bias).
	noiseMean(mu float64) float64
}

// ivmPosterior is an IVM model's posterior as a query unit scores it.
type ivmPosterior struct{ *engine.Model }

func (m ivmPosterior) K(dst *mat.Dense, x, y mat.Matrix) { m.Kernel.K(dst, x, y) }
func (m ivmPosterior) Diag(dst []float64, x mat.Matrix)  { m.Kernel.Diag(dst, x) }

func (m ivmPosterior) noiseMean(mu float64) float64 {
	var np noise.Prediction
	m.Noise.Predict(&np, mu, 0)
	return np.Mean
}

// projectedPosterior is a projected model's query posterior (projected.QueryPosterior) as a
// query unit scores it. Its means are the model's own predictions, set apart
// (projectedLatents): the query centres give its variances only.
type projectedPosterior struct{ *projected.QueryPosterior }

func (m projectedPosterior) ProjectionsAndMeans(x mat.Matrix, _ []float64) *mat.Dense {
	return m.Projections(x)
}

func (m projectedPosterior) LatentBound(x mat.Matrix, r int, _, vs []float64) {
	m.Bound(x, r, vs)
}

func (projectedPosterior) noiseMean(mu float64) float64 { return mu }

// localPosterior is a projected regression's local part as a query unit scores it. Such a
// model's predictive variance is its local part's (local.Model.Predict): the signal of the
// residuals its nearest training rows leave, and the noise. So a row's latent variance here
// is that signal's variance, and two rows' covariance its correlation times their standard
// deviations; the query centres' coarser posterior is not consulted. Its one projection
// is 0: nothing beyond the local part is known of the latent.
type localPosterior struct {
	*local.Model
	// memo holds the signal variances of the rows met so far, by their bits: the chosen
	// rows' and the targets' are asked for again with every batch of rows solved.
	lock sync.Mutex
	memo map[string]float64
}

func newLocalPosterior(m *local.Model) *localPosterior {
	return &localPosterior{Model: m, memo: map[string]float64{}}
}

func (m *localPosterior) K(dst *mat.Dense, x, y mat.Matrix) {
	xd, yd := denseView(x), denseView(y)
	m.Correlations(dst, xd, yd)
	lx, ly := m.variances(xd), m.variances(yd)
	for i, a := range lx {
		row := dst.RawRowView(i)
		for j, b := range ly {
			row[j] *= math.Sqrt(a * b)
		}
	}
}

func (m *localPosterior) Diag(dst []float64, x mat.Matrix) {
	copy(dst, m.variances(denseView(x)))
}

// denseView is x itself where it is a *mat.Dense (the scaled rows a query unit passes),
// else a copy.
func denseView(x mat.Matrix) *mat.Dense {
	if d, ok := x.(*mat.Dense); ok {
		return d
	}
	return mat.DenseCopyOf(x)
}

func (m *localPosterior) Size() int { return 1 }

func (m *localPosterior) ProjectionsAndMeans(x mat.Matrix, _ []float64) *mat.Dense {
	n, _ := x.Dims()
	return mat.NewDense(max(n, 1), 1, nil)
}

func (m *localPosterior) LatentBound(x mat.Matrix, _ int, _, vs []float64) { m.Diag(vs, x) }

func (*localPosterior) noiseMean(mu float64) float64 { return mu }

// variances returns the local part's signal variances at the rows of x
// (local.Model.SignalVariances), those of rows met before from the memo.
func (m *localPosterior) variances(x *mat.Dense) []float64 {
	n, dim := x.Dims()
	out, keys, miss := make([]float64, n), make([]string, n), []int(nil)
	buf := make([]byte, 8*dim)
	m.lock.Lock()
	for i := range n {
		for j, v := range x.RawRowView(i) {
			binary.LittleEndian.PutUint64(buf[8*j:], math.Float64bits(v))
		}
		keys[i] = string(buf)
		var ok bool
		if out[i], ok = m.memo[keys[i]]; !ok {
			miss = append(miss, i)
		}
	}
	m.lock.Unlock()
	if len(miss) == 0 {
		return out
	}
	rows := mat.NewDense(len(miss), dim, nil)
	for k, i := range miss {
		rows.SetRow(k, x.RawRowView(i))
	}
	vs := m.SignalVariances(rows, 0)
	m.lock.Lock()
	for k, i := range miss {
		out[i], m.memo[keys[i]] = vs[k], vs[k]
	}
	m.lock.Unlock()
	return out
}

// kernelValueWork is what one of a projected model's kernel values costs a query beyond its
// distance, in flops of queryWork's: an exponential, about 30 ns where a product of the
// query's dense algebra costs a fraction of one.
const kernelValueWork = 200

// queryPredictWork is the flops a query spends on predicting one pool row before scoring
// it: a projected model's kernel values at its centres, each with a distance of 2D flops
// (on images, most of the cost), and at its additive knots, one input each; 0 for IVM
// models, whose means cost d flops a row.
func (p *Predictor) queryPredictWork() float64 {
	k, ok := p.Kind.(*ProjectedKind)
	if !ok {
		return 0
	}
	m, dim := k.Projected.Centres.Dims()
	return float64(m)*float64(kernelValueWork+2*dim) +
		float64(k.Projected.Additive.Knots())*kernelValueWork
}

// projectedUnits are a projected model's query units, their latents not yet set: a
// regression's one; for classes, one a class (a binary task's: its second class's, whose
// latent is the first's negated), each class's label read as a probit of its latent f_c (as
// a label regression's is, binaryUnit) whose noise is the codes' λ. The classes' latents
// share one posterior: the first unit leads the others.
func projectedUnits(p *Predictor, k *ProjectedKind) ([]*queryUnit, error) {
	qp, err := k.Projected.QueryPosterior()
	if err != nil {
		return nil, err
	}
	post := projectedPosterior{qp}
	if l := k.Projected.Local; p.Task == Regression && l != nil {
		return []*queryUnit{{model: newLocalPosterior(l), scaler: k.Scaler,
			link: queryLink{regression: true, gaussianSite: true,
				noiseVar: l.NoiseVariance()}}}, nil
	}
	if p.Task == Regression {
		noiseVar := k.Projected.Lambda * k.Projected.Query.Scale
		return []*queryUnit{{model: post, scaler: k.Scaler, link: queryLink{regression: true,
			gaussianSite: true, noiseVar: noiseVar}}}, nil
	}
	units := make([]*queryUnit, len(p.Classes)-firstQueriedClass(p))
	for c := range units {
		units[c] = &queryUnit{model: post, scaler: k.Scaler,
			link: queryLink{gaussianSite: true, noiseVar: k.Projected.Lambda}}
		if c > 0 {
			units[c].leader = units[0]
		}
	}
	return units, nil
}

// firstQueriedClass is the class of a projected classifier's first query unit: 1 for a
// binary task, whose class 0 latent is class 1's negated, else 0.
func firstQueriedClass(p *Predictor) int {
	if p.Task == Binary {
		return 1
	}
	return 0
}

// projectedLatents sets the units' latents at the pool rows x from the model's predictions
// there, which it returns: each unit's mean is its latent (a regression's predictive mean),
// its variance the query posterior's, bounded (leadingRanks) or, scored by EPIG, its prior.
// A class's probit link is fitted to the predicted probability of its class, ln p/(1 − p)
// against the latent by least squares over the pool (linkOfClass).
func projectedLatents(p *Predictor, k *ProjectedKind, units []*queryUnit, x mat.Matrix,
	epig bool) ([]noise.Prediction, error) {
	preds, err := k.predict(p, x)
	if err != nil {
		return nil, err
	}
	n, first := len(preds), firstQueriedClass(p)
	for j, u := range units {
		u.mean, u.fixedMeans = make([]float64, n), true
		c := j + first
		for i, pr := range preds {
			if p.Task == Regression {
				u.mean[i] = pr.Mean
			} else {
				u.mean[i] = pr.Latent[c]
			}
		}
		if p.Task != Regression {
			linkOfClass(&u.link, preds, c)
		}
		switch {
		case j > 0: // the units share the posterior: its variances once
			u.vs, u.ranks = units[0].vs, units[0].ranks
		case epig:
			xs, err := k.Scaler.Apply(x)
			if err != nil {
				return nil, err
			}
			u.vs, u.ranks = make([]float64, n), []int{0}
			u.model.Diag(u.vs, xs)
		default:
			if err := u.boundLatents(x, leadingRanks(u.model.Size())); err != nil {
				return nil, err
			}
		}
	}
	return preds, nil
}

// linkOfClass sets link's probit, p(class c) = Φ((f_c + shift)/s), from the logistic map
// σ(a·f_c + b) fitted to the predictions' probabilities of class c at their latents f_c,
// read as a probit as binaryUnit reads a label regression's. Where the latents do not vary
// over the pool (the constant predictor), the map is the codes' own, q = (f + 1)/2,
// linearised at the mean probability: what a latent that moved would mean. A map that
// does not rise with the latent leaves the label uninformative.
func linkOfClass(link *queryLink, preds []noise.Prediction, c int) {
	var sf, sz, sff, sfz, sp float64
	for _, pr := range preds {
		q := min(max(pr.Prob[c], 1e-6), 1-1e-6)
		f, z := pr.Latent[c], math.Log(q/(1-q))
		sf, sz, sff, sfz, sp = sf+f, sz+z, sff+f*f, sfz+f*z, sp+q
	}
	n := float64(len(preds))
	a := (sfz - sf*sz/n) / (sff - sf*sf/n)
	if !(sff/n-(sf/n)*(sf/n) > 1e-12) {
		p := sp / n
		a = 1 / (2 * p * (1 - p))
	}
	if !(a > 1e-6) || math.IsInf(a, 0) {
		a = 1e-6
	}
	b := (sz - a*sf) / n
	const kappa2 = math.Pi / 8
	link.shift, link.probitVar = b/a, 1/(kappa2*a*a)
}
