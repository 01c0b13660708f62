package projected

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/pool"
)

const (
	// additiveMaxInputs bounds the inputs of a model the search offers an additive part:
	// beyond a few dozen inputs (images) each input alone tells little.
	additiveMaxInputs = 32
	// An input of at most codeValues values has a knot at each (a code of schools or regions:
	// an effect for each); one of more values has maxKnots at its quantiles. Past
	// maxAdditiveKnots in all, the quantiled inputs have fewer, then the codes of most
	// values are quantiled too (knotPlan): the knots add to every row's cost, and to the
	// search's memory.
	codeValues = 100
	// Inputs of up to manyCodeValues values (people, schools) are offered a knot at each as a
	// second candidate, kept where the held-out rows prefer it: on a continuous input of a
	// few hundred values the knots' narrow bumps fit noise.
	manyCodeValues   = 400
	maxKnots         = 24
	maxAdditiveKnots = 400
	// additiveBlock is the rows additiveSystem takes in at a time.
	additiveBlock = 512
	// maxNarrower bounds the doublings of γ narrowerBeside tries beside an additive part.
	maxNarrower = 3
)

// additiveVariances are the variances σ² of the additive part the search scores.
var additiveVariances = []float64{0.01, 0.1, 1}

// Additive is the additive part of a projected model's kernel, σ²·Σ_j k_j(x_j, x'_j) beside
// the rbf of all the inputs, each k_j an rbf of input j alone seen through knots on its axis.
// Tabular targets are often close to a sum of one-input effects (a price against carats, an
// effect per school), which one width for all the inputs draws poorly.
type Additive struct {
	// Variance is σ², in units of the rbf's variance.
	Variance float64
	// Inputs are the inputs with knots, in increasing order of Input.
	Inputs []AdditiveInput
	// Weights holds a row of class weights per knot, the inputs' knots in order.
	Weights *mat.Dense
}

// AdditiveInput is one input's part of an additive kernel: k_j(a, b) = exp(−½γ(a − b)²) of
// the scaled input's values (as kern's rbf), seen through the knots.
type AdditiveInput struct {
	Input int       `json:"input"`
	Gamma float64   `json:"gamma"`
	Knots []float64 `json:"knots"`
}

// newAdditive returns an additive part of variance σ² whose knots are those of the scaled
// rows xs (without weights): for each input of two values or more, its distinct values
// where it has at most codes of them, else quantiles, as knotPlan fits them in
// maxAdditiveKnots (axisKnots), with γ twice the inverse square of the knots' median
// spacing, so that neighbouring knots are correlated by e⁻¹.
func newAdditive(xs *mat.Dense, variance float64, codes int) *Additive {
	most, q := knotPlan(distinctCounts(xs), codes)
	a := additiveKnots(xs, most, q)
	a.Variance = variance
	return a
}

// knotPlan returns the most values an input may have and keep a knot at each, and the
// quantiles of the others, for inputs of the given numbers of distinct values: codes and
// maxKnots where their knots fit in maxAdditiveKnots; else the quantiled inputs' share of
// what the codes leave, down to 2 each; else the code of most values quantiled too, and so
// on. A code's effect for each value is what the rbf of all the inputs draws worst.
func knotPlan(counts []int, codes int) (most, q int) {
	most, q = codes, maxKnots
	for {
		coded, quantiled := 0, 0
		largest := 0 // the code of most values
		for _, c := range counts {
			switch {
			case c < 2:
			case c <= most:
				coded += c
				largest = max(largest, c)
			default:
				quantiled++
			}
		}
		switch {
		case coded+q*quantiled <= maxAdditiveKnots:
			return most, q
		case quantiled > 0 && coded+2*quantiled <= maxAdditiveKnots:
			return most, (maxAdditiveKnots - coded) / quantiled
		case largest <= 2:
			return most, 2
		}
		most = largest - 1
	}
}

// distinctCounts returns the number of distinct values of each column of xs.
func distinctCounts(xs *mat.Dense) []int {
	n, dim := xs.Dims()
	counts := make([]int, dim)
	col := make([]float64, n)
	for j := range counts {
		mat.Col(col, j, xs)
		slices.Sort(col)
		counts[j] = len(slices.Compact(col))
	}
	return counts
}

// additiveKnots returns the knots of each input of xs of two values or more: its distinct
// values where it has at most distinct of them, else q quantiles.
func additiveKnots(xs *mat.Dense, distinct, q int) *Additive {
	n, dim := xs.Dims()
	a := &Additive{}
	col := make([]float64, n)
	for j := range dim {
		mat.Col(col, j, xs)
		knots := axisKnots(col, distinct, q)
		if len(knots) < 2 {
			continue
		}
		gaps := make([]float64, len(knots)-1)
		for i := range gaps {
			gaps[i] = knots[i+1] - knots[i]
		}
		slices.Sort(gaps)
		gap := gaps[len(gaps)/2]
		if gamma := 2 / (gap * gap); !math.IsInf(gamma, 1) { // values apart by rounding alone
			a.Inputs = append(a.Inputs, AdditiveInput{Input: j, Gamma: gamma, Knots: knots})
		}
	}
	return a
}

// axisKnots returns the sorted distinct values of col where there are at most most of
// them, else q of its quantiles (those distinct).
func axisKnots(col []float64, most, q int) []float64 {
	sorted := slices.Clone(col)
	slices.Sort(sorted)
	distinct := slices.Compact(slices.Clone(sorted))
	if len(distinct) <= most {
		return distinct
	}
	knots := make([]float64, 0, q)
	for i := range q {
		v := stat.Quantile(float64(i)/float64(q-1), stat.LinInterp, sorted, nil)
		if len(knots) == 0 || v > knots[len(knots)-1] {
			knots = append(knots, v)
		}
	}
	return knots
}

// Knots is the number of knots of every input, the additive part's columns.
func (a *Additive) Knots() int {
	if a == nil {
		return 0
	}
	s := 0
	for _, in := range a.Inputs {
		s += len(in.Knots)
	}
	return s
}

// features writes the additive part's kernel values of the scaled rows xs into dst
// (rows × Knots()): each input's values against its knots, in order.
func (a *Additive) features(dst, xs *mat.Dense) {
	rows, _ := xs.Dims()
	for i := range rows {
		x, out := xs.RawRowView(i), dst.RawRowView(i)
		c := 0
		for _, in := range a.Inputs {
			for _, k := range in.Knots {
				out[c] = knotKernel(in.Gamma, x[in.Input]-k)
				c++
			}
		}
	}
}

// knotCutoff is the exponent past which knotKernel is 0: a value of e⁻³⁰⁰ or more, and the
// product of two, is a normal float; subnormal ones, from knots far apart, would slow the
// system's products twofold.
const knotCutoff = 300

// knotKernel is exp(−½γd²), or 0 past knotCutoff.
func knotKernel(gamma, d float64) float64 {
	if e := 0.5 * gamma * d * d; e <= knotCutoff {
		return math.Exp(-e)
	}
	return 0
}

// addPrior adds λ/σ² times the knots' kernel matrices, block by input, to the additive
// part's rows and columns of g (from offset on; its upper triangle suffices), the prior
// precision of the knots' weights scaled as the system's λK_mm is.
func (a *Additive) addPrior(g *mat.Dense, offset int, lambda float64) {
	for _, in := range a.Inputs {
		for i, u := range in.Knots {
			row := g.RawRowView(offset + i)
			for j := i; j < len(in.Knots); j++ {
				row[offset+j] += lambda / a.Variance * knotKernel(in.Gamma, u-in.Knots[j])
			}
		}
		offset += len(in.Knots)
	}
}

// withVariance returns a copy of a's knots with variance σ², without weights.
func (a *Additive) withVariance(variance float64) *Additive {
	return &Additive{Variance: variance, Inputs: a.Inputs}
}

// check validates a file's additive part for dim inputs and classes columns of weights.
func (a *Additive) check(dim, classes int) error {
	if !(a.Variance > 0) || math.IsInf(a.Variance, 1) {
		return fmt.Errorf("projected model's additive variance %v: want a positive finite value",
			a.Variance)
	}
	last := -1
	for i, in := range a.Inputs {
		if in.Input <= last || in.Input >= dim {
			return fmt.Errorf("projected model's additive part %d is of input %d: want inputs "+
				"in increasing order, below %d", i+1, in.Input, dim)
		}
		last = in.Input
		if !(in.Gamma > 0) || math.IsInf(in.Gamma, 1) || len(in.Knots) == 0 {
			return fmt.Errorf("projected model's additive part %d has γ %v and %d knots: "+
				"want a positive finite γ and a knot or more", i+1, in.Gamma, len(in.Knots))
		}
		if err := finite("projected model's additive knot", in.Knots); err != nil {
			return err
		}
	}
	if r, c := a.Weights.Dims(); r != a.Knots() || c != classes {
		return fmt.Errorf("projected model's additive part has %d knots and %d×%d weights",
			a.Knots(), r, c)
	}
	return finite("projected model's additive weight", a.Weights.RawMatrix().Data)
}

// AdditiveFile is an additive part as a model file holds it.
type AdditiveFile struct {
	Variance float64         `json:"variance"`
	Inputs   []AdditiveInput `json:"inputs"`
	Weights  [][]float64     `json:"weights"`
}

// encodeAdditive returns a's file form (nil for none).
func encodeAdditive(a *Additive) *AdditiveFile {
	if a == nil {
		return nil
	}
	return &AdditiveFile{Variance: a.Variance, Inputs: a.Inputs, Weights: denseRows(a.Weights)}
}

// decodeAdditive rebuilds an additive part of dim inputs and classes from its file form,
// checking its sizes before it allocates.
func decodeAdditive(in *AdditiveFile, dim, classes int) (*Additive, error) {
	if len(in.Inputs) > min(dim, engine.MaxInputDim) {
		return nil, fmt.Errorf("projected model's additive part has %d inputs, the model %d",
			len(in.Inputs), dim)
	}
	knots := 0
	for _, p := range in.Inputs {
		knots += len(p.Knots)
	}
	if knots == 0 {
		return nil, fmt.Errorf("projected model's additive part has no knots")
	}
	if knots != len(in.Weights) {
		return nil, fmt.Errorf("projected model's additive part has %d knots and %d rows "+
			"of weights", knots, len(in.Weights))
	}
	w := mat.NewDense(knots, classes, nil)
	for i, r := range in.Weights {
		if len(r) != classes {
			return nil, fmt.Errorf("projected model's additive weight row %d has %d values, "+
				"want %d", i+1, len(r), classes)
		}
		w.SetRow(i, r)
	}
	a := &Additive{Variance: in.Variance, Inputs: in.Inputs, Weights: w}
	return a, a.check(dim, classes)
}

// withAdditive returns best with an additive part where one beats the rbf alone on the
// held-out rows (additiveGain), for at most additiveMaxInputs inputs. It is scored once, at
// the best scaling and width: each scaling's own would cost as much again as its search's
// widths. A regression's rbf is then narrowed where that does better still (narrowerBeside):
// once the part draws each input's own effect, the rbf is left the interactions, which may
// want a narrower kernel than the one chosen to draw everything. Classes gained nothing from
// it, at the cost of a search's width or more.
func withAdditive(x mat.Matrix, t Targets, best pick, val, rest []int) (pick, error) {
	if _, dim := x.Dims(); dim > additiveMaxInputs {
		return best, nil
	}
	ws := &widthSearch{t: t, scaler: best.scaler, gamma: best.gamma,
		fit: rest[:min(len(rest), searchRows)], val: val}
	xf, xv, err := ws.kernels(x)
	if err != nil {
		return best, err
	}
	base := newAdditive(xf, 1, codeValues)
	if base.Knots() == 0 {
		return best, nil
	}
	c, ok := ws.additiveGain(best.lambda, base, xf, xv)
	if many := newAdditive(xf, 1, manyCodeValues); many.Knots() != base.Knots() {
		if cm, okm := ws.additiveGain(best.lambda, many, xf, xv); okm && (!ok ||
			pairedWin(c.rows, cm.rows)) {
			base, c, ok = many, cm, true
		}
	}
	if !ok {
		return best, nil
	}
	if t.regression() {
		var step int
		c, step = ws.narrowerBeside(c, base, xf, xv)
		best.gamma *= math.Pow(2, float64(step))
	}
	best.additive, best.lambda, best.loss = base.withVariance(c.variance), c.lambda,
		stat.Mean(c.rows, nil)
	return best, nil
}

// additiveGain scores the additive parts of base's knots at the variances additiveVariances
// beside the rbf of ws's kernels, at the search's λ (and the best variance at λ's neighbours
// on the grid), and returns the best where it beats the rbf alone at λ by more than a
// standard error of the rows' paired differences (else false). xf and xv are the scaled rows
// ws fits and scores.
func (ws *widthSearch) additiveGain(lambda float64, base *Additive, xf, xv *mat.Dense) (
	additiveCandidate, bool) {
	sys, prior, vt := ws.additiveSystem(0, base, xf, xv)
	// The rbf alone (variance 0: the system's first m features) and the variances at the
	// rbf's λ, then the best of them at λ's neighbours: the knots may want the noise read
	// otherwise. Each is solved on its own copy of the system, two at a time.
	cands := []additiveCandidate{{lambda: lambda}}
	for _, v := range additiveVariances {
		cands = append(cands, additiveCandidate{variance: v, lambda: lambda})
	}
	if len(cands) == 1 {
		return additiveCandidate{}, false
	}
	ws.scoreCandidates(cands, sys, base, prior, vt)
	rbf := cands[0].rows
	best := slices.MinFunc(cands[1:], additiveCandidate.compare)
	if rbf == nil || best.rows == nil {
		return additiveCandidate{}, false
	}
	var near []additiveCandidate
	for _, l := range nearLambdas(lambda) {
		if l != lambda {
			near = append(near, additiveCandidate{variance: best.variance, lambda: l})
		}
	}
	ws.scoreCandidates(near, sys, base, prior, vt)
	best = slices.MinFunc(append([]additiveCandidate{best}, near...), additiveCandidate.compare)
	if gain, se := calib.PairedGain(rbf, best.rows); gain <= se {
		return additiveCandidate{}, false
	}
	return best, true
}

// pairedWin reports whether the held-out losses b beat a by more than a standard error of
// their paired differences.
func pairedWin(a, b []float64) bool {
	gain, se := calib.PairedGain(a, b)
	return gain > se
}

// narrowerBeside halves the rbf's width (doubles γ) beside the additive part of c, at most
// maxNarrower times, while the held-out loss falls (c's λ and its neighbours scored at each
// width, as the search's widths are), and returns the best candidate with its doublings of
// γ.
func (ws *widthSearch) narrowerBeside(c additiveCandidate, base *Additive, xf, xv *mat.Dense) (
	additiveCandidate, int) {
	best := 0
	for step := 1; step <= maxNarrower; step++ {
		sys, prior, vt := ws.additiveSystem(step, base, xf, xv)
		var cands []additiveCandidate
		for _, l := range nearLambdas(c.lambda) {
			cands = append(cands, additiveCandidate{variance: c.variance, lambda: l})
		}
		ws.scoreCandidates(cands, sys, base, prior, vt)
		next := slices.MinFunc(cands, additiveCandidate.compare)
		if next.rows == nil || stat.Mean(next.rows, nil) >= stat.Mean(c.rows, nil) {
			break
		}
		c, best = next, step
	}
	return c, best
}

// additiveSystem returns the system of ws's fitted rows through the centres, at the width
// of step doublings of γ, and base's knots (without their prior), with the centres' prior
// rows and the held-out rows' features.
func (ws *widthSearch) additiveSystem(step int, base *Additive, xf, xv *mat.Dense) (*system,
	func(dst *mat.Dense, lo, hi int), *mat.Dense) {
	_, m := ws.kf.Dims()
	a := base.Knots()
	vt := mat.NewDense(len(ws.val), m+a, nil)
	base.features(vt.Slice(0, len(ws.val), m, m+a).(*mat.Dense), xv)
	powTo(vt.Slice(0, len(ws.val), 0, m).(*mat.Dense), ws.kv, step)
	sys := ws.t.system(m + a)
	kb := mat.NewDense(min(additiveBlock, len(ws.fit)), m+a, nil)
	for lo := 0; lo < len(ws.fit); lo += additiveBlock {
		hi := min(len(ws.fit), lo+additiveBlock)
		rows := kb.Slice(0, hi-lo, 0, m+a).(*mat.Dense)
		powTo(rows.Slice(0, hi-lo, 0, m).(*mat.Dense),
			ws.kf.Slice(lo, hi, 0, m).(*mat.Dense), step)
		base.features(rows.Slice(0, hi-lo, m, m+a).(*mat.Dense),
			xf.Slice(lo, hi, 0, xf.RawMatrix().Cols).(*mat.Dense))
		ws.t.add(sys, rows, ws.fit[lo:hi])
	}
	kmm := ws.kmm
	if step != 0 {
		kmm = powDense(ws.kmm, step)
	}
	prior := centresPrior(m, func(dst *mat.Dense, lo, hi int) {
		dst.Copy(kmm.Slice(lo, hi, 0, m))
	})
	return sys, prior, vt
}

// additiveCandidate is an additive part's variance (0: none) and λ, with the held-out rows'
// losses where its system could be solved.
type additiveCandidate struct {
	variance, lambda float64
	rows             []float64
}

// compare orders candidates by their mean held-out loss, those not solved last.
func (c additiveCandidate) compare(d additiveCandidate) int {
	if c.rows == nil || d.rows == nil {
		return cmp.Compare(len(d.rows), len(c.rows))
	}
	return cmp.Compare(stat.Mean(c.rows, nil), stat.Mean(d.rows, nil))
}

// scoreCandidates sets each candidate's held-out losses, solving a copy of sys (the system of
// the centres and base's knots; without the knots where the variance is 0) at most two at a
// time: the solves and the held-out softmax fits are partly serial.
func (ws *widthSearch) scoreCandidates(cands []additiveCandidate, sys *system, base *Additive,
	prior func(dst *mat.Dense, lo, hi int), vt *mat.Dense) {
	_, m := ws.kf.Dims()
	pool.ForEach(len(cands), 2, func(i int) {
		c := &cands[i]
		if c.variance == 0 {
			c.rows, _ = ws.heldOutRows(sys.leading(m), c.lambda, prior,
				vt.Slice(0, vt.RawMatrix().Rows, 0, m))
			return
		}
		s := sys.clone()
		base.withVariance(c.variance).addPrior(s.g, m, c.lambda)
		c.rows, _ = ws.heldOutRows(s, c.lambda, prior, vt)
	})
}

// heldOutRows solves sys at λ with the prior rows kmm and returns each held-out row's loss
// of its latents at the feature rows vt.
func (ws *widthSearch) heldOutRows(sys *system, lambda float64,
	kmm func(dst *mat.Dense, lo, hi int), vt mat.Matrix) ([]float64, error) {
	w, _, err := sys.solve(lambda, kmm)
	if err != nil {
		return nil, err
	}
	var f mat.Dense
	f.Mul(vt, w)
	return ws.t.rowLosses(&f, ws.val), nil
}

// nearLambdas are λ and its neighbours in lambdas.
func nearLambdas(lambda float64) []float64 {
	i := slices.Index(lambdas, lambda)
	if i < 0 {
		return []float64{lambda}
	}
	return lambdas[max(i-1, 0):min(i+2, len(lambdas))]
}
