package archipelago

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Options configures a chain. The zero value gives the defaults noted.
type Options struct {
	// Sweeps is the number of sweeps (default 600) and Burn how many of them are
	// discarded (default Sweeps/3). During burn-in the HMC step sizes adapt
	// towards acceptance rates of 0.75 (functions) and 0.7 (hyperparameters);
	// afterwards they are fixed, so the retained chain is a valid MCMC chain.
	Sweeps, Burn int
	// Thin keeps every Thin-th sweep after burn-in for prediction (default: as
	// many as keep at most 100 samples).
	Thin int
	// Seed seeds the chain (math/rand/v2 PCG); equal seeds give equal chains.
	Seed uint64
	// ARD gives every input its own length-scale (the paper's wine and oil runs).
	ARD bool
	// Variance is the initial kernel amplitude σ² (default 1) and LengthScale the
	// initial length-scale in units of each input's standard deviation (default
	// ½√D). The hyperparameter prior is centred on these with standard deviation
	// PriorSD (default 1.5) on the log scale (AmpPriorSD for the amplitude).
	Variance, LengthScale, PriorSD float64
	// AmpPriorSD is the standard deviation of the log-amplitude prior (default
	// 0.5). The point factors of eq. 8 only grow as g is scaled up once every
	// point has the sign its factor wants, so the amplitude's posterior is the
	// prior's tail beyond that point and the prior sets how far out it goes:
	// as broad as the other hyperparameters' prior, it lets the amplitude grow
	// until a wrong chain's predictions are confidently wrong; this one keeps
	// it moderate (bench/RESULTS.md records the runs).
	AmpPriorSD float64
	// Nugget is the white-noise variance relative to σ² (default 1e-6).
	Nugget float64
	// FixHyper keeps the kernel hyperparameters fixed; FixBase keeps the base
	// density at its initial value (the sample moments of the data).
	FixHyper, FixBase bool
	// InsertProb is b of eqs. 9–10 (default ½) and BirthDeath the number of
	// insert-or-delete proposals per sweep (default 10, as §3.1).
	InsertProb float64
	BirthDeath int
	// MoveScale is the random-walk step of a rejection move in units of the base
	// density's standard deviations (default 0.3).
	MoveScale float64
	// InitRejections is the number of rejections drawn from the prior at the start
	// (default (N+P)/K; −1 for none).
	InitRejections int
	// GSteps and GEps are the leapfrog steps and initial step size of the HMC on
	// each function (defaults 20, 0.1); HyperSteps and HyperEps those of the HMC
	// on the hyperparameters (defaults 5, 0.05).
	GSteps, HyperSteps int
	GEps, HyperEps     float64
	// HyperEvery makes the hyperparameter HMC every HyperEvery sweeps (default
	// 2): each of its leapfrog steps costs a factorisation and an inverse,
	// O(n³), the dominant cost of a sweep.
	HyperEvery int
	// AmpMoves is the number of Metropolis moves per sweep on the log
	// amplitude with the whitened functions held fixed (default 20; −1: none),
	// AmpStep their initial random-walk step (default 0.1, adapted during
	// burn-in towards acceptance 0.4). The HMC above holds g fixed, which pins
	// the amplitude; these moves let it follow the data (see updateAmplitude).
	AmpMoves int
	AmpStep  float64
	// Anneal is the number of burn-in sweeps over which the unlabelled points'
	// factors Λ/(1+Λ) are raised from power 0 to 1 in the function moves, so
	// that the classes first take shape from the labels alone and the
	// unlabelled clusters then join the class that already covers them
	// (default 3·Burn/4; −1: none). It must not exceed Burn: the retained
	// chain always targets eq. 8 itself.
	Anneal int
	// Progress, if set, is called after every sweep.
	Progress func(SweepInfo)
}

func (o *Options) defaults() error {
	if o.Sweeps == 0 {
		o.Sweeps = 600
	}
	if o.Burn == 0 {
		o.Burn = o.Sweeps / 3
	}
	if o.Sweeps < 1 || o.Burn < 0 || o.Burn >= o.Sweeps {
		return fmt.Errorf("archipelago: %d sweeps with %d burn-in", o.Sweeps, o.Burn)
	}
	if o.Anneal == 0 {
		o.Anneal = 3 * o.Burn / 4
	}
	if o.Anneal < -1 || o.Anneal > o.Burn {
		return fmt.Errorf(
			"archipelago: annealing over %d sweeps, want −1 (none) to the %d burn-in sweeps",
			o.Anneal, o.Burn)
	}
	if o.Thin == 0 {
		o.Thin = (o.Sweeps - o.Burn + 99) / 100
	}
	if o.Variance == 0 {
		o.Variance = 1
	}
	if o.InsertProb == 0 {
		o.InsertProb = 0.5
	}
	if !(o.InsertProb > 0 && o.InsertProb < 1) {
		return fmt.Errorf("archipelago: insert probability b = %v, want (0, 1)", o.InsertProb)
	}
	if o.BirthDeath == 0 {
		o.BirthDeath = 10
	}
	if o.MoveScale == 0 {
		o.MoveScale = 0.3
	}
	if o.GSteps == 0 {
		o.GSteps = 20
	}
	if o.GEps == 0 {
		o.GEps = 0.1
	}
	if o.HyperSteps == 0 {
		o.HyperSteps = 5
	}
	if o.HyperEps == 0 {
		o.HyperEps = 0.05
	}
	if o.HyperEvery == 0 {
		o.HyperEvery = 2
	}
	if o.AmpMoves == 0 {
		o.AmpMoves = 20
	}
	if o.AmpStep == 0 {
		o.AmpStep = 0.1
	}
	if o.AmpPriorSD == 0 {
		o.AmpPriorSD = 0.5
	}
	if !(o.AmpPriorSD > 0) || math.IsInf(o.AmpPriorSD, 0) {
		return fmt.Errorf("archipelago: amplitude prior standard deviation %v", o.AmpPriorSD)
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"Thin ≥ 1", o.Thin >= 1}, {"HyperEvery ≥ 1", o.HyperEvery >= 1}, {
			"AmpMoves ≥ −1 (−1: none)", o.AmpMoves >= -1},
		{"AmpStep > 0", o.AmpStep > 0}, {"BirthDeath ≥ 0", o.BirthDeath >= 0}, {
			"GSteps ≥ 1", o.GSteps >= 1},
		{"HyperSteps ≥ 1", o.HyperSteps >= 1}, {"GEps > 0", o.GEps > 0}, {
			"HyperEps > 0", o.HyperEps > 0}, {"MoveScale > 0", o.MoveScale > 0},
	} {
		if !c.ok {
			return fmt.Errorf("archipelago: sampler option out of range: want %s", c.name)
		}
	}
	return nil
}

// Stats counts proposals and acceptances over a chain.
type Stats struct {
	InsertTried    int `json:"insert_tried"`
	InsertAccepted int `json:"insert_accepted"`
	DeleteTried    int `json:"delete_tried"`
	DeleteAccepted int `json:"delete_accepted"`
	MoveTried      int `json:"move_tried"`
	MoveAccepted   int `json:"move_accepted"`
	GTried         int `json:"g_tried"`
	GAccepted      int `json:"g_accepted"`
	HyperTried     int `json:"hyper_tried"`
	HyperAccepted  int `json:"hyper_accepted"`
	AmpTried       int `json:"amp_tried"`
	AmpAccepted    int `json:"amp_accepted"`
	// Jitter counts refactorisations that needed diagonal jitter; MaxJitter is
	// the largest added.
	Jitter    int     `json:"jitter"`
	MaxJitter float64 `json:"max_jitter"`
}

// Rate returns accepted/tried (NaN when nothing was tried).
func Rate(accepted, tried int) float64 {
	if tried == 0 {
		return math.NaN()
	}
	return float64(accepted) / float64(tried)
}

// Acceptance summarises the stats in one line: each move's acceptance rate and the jitter
// fallbacks.
func (st Stats) Acceptance() string {
	return fmt.Sprintf("insert %.2f, delete %.2f, move %.2f, HMC g %.2f, HMC θ %.2f, "+
		"amplitude %.2f; jitter fallbacks %d",
		Rate(st.InsertAccepted, st.InsertTried), Rate(st.DeleteAccepted, st.DeleteTried),
		Rate(st.MoveAccepted, st.MoveTried), Rate(st.GAccepted, st.GTried),
		Rate(st.HyperAccepted, st.HyperTried), Rate(st.AmpAccepted, st.AmpTried), st.Jitter)
}

// SweepInfo describes the state after one sweep.
type SweepInfo struct {
	Sweep      int
	Rejections int
	LogLik     float64 // Σ of the point factors of eq. 8 (without π)
	// power of the unlabelled factors in this sweep's function moves (Options.Anneal)
	Beta     float64
	Theta    []float64
	GEps     float64
	HyperEps float64
	Stats    Stats // cumulative
	Elapsed  time.Duration
}

// Sampler is a Markov chain over the latent history of Archipelago (or, with
// no unlabelled data and no rejections, over a softmax GP classifier).
type Sampler struct {
	st      *state
	base    *Gaussian
	opt     Options
	rng     *rand.Rand
	nData   int // N + P: the data points, stored first
	archi   bool
	stepSD  []float64
	stats   Stats
	epsG    float64
	epsH    float64
	epsA    float64
	sweep   int
	samples []Sample
	trace   []SweepInfo
	start   time.Time
}

// Sample is one retained state: enough to predict and to run the generative
// process forward.
type Sample struct {
	Sweep      int
	X          *mat.Dense // n×D point locations (data, then rejections)
	G          *mat.Dense // n×K function values
	Theta      []float64
	Rejections int
	BaseMean   []float64
	BaseCov    *mat.SymDense
}

// labelsOK checks labels against nClass and counts them.
func labelsOK(x *mat.Dense, labels []int, nClass int) (nl int, err error) {
	if x == nil {
		return 0, errors.New("archipelago: no data")
	}
	n, d := x.Dims()
	if n != len(labels) {
		return 0, fmt.Errorf("archipelago: %d rows and %d labels", n, len(labels))
	}
	if nClass < 1 {
		return 0, fmt.Errorf("archipelago: %d classes", nClass)
	}
	for i, l := range labels {
		if l < -1 || l >= nClass {
			return 0, fmt.Errorf("archipelago: label %d of row %d outside −1..%d", l, i, nClass-1)
		}
		if l >= 0 {
			nl++
		}
		for j := 0; j < d; j++ {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("archipelago: input (%d, %d) = %v", i, j, v)
			}
		}
	}
	return nl, nil
}

// newCovFor builds the covariance from the options and the data's spread.
func newCovFor(x *mat.Dense, opt Options) (*Cov, error) {
	_, d := x.Dims()
	_, cv := moments(x)
	ls := opt.LengthScale
	if ls == 0 {
		ls = 0.5 * math.Sqrt(float64(d))
	}
	var c []float64
	if opt.ARD {
		for j := 0; j < d; j++ {
			l := ls * math.Sqrt(cv.At(j, j))
			c = append(c, 1/(l*l))
		}
	} else {
		var tr float64
		for j := 0; j < d; j++ {
			tr += cv.At(j, j)
		}
		l := ls * math.Sqrt(tr/float64(d))
		c = []float64{1 / (l * l)}
	}
	cov, err := NewCov(d, opt.ARD, opt.Variance, c, opt.Nugget, opt.PriorSD)
	if err != nil {
		return nil, err
	}
	cov.PriorSD[0] = opt.AmpPriorSD
	return cov, nil
}

// NewArchipelago sets up a chain for the rows of x with labels in 0..nClass−1
// or −1 for unlabelled rows. The base density starts at the data's sample
// moments with a weak normal-inverse-Wishart prior around them.
func NewArchipelago(x *mat.Dense, labels []int, nClass int, opt Options) (*Sampler, error) {
	if _, err := labelsOK(x, labels, nClass); err != nil {
		return nil, err
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	cov, err := newCovFor(x, opt)
	if err != nil {
		return nil, err
	}
	mean, cv := moments(x)
	base, err := NewGaussian(mean, cv)
	if err != nil {
		return nil, err
	}
	base.SetEmpiricalPrior(x)
	sp := &Sampler{base: base, opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0xa5c4)), archi: true}
	n, d := x.Dims()
	sp.st = newState(d, nClass, cov)
	for i := 0; i < n; i++ {
		k, l := kindLabelled, labels[i]
		if l < 0 {
			k = kindUnlabelled
		}
		sp.st.x = append(sp.st.x, x.RawRowView(i)...)
		sp.st.g = append(sp.st.g, make([]float64, nClass)...)
		sp.st.lab = append(sp.st.lab, l)
		sp.st.kind = append(sp.st.kind, k)
		sp.st.n++
	}
	sp.nData = n
	if err := sp.st.refactor(); err != nil {
		return nil, err
	}
	m0 := opt.InitRejections
	if m0 == 0 {
		m0 = n / nClass
	}
	gn := make([]float64, nClass)
	sp.stepSizes()
	for i := 0; i < m0; i++ {
		xn := make([]float64, d)
		sp.base.Sample(xn, sp.rng)
		dd, ok := sp.st.conditional(xn)
		if !ok {
			continue
		}
		sp.st.drawConditional(gn, dd, sp.rng)
		sp.st.appendPoint(xn, gn, kindRejection, -1, dd)
	}
	sp.epsG, sp.epsH, sp.epsA = opt.GEps, opt.HyperEps, opt.AmpStep
	return sp, nil
}

// NewSoftmaxGP sets up the comparator: a softmax GP classifier (eq. 1 alone) on
// the labelled rows, sampled by the same HMC moves; unlabelled rows are ignored.
func NewSoftmaxGP(x *mat.Dense, labels []int, nClass int, opt Options) (*Sampler, error) {
	nl, err := labelsOK(x, labels, nClass)
	if err != nil {
		return nil, err
	}
	if nl == 0 {
		return nil, errors.New("archipelago: softmax GP needs labelled rows")
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	// Length-scales are set from the spread of all rows, as for Archipelago, so
	// that both methods start from the same kernel.
	cov, err := newCovFor(x, opt)
	if err != nil {
		return nil, err
	}
	_, d := x.Dims()
	sp := &Sampler{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0x50f7))}
	sp.st = newState(d, nClass, cov)
	for i, l := range labels {
		if l < 0 {
			continue
		}
		sp.st.x = append(sp.st.x, x.RawRowView(i)...)
		sp.st.g = append(sp.st.g, make([]float64, nClass)...)
		sp.st.lab = append(sp.st.lab, l)
		sp.st.kind = append(sp.st.kind, kindSoftmax)
		sp.st.n++
	}
	sp.nData = sp.st.n
	if err := sp.st.refactor(); err != nil {
		return nil, err
	}
	sp.epsG, sp.epsH, sp.epsA = opt.GEps, opt.HyperEps, opt.AmpStep
	return sp, nil
}

// adapt moves a log step size towards a target acceptance during burn-in.
func (sp *Sampler) adapt(eps *float64, accepted, target float64) {
	if sp.sweep < sp.opt.Burn {
		*eps *= math.Exp(0.1 * (accepted - target))
	}
}

// Sweep makes one sweep: BirthDeath insert/delete proposals and a move of every
// rejection (Archipelago only), HMC on each function, HMC on the kernel
// hyperparameters and a Gibbs update of the base density.
func (sp *Sampler) Sweep() error {
	if sp.start.IsZero() {
		sp.start = time.Now()
	}
	s := sp.st
	if sp.archi {
		sp.rejectionMoves()
		s.beta = 1
		if a := sp.opt.Anneal; a > 0 && sp.sweep < a {
			s.beta = float64(sp.sweep) / float64(a)
		}
	}
	acc := s.updateG(sp.epsG, sp.opt.GSteps, sp.rng)
	sp.stats.GTried += s.nc
	sp.stats.GAccepted += acc
	sp.adapt(&sp.epsG, float64(acc)/float64(s.nc), 0.75)
	if !sp.opt.FixHyper && sp.opt.AmpMoves > 0 {
		a := s.updateAmplitude(sp.epsA, sp.opt.AmpMoves, sp.rng)
		sp.stats.AmpTried += sp.opt.AmpMoves
		sp.stats.AmpAccepted += a
		sp.adapt(&sp.epsA, float64(a)/float64(sp.opt.AmpMoves), 0.4)
	}
	hyper := !sp.opt.FixHyper && sp.sweep%sp.opt.HyperEvery == 0
	if hyper {
		ok, err := s.updateHyper(sp.epsH, sp.opt.HyperSteps, sp.rng)
		if err != nil {
			return err
		}
		sp.stats.HyperTried++
		a := 0.0
		if ok {
			sp.stats.HyperAccepted++
			a = 1
		}
		sp.adapt(&sp.epsH, a, 0.7)
	}
	if sp.archi && !sp.opt.FixBase {
		if err := sp.base.Gibbs(s.xmat(), sp.rng); err != nil {
			return err
		}
	}
	// Recompute L and ν from scratch every tenth sweep (accepted hyperparameter
	// updates do so too) so that rounding from the O(n²) updates cannot
	// accumulate.
	if sp.sweep%10 == 0 {
		if err := s.refactor(); err != nil {
			return err
		}
	}
	sp.stats.Jitter, sp.stats.MaxJitter = s.jitter, s.maxJit
	for _, v := range s.g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("archipelago: function values not finite at sweep %d", sp.sweep)
		}
	}
	info := SweepInfo{Sweep: sp.sweep, Rejections: s.nRej, LogLik: s.logLik(), Beta: s.beta,
		Theta: s.cov.Theta(),
		GEps:  sp.epsG, HyperEps: sp.epsH, Stats: sp.stats, Elapsed: time.Since(sp.start)}
	sp.trace = append(sp.trace, info)
	if sp.sweep >= sp.opt.Burn && (sp.sweep-sp.opt.Burn)%sp.opt.Thin == 0 {
		sp.samples = append(sp.samples, sp.snapshot())
	}
	sp.sweep++
	if sp.opt.Progress != nil {
		sp.opt.Progress(info)
	}
	return nil
}

func (sp *Sampler) snapshot() Sample {
	s := sp.st
	smp := Sample{Sweep: sp.sweep, Rejections: s.nRej, Theta: s.cov.Theta(),
		X: mat.NewDense(s.n, s.dim, append([]float64(nil), s.x[:s.n*s.dim]...)),
		G: mat.NewDense(s.n, s.nc, append([]float64(nil), s.g[:s.n*s.nc]...))}
	if sp.base != nil {
		smp.BaseMean = append([]float64(nil), sp.base.Mean...)
		smp.BaseCov = sp.base.Cov()
	}
	return smp
}

// Run makes the remaining sweeps and returns the chain.
func (sp *Sampler) Run() (*Chain, error) {
	for sp.sweep < sp.opt.Sweeps {
		if err := sp.Sweep(); err != nil {
			return nil, err
		}
	}
	return sp.Chain(), nil
}

// Chain returns the samples and trace so far.
func (sp *Sampler) Chain() *Chain {
	return &Chain{Classes: sp.st.nc, Dim: sp.st.dim, Samples: sp.samples, Trace: sp.trace,
		Stats: sp.stats,
		cov:   sp.st.cov.Clone(), Burn: sp.opt.Burn}
}

// Chain is the output of a run: the retained samples, the per-sweep trace and
// the acceptance counts.
type Chain struct {
	Classes, Dim int
	Burn         int
	Samples      []Sample
	Trace        []SweepInfo
	Stats        Stats
	cov          *Cov
}
