package archipelago

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/rowhash"
	"github.com/ivmlab/ivm/internal/safestat"
	"github.com/ivmlab/ivm/noise"
)

// Model is a fitted Archipelago or softmax GP classifier: thinned posterior samples of
// the chain, enough to give the posterior predictive class probabilities of new rows.
type Model struct {
	// Method is what was sampled.
	Method Method
	// Classes are the distinct labels of the training rows, ascending; Predict's Prob
	// follows their order and Label is one of them.
	Classes []float64
	// Inputs is the number of input columns.
	Inputs int
	// ARD says whether every input has its own length-scale.
	ARD bool
	// Nugget is the covariance's white-noise variance relative to σ².
	Nugget float64
	// Seed seeds the predictive draws of g at new rows (with each row's values, so a
	// row's draws do not depend on the other rows predicted with it).
	Seed uint64
	// Scaler is the input scaling (nil: none), applied by Predict.
	Scaler *dataset.Scaler
	// Rows is the number of training rows every sample conditions on (all rows for
	// Archipelago, the labelled ones for the softmax GP) and Data their inputs, Rows×Inputs
	// row-major in scaled coordinates: the first points of every sample, stored once.
	Rows int
	Data []float64
	// Samples are the kept posterior samples, in sweep order.
	Samples []PosteriorSample
	// Chain summarises the run that gave the samples.
	Chain ChainSummary
	// Training records the training file (the CLI fills it).
	Training dataset.Provenance

	cov *Cov
}

// PosteriorSample is one kept state of the chain: the latent functions' values at the
// points they were conditioned on (the model's Rows training rows, then the sample's
// rejections) and the kernel hyperparameters.
type PosteriorSample struct {
	// Sweep is the sweep after which the state was kept.
	Sweep int `json:"sweep"`
	// Theta is (ln σ², ln c_1, …): the log amplitude and log inverse squared
	// length-scales (one, or one per input with ARD).
	Theta []float64 `json:"theta"`
	// Rejections is the number of latent rejections (Archipelago; 0 for the softmax GP)
	// and X their locations, Rejections×Inputs row-major in scaled coordinates.
	Rejections int       `json:"rejections"`
	X          []float64 `json:"x"`
	// G holds the functions' values at the rows and then the rejections,
	// (Rows+Rejections)×len(Classes) row-major.
	G []float64 `json:"g"`
}

// Points is the number of points the sample conditions on in a model of rows rows.
func (s *PosteriorSample) Points(rows int) int { return rows + s.Rejections }

// ChainSummary describes the chain a model was fitted by.
type ChainSummary struct {
	Sweeps int `json:"sweeps"`
	Burn   int `json:"burn"`
	Thin   int `json:"thin"`
	// Labelled and Unlabelled count the training rows of each kind.
	Labelled   int `json:"labelled"`
	Unlabelled int `json:"unlabelled"`
	// RejectionsMean and RejectionsSD are the number of latent rejections over the sweeps
	// after the burn-in, and RejectionsESS its effective sample size (Archipelago).
	RejectionsMean float64 `json:"rejections_mean"`
	RejectionsSD   float64 `json:"rejections_sd"`
	RejectionsESS  float64 `json:"rejections_ess"`
	// Stats are the proposal and acceptance counts of the moves.
	Stats Stats `json:"stats"`
}

// Fit samples the model of cfg.Method for the rows of x with labels y, NaN marking an
// unlabelled row; the classes are the distinct labels (at least two), any finite values.
// The model keeps thinned posterior samples (Config.Samples).
func Fit(x *mat.Dense, y []float64, cfg Config) (*Model, error) {
	opt, err := cfg.options()
	if err != nil {
		return nil, err
	}
	classes, labels, err := classesOf(x, y)
	if err != nil {
		return nil, err
	}
	scaler, err := dataset.FitScaler(x, scaling(cfg.Scaling))
	if err != nil {
		return nil, err
	}
	xs, err := scaler.Apply(x)
	if err != nil {
		return nil, err
	}
	var sp *Sampler
	if cfg.Method == SoftmaxGP {
		sp, err = NewSoftmaxGP(xs, labels, len(classes), opt)
	} else {
		sp, err = NewArchipelago(xs, labels, len(classes), opt)
	}
	if err != nil {
		return nil, err
	}
	ch, err := sp.Run()
	if err != nil {
		return nil, err
	}
	_, dim := x.Dims()
	m := &Model{Method: cfg.Method, Classes: classes, Inputs: dim, ARD: opt.ARD,
		Nugget: ch.cov.nugget, Seed: cfg.Seed,
		Scaler: scaler, cov: ch.cov, Chain: summarise(ch, opt, labels)}
	m.Rows = sp.nData
	m.Data = append([]float64(nil), sp.st.x[:sp.nData*dim]...)
	for _, s := range ch.Samples {
		m.Samples = append(m.Samples, PosteriorSample{Sweep: s.Sweep, Theta: s.Theta,
			Rejections: s.Rejections,
			X:          append([]float64(nil), s.X.RawMatrix().Data[sp.nData*dim:]...),
			G:          s.G.RawMatrix().Data})
	}
	return m, nil
}

// scaling resolves the family's default: none.
func scaling(s dataset.Scaling) dataset.Scaling {
	if s == dataset.ScaleAuto {
		return dataset.ScaleNone
	}
	return s
}

// classesOf returns the distinct labels of y (NaN: unlabelled) ascending and every row's
// class index (−1 unlabelled), checking the shapes.
func classesOf(x *mat.Dense, y []float64) ([]float64, []int, error) {
	if x == nil || x.IsEmpty() {
		return nil, nil, errors.New("archipelago: no data")
	}
	if n, _ := x.Dims(); n != len(y) {
		return nil, nil, fmt.Errorf("archipelago: %d rows and %d labels", n, len(y))
	}
	var classes []float64
	for i, v := range y {
		if math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("archipelago: label %v of row %d", v, i+1)
		}
		if !math.IsNaN(v) && !slices.Contains(classes, v) {
			classes = append(classes, v)
		}
	}
	if len(classes) < 2 {
		return nil, nil, errors.New("archipelago: need labelled rows of at least two classes")
	}
	slices.Sort(classes)
	labels := make([]int, len(y))
	for i, v := range y {
		labels[i] = -1
		if !math.IsNaN(v) {
			labels[i], _ = slices.BinarySearch(classes, v)
		}
	}
	return classes, labels, nil
}

// summarise describes the chain: its length, the rows it used and its rejections.
func summarise(ch *Chain, opt Options, labels []int) ChainSummary {
	cs := ChainSummary{Sweeps: opt.Sweeps, Burn: opt.Burn, Thin: opt.Thin, Stats: ch.Stats}
	for _, l := range labels {
		if l < 0 {
			cs.Unlabelled++
		} else {
			cs.Labelled++
		}
	}
	post := ch.RejectionTrace()[ch.Burn:]
	cs.RejectionsMean, cs.RejectionsSD = safestat.MeanSD(post, 1)
	cs.RejectionsESS = ESS(post)
	return cs
}

// predictChunk is how many rows Predict conditions at once on a sample: the
// cross-covariances it holds are n×predictChunk.
const predictChunk = 512

// Predict returns the posterior predictive class probabilities of the rows of x (eq. 6):
// for every kept sample the functions at a row are drawn from the GP conditional on the
// sample's values and the softmax of eq. 1 is averaged over samples and draws. Prob
// follows Classes, Label is the most probable class (the first on ties); Mean and Var
// are not used. The draws of a row are seeded by the model's Seed and the row's values,
// so a row gets the same draws, and the same probabilities up to rounding, whatever else
// is predicted with it; the same rows predicted again give identical results.
func (m *Model) Predict(x *mat.Dense) ([]noise.Prediction, error) {
	if m.cov == nil {
		return nil, errors.New("archipelago: model not fitted or loaded")
	}
	if x == nil || x.IsEmpty() {
		return nil, nil
	}
	if _, d := x.Dims(); d != m.Inputs {
		return nil, fmt.Errorf("archipelago: %d input columns, the model has %d", d, m.Inputs)
	}
	rows, _ := x.Dims()
	for i := 0; i < rows; i++ {
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("archipelago: row %d column %d: input %v", i+1, j+1, v)
			}
		}
	}
	xs, err := m.Scaler.Apply(x)
	if err != nil {
		return nil, err
	}
	rngs := make([]*rand.Rand, rows)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(rowhash.Sum(m.Seed, xs.RawRowView(i)), 0x9e37))
	}
	probs, err := predictMixture(m.cov, len(m.Classes), m.Inputs, m.samples(), xs, predictChunk,
		func(i int) *rand.Rand { return rngs[i] })
	if err != nil {
		return nil, err
	}
	out := make([]noise.Prediction, rows)
	for i, p := range probs {
		out[i] = noise.Prediction{Label: m.Classes[Mode(p)], Prob: p}
	}
	return out, nil
}

// samples returns the kept samples as the sampler's Samples: the rows then the
// rejections as the points, the function values as views.
func (m *Model) samples() []Sample {
	out := make([]Sample, len(m.Samples))
	for i, s := range m.Samples {
		n := s.Points(m.Rows)
		x := append(append(make([]float64, 0, n*m.Inputs), m.Data...), s.X...)
		out[i] = Sample{Sweep: s.Sweep, Theta: s.Theta, Rejections: s.Rejections,
			X: mat.NewDense(n, m.Inputs, x), G: mat.NewDense(n, len(m.Classes), s.G)}
	}
	return out
}
