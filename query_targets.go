package ivm

// A query scores a row by what its label would tell about the labels of the pool (the
// expected predictive information gain, EPIG: Bickford Smith et al., "Prediction-oriented
// Bayesian active learning", 2023), not about its own latent: the information a label brings
// about its own latent is largest where the pool is thinnest, and rows chosen for it are
// outliers whose labels tell little about the rest. The pool is represented by
// queryTargets evenly spaced rows; each unit keeps their projections and their coordinates
// on the chosen rows, so that the covariance of any row with them given the active set and
// the chosen rows is a kernel value less two inner products.

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/rowdot"
	"github.com/ivmlab/ivm/special"
)

// queryTargets is how many pool rows stand for the pool in EPIG's scores: a row's
// score costs this many covariances, and the mean over them of the information its label
// brings about theirs varies by a few per cent from one evenly spaced sample to another.
const queryTargets = 256

// queryWork bounds the flops an EPIG query spends scoring its candidates: a larger
// pool is scored at an evenly spaced sample of its rows, as many as the bound allows (about
// 8 000 rows for one model of 1 500 active points, 45 000 for 500).
const queryWork = 2.5e10

// targetSet is a unit's target rows: their indices in the pool, scaled inputs, projections
// (engine.Model.Projections), coordinates w on the chosen rows (as queryUnit.w), latent
// variances given the active set and the chosen rows, white included, and the variances the
// chosen rows took (Σ w²).
type targetSet struct {
	rows       []int
	xs         *mat.Dense
	proj       *mat.Dense
	w          [][]float64
	vs, spread []float64
}

// evenRows is k indices evenly spaced over n rows (all of them when k ≥ n).
func evenRows(n, k int) []int {
	k = min(n, k)
	out := make([]int, k)
	for i := range out {
		out[i] = int(int64(i) * int64(n) / int64(k))
	}
	return out
}

// setTargets makes the pool rows the unit's targets.
func (u *queryUnit) setTargets(x mat.Matrix, rows []int) error {
	xs, err := u.scaler.Apply(pickRows(x, rows))
	if err != nil {
		return err
	}
	t := &targetSet{rows: rows, xs: xs, proj: u.project(xs, rows),
		w: make([][]float64, len(rows)), vs: make([]float64, len(rows)),
		spread: make([]float64, len(rows))}
	u.model.Diag(t.vs, xs)
	for j := range t.vs {
		p := t.proj.RawRowView(j)
		t.vs[j] = max(0, t.vs[j]-floats.Dot(p, p))
	}
	u.targets = t
	return nil
}

// includeTargets updates the targets' coordinates and variances for the chosen row just
// added to the unit, given its covariances with them before it was (targetCovs), as
// conditionalVars does for a pool row.
func (u *queryUnit) includeTargets(covs []float64) {
	t := u.targets
	sq := math.Sqrt(u.nu[len(u.nu)-1])
	for j, c := range covs {
		w := c * sq
		t.w[j] = append(t.w[j], w)
		t.vs[j], t.spread[j] = max(0, t.vs[j]-w*w), t.spread[j]+w*w
	}
}

// targetCovs returns the latent covariances, given the active set and the chosen rows, of
// the pool rows (their scaled inputs xs, projections proj and coordinates ws on the chosen
// rows) with the targets: one row of len(targets) for each. White noise is left out: a row's
// covariance with itself as a target is its learnable variance.
func (u *queryUnit) targetCovs(xs, proj *mat.Dense, ws [][]float64) *mat.Dense {
	t := u.targets
	n, _ := xs.Dims()
	covs := mat.NewDense(n, len(t.rows), nil)
	u.model.K(covs, xs, t.xs)
	pp := mat.NewDense(n, len(t.rows), nil)
	rowdot.ABt(pp.RawMatrix(), proj.RawMatrix(), t.proj.RawMatrix())
	covs.Sub(covs, pp)
	if len(u.chosenX) > 0 {
		for i := range n {
			row := covs.RawRowView(i)
			for j := range row {
				row[j] -= floats.Dot(ws[i], t.w[j])
			}
		}
	}
	return covs
}

// targetInformation is the information, in nats, that the label of pool row r brings about
// the targets' labels given the chosen rows' labels: the mean over the targets, each weighed
// by the unit's weight there, times the unit's weight at r. Row r's latent has variance vs
// (white included) given the active set and the chosen rows, covariances covs with the
// targets, and spread the variance the chosen rows took from it. A target that is row r
// itself is left out: its own information would favour the rows that happen to be targets,
// most where the kernel is narrow and the others' information small.
//
// A regression's labels are Gaussian observations (observationInformation). A probit's: the
// chosen rows' labels are not known: including their sites leaves each latent's mean
// where it was and moves it by an unknown δ of variance spread, so a label's entropy given
// them is its entropy at mean m + δ averaged over δ. Given row r's label y as well, a target's
// mean and variance move by the ADF update of a probit site at r. The information is the
// expected fall in the target's entropy. Entropies use Houlsby et al.'s h(Φ(x)) ≈ ln 2 ·
// exp(−x²/(π ln 2)), whose average over a Gaussian δ has a closed form.
func (u *queryUnit) targetInformation(r int, vs, spread float64, covs []float64) float64 {
	l, t := &u.link, u.targets
	vr := max(0, vs-l.white)
	var label probitLabel
	if !l.regression {
		label = newProbitLabel(u.mean[r]+l.shift, vr+spread+l.probitVar)
	}
	total := 0.0
	for j, tr := range t.rows {
		if tr == r {
			continue
		}
		vt := max(0, t.vs[j]-l.white)
		var info float64
		if l.regression {
			info = l.observationInformation(vr, vt, covs[j])
		} else {
			info = label.information(u.mean[tr]+l.shift, vt, covs[j], l.probitVar, t.spread[j])
		}
		total += u.weightAt(tr) * info
	}
	return u.weightAt(r) * total / float64(len(t.rows))
}

// observationInformation is what a regression's observation at a row whose learnable latent
// has variance v1 tells about one at a row of variance v2, their covariance c: two Gaussian
// observations of correlation ρ share −½ ln(1 − ρ²) nats, whatever the values observed, so
// the chosen rows' unknown observations need no averaging.
func (l *queryLink) observationInformation(v1, v2, c float64) float64 {
	noise := l.white + l.noiseVar
	rho2 := c * c / ((v1 + noise) * (v2 + noise))
	return -0.5 * math.Log1p(-min(rho2, 1-1e-12))
}

// probitLabel is a probit label y = sign(g + ε) of a latent g of mean m and marginal
// variance v, ε of variance s², as the ADF update of a site for it moves another latent: for
// y = −1, +1, p(y) and the moves of the other's mean and variance per unit of their
// covariance c and c².
type probitLabel struct {
	p, shift, shrink [2]float64
}

// newProbitLabel is the label of a latent of mean m whose variance plus s² is s2.
func newProbitLabel(m, s2 float64) probitLabel {
	var l probitLabel
	s := math.Sqrt(s2)
	for k, y := range []float64{-1, 1} {
		logPhi, ratio, d := special.LogPhiMills(y * m / s)
		l.p[k], l.shift[k], l.shrink[k] = math.Exp(logPhi), y*ratio/s, d/s2
	}
	return l
}

// information is what the label tells about another probit label whose latent has mean m,
// variance v (given the chosen rows) and covariance c with this one's, its ε variance s2, and
// spread the variance the chosen rows took from it: the expected fall in its entropy.
func (l *probitLabel) information(m, v, c, s2, spread float64) float64 {
	after := 0.0
	for k := range 2 {
		after += l.p[k] * spreadEntropy(m+c*l.shift[k], max(0, v-c*c*l.shrink[k])+s2, spread)
	}
	return max(0, spreadEntropy(m, v+s2, spread)-after)
}

// houlsbyA is π ln 2 / 2: h(Φ(x)) ≈ ln 2 · exp(−x²/(2 houlsbyA)) in nats (Houlsby et al.,
// "Bayesian active learning for classification and preference learning", 2011).
var houlsbyA = math.Pi * math.Ln2 / 2

// spreadEntropy is Houlsby et al.'s approximate entropy h(Φ((m + δ)/√s2)) averaged over δ ~
// N(0, spread).
func spreadEntropy(m, s2, spread float64) float64 {
	a := houlsbyA * s2
	return math.Ln2 * math.Sqrt(a/(a+spread)) * math.Exp(-m*m/(2*(a+spread)))
}

// queryCandidates are the pool rows an EPIG query of k rows (or any query of a projected
// model) scores: all of them, or when scoring them all would take more than queryWork
// flops, as many evenly spaced rows as it allows, and never fewer than minCandidates or
// candidatesPerRow·k. A row costs each unit d² flops to solve, 2d a target to project and
// about 160 a target for the kernel value and the entropies (a unit that shares its
// leader's posterior: the entropies only), and predictWork flops to predict
// (queryPredictWork).
func queryCandidates(units []*queryUnit, n, k int, predictWork float64) []int {
	work := predictWork
	for _, u := range units {
		d := float64(u.model.Size())
		if u.leader != nil { // its leader solves the row: only its own entropies
			d = 0
		}
		work += d*d + queryTargets*(2*d+160)
	}
	if float64(n)*work <= queryWork {
		return nil
	}
	return evenRows(n, max(minCandidates, candidatesPerRow*k, int(queryWork/work)))
}

// minCandidates and candidatesPerRow bound a sampled pool's size below, so that a batch is
// chosen among many more rows than it takes, wherever the model's cost would leave few.
const (
	minCandidates    = 1024
	candidatesPerRow = 16
)
