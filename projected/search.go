package projected

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/rowhash"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/internal/vmath"
	"github.com/ivmlab/ivm/kern"
)

// lambdas are the values of λ the search scores at each kernel width: the factorisations
// are cheap next to the kernel products they share.
var lambdas = []float64{1e-4, 1e-3, 1e-2, 1e-1, 1}

// pick is a kernel width and λ the search scored, with its held-out log loss.
type pick struct {
	scaler        *dataset.Scaler
	gamma, lambda float64
	loss          float64
	step          int // γ's doublings from the search's start
	// centres is the number of centres the search fitted with; saturated says that half
	// of them predicted the held-out rows as well, to within a standard error.
	centres   int
	saturated bool
	// additive, if not nil, is the additive part (its knots and variance, no weights) that
	// beat the rbf alone at this width.
	additive *Additive
}

// widthSearch is one scaling's search: the rows it fits (fit) and scores (val), and the
// kernel matrices at its start width gamma, K(fit, C) (kf), K(val, C) (kv) and K(C, C)
// (kmm) for its centres C, of which every other width's are powers.
type widthSearch struct {
	t           Targets
	scaler      *dataset.Scaler
	gamma       float64
	fit, val    []int
	kf, kv, kmm *mat.Dense
	// block holds a block of kf's rows at another width (powBlock).
	block *mat.Dense
}

// search scores projected models of the rows rest (at most searchRows of them, through
// searchCentres centres) on the held-out rows val, scaled by s: γ doubling or halving
// from 2·s.StartGamma while the held-out log loss falls, each at every λ of lambdas. The
// kernel matrices of every γ are powers of the first one's, exp(−½tγd²) = exp(−½γd²)^t,
// so the inputs' distances are computed once.
func search(x mat.Matrix, t Targets, s Scaling, val, rest []int,
	report func(pick)) (pick, error) {
	ws := &widthSearch{t: t, scaler: s.Scaler, gamma: 2 * s.StartGamma,
		fit: rest[:min(len(rest), searchRows)], val: val}
	if _, _, err := ws.kernels(x); err != nil {
		return pick{}, err
	}
	pk, err := lineSearch(func(step int) (pick, error) {
		pk, err := ws.score(step)
		if err == nil {
			report(pk)
		}
		return pk, err
	})
	if _, m := ws.kf.Dims(); err == nil && m >= 2*MinRows {
		pk.saturated, err = ws.centresSaturated(pk)
	}
	return pk, err
}

// kernels scales ws's rows, draws its centres from the rows it fits and computes its kernel
// matrices at its width; it returns the scaled rows it fits and scores.
func (ws *widthSearch) kernels(x mat.Matrix) (xf, xv *mat.Dense, err error) {
	if xf, err = subset.Scaled(x, ws.scaler, ws.fit); err != nil {
		return nil, nil, err
	}
	if xv, err = subset.Scaled(x, ws.scaler, ws.val); err != nil {
		return nil, nil, err
	}
	_, dim := xf.Dims()
	centres := subset.Dense(xf, distinctRows(xf, subset.All(len(ws.fit)),
		searchCentresFor(ws.t.classes)))
	k, err := kern.Parse(kernelSpec(ws.gamma), dim)
	if err != nil {
		return nil, nil, err
	}
	m, _ := centres.Dims()
	ws.kf, ws.kv, ws.kmm = mat.NewDense(len(ws.fit), m, nil),
		mat.NewDense(len(ws.val), m, nil), mat.NewDense(m, m, nil)
	k.K(ws.kf, xf, centres)
	k.K(ws.kv, xv, centres)
	k.K(ws.kmm, centres, centres)
	return xf, xv, nil
}

// score returns the best λ at the width step doublings from the start, with its held-out
// loss.
func (ws *widthSearch) score(step int) (pick, error) {
	_, m := ws.kf.Dims()
	best := pick{scaler: ws.scaler, gamma: ws.gamma * math.Pow(2, float64(step)),
		loss: math.Inf(1), step: step, centres: m}
	sys := ws.t.system(m)
	for lo := 0; lo < len(ws.fit); lo += blockRows { // a block at a time: no second copy of kf
		hi := min(len(ws.fit), lo+blockRows)
		ws.t.add(sys, ws.powBlock(lo, hi, m, step), ws.fit[lo:hi])
	}
	kvt, kmmt := powDense(ws.kv, step), powDense(ws.kmm, step)
	for _, lambda := range lambdas {
		w, _, err := sys.clone().solve(lambda, func(dst *mat.Dense, lo, hi int) {
			dst.Copy(kmmt.Slice(lo, hi, 0, m))
		})
		if err != nil {
			continue // too small a λ for this width: the larger ones remain
		}
		var f mat.Dense
		f.Mul(kvt, w)
		if l := ws.t.loss(&f, ws.val); l < best.loss {
			best.lambda, best.loss = lambda, l
		}
	}
	if math.IsInf(best.loss, 1) {
		return best,
			fmt.Errorf("ivm: the projected process's system is not positive definite "+
				"at γ = %g for any λ", best.gamma)
	}
	return best, nil
}

// centresSaturated says whether the first half of the search's centres (a random half)
// predicts the held-out rows as well as all of them, at the kernel and λ of pk, to within
// the standard error of the rows' paired differences: then the data ask for no more
// centres than a few times the search's, whatever their number (low-dimensional inputs,
// one simple boundary).
func (ws *widthSearch) centresSaturated(pk pick) (bool, error) {
	_, m := ws.kf.Dims()
	full, err := ws.rowLosses(pk, m)
	if err != nil {
		return false, nil // no verdict: the final fit keeps its default size
	}
	half, err := ws.rowLosses(pk, m/2)
	if err != nil {
		return false, nil
	}
	gain, se := calib.PairedGain(half, full)
	return gain <= se, nil
}

// rowLosses returns each held-out row's loss of the model through the first c centres at
// the kernel and λ of pk.
func (ws *widthSearch) rowLosses(pk pick, c int) ([]float64, error) {
	sys := ws.t.system(c)
	for lo := 0; lo < len(ws.fit); lo += blockRows {
		hi := min(len(ws.fit), lo+blockRows)
		ws.t.add(sys, ws.powBlock(lo, hi, c, pk.step), ws.fit[lo:hi])
	}
	kmmt := powDense(ws.kmm.Slice(0, c, 0, c).(*mat.Dense), pk.step)
	w, _, err := sys.solve(pk.lambda, func(dst *mat.Dense, lo, hi int) {
		dst.Copy(kmmt.Slice(lo, hi, 0, c))
	})
	if err != nil {
		return nil, err
	}
	var f mat.Dense
	f.Mul(powDense(ws.kv.Slice(0, len(ws.val), 0, c).(*mat.Dense), pk.step), w)
	return ws.t.rowLosses(&f, ws.val), nil
}

// lineSearch scores steps 0, 1 and −1, then goes on in the better direction while the
// score falls, at most maxSteps from 0.
func lineSearch(score func(step int) (pick, error)) (pick, error) {
	best, err := score(0)
	if err != nil {
		return best, err
	}
	for _, dir := range []int{1, -1} {
		moved := false
		for step := dir; abs(step) <= maxSteps; step += dir {
			pk, err := score(step)
			if err != nil || pk.loss >= best.loss {
				break
			}
			best, moved = pk, true
		}
		if moved {
			break
		}
	}
	return best, nil
}

func abs(i int) int { return max(i, -i) }

// powBlock returns rows lo…hi−1 of kf's first c columns at the width step doublings from
// ws's, in ws.block: the system's sums only read it, and a block's copy made afresh each
// time cost as much again in clearing and copying.
func (ws *widthSearch) powBlock(lo, hi, c, step int) *mat.Dense {
	if ws.block == nil {
		_, m := ws.kf.Dims()
		ws.block = mat.NewDense(min(blockRows, len(ws.fit)), m, nil)
	}
	dst := ws.block.Slice(0, hi-lo, 0, c).(*mat.Dense)
	powTo(dst, ws.kf.Slice(lo, hi, 0, c).(*mat.Dense), step)
	return dst
}

// powDense returns a's elements raised to the power 2^step, by squaring (step > 0) or
// square roots (step < 0).
func powDense(a *mat.Dense, step int) *mat.Dense {
	out := mat.NewDense(a.RawMatrix().Rows, a.RawMatrix().Cols, nil)
	powTo(out, a, step)
	return out
}

// powTo sets dst (a itself, or of a's shape) to a's elements raised to the power 2^step,
// by squaring (step > 0) or square roots (step < 0).
func powTo(dst, a *mat.Dense, step int) {
	raw, out := a.RawMatrix(), dst.RawMatrix()
	for i := range raw.Rows {
		to := out.Data[i*out.Stride : i*out.Stride+raw.Cols]
		copy(to, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols])
		// A pass over the row for each square or root: no branch per element.
		for s := step; s > 0; s-- {
			for j, v := range to {
				to[j] = v * v
			}
		}
		for s := step; s < 0; s++ {
			vmath.Sqrt(to, to)
		}
	}
}

// kernelSpec is the projected model's kernel spec at width gamma.
func kernelSpec(gamma float64) string {
	return "rbf(gamma=" + strconv.FormatFloat(gamma, 'g', -1, 64) + ",variance=1)"
}

// finalCentres returns the final fit's m centres, scaled rows of x, and their rows: the
// first m distinct rows of rest, which is in random order. Not the IVM's information-gain
// selection: at the same m it did no better on classes, mixed on regression, and cost
// several times as much.
func finalCentres(x mat.Matrix, pk pick, m int, rest []int) (*mat.Dense, []int, error) {
	// The inputs are scaled a block at a time, never all at once.
	drawn := rest[:min(len(rest), 2*m)]
	pool, err := subset.Scaled(x, pk.scaler, drawn)
	if err != nil {
		return nil, nil, err
	}
	idx := distinctRows(pool, subset.All(len(drawn)), m)
	return subset.Dense(pool, idx), subset.Of(drawn, idx), nil
}

// distinctRows returns the first k of the rows perm lists (rows of x) that repeat no row
// before them (fewer where there are fewer distinct rows): repeated centres make the
// projected process's system singular (letter's integer inputs repeat).
func distinctRows(x *mat.Dense, perm []int, k int) []int {
	seen := make(map[uint64][]int)
	var out []int
	for _, r := range perm {
		if len(out) == k {
			break
		}
		row := x.RawRowView(r)
		h := rowhash.Sum(1, row)
		if slices.ContainsFunc(seen[h],
			func(q int) bool { return slices.Equal(x.RawRowView(q), row) }) {
			continue
		}
		seen[h] = append(seen[h], r)
		out = append(out, r)
	}
	return out
}
