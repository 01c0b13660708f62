package reproduce

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// The IVM comparators of Table 1. The paper's probit GP is Girolami & Rogers'
// multinomial probit and its NCNM the multi-class extension of Rogers &
// Girolami; ivm has binary models, so both are one-vs-rest here: K binary IVMs
// (class k against the rest), combined by the largest p(y=+1). Probabilities
// for the perplexity are the K values p_k(y=+1) normalised to sum to one.

// ivmKind picks the binary noise model of the one-vs-rest comparator.
type ivmKind int

const (
	// IVMProbit trains on the labelled rows only (the PrGP column).
	ivmProbit ivmKind = iota
	// IVMNullCategory trains on labelled and unlabelled rows with the null
	// category noise model (the NCNM column).
	ivmNullCategory
)

// ivmOptions configures the one-vs-rest IVMs.
type ivmOptions struct {
	// Kernel is the kern spec (default "rbf+bias+white", or "rbfard+bias+white"
	// with ARD).
	Kernel string
	ARD    bool
	// ActiveSize is d (default: every labelled row for probit, min(N, 100) for
	// the NCNM).
	ActiveSize int
	// Iters is the number of outer learning iterations (default 4).
	Iters int
	Seed  uint64
}

// oneVsRest trains K binary IVMs on x with labels (−1 = unlabelled) and returns
// the predicted class distributions at xs. notes reports classes whose kernel
// learning failed and were refitted with the initial kernel.
func oneVsRest(kind ivmKind, x *mat.Dense, labels []int, nClass int, xs *mat.Dense,
	opt ivmOptions) (probs [][]float64, notes []string, err error) {
	if n, _ := x.Dims(); n != len(labels) {
		return nil, nil, fmt.Errorf("archipelago: %d rows and %d labels", n, len(labels))
	}
	for i, l := range labels {
		if l < -1 || l >= nClass {
			return nil, nil, fmt.Errorf("archipelago: label %d of row %d outside −1..%d",
				l, i, nClass-1)
		}
	}
	if nClass < 2 {
		return nil, nil, errors.New("archipelago: one-vs-rest needs at least two classes")
	}
	_, dim := x.Dims()
	spec := opt.Kernel
	if spec == "" {
		spec = "rbf+bias+white"
		if opt.ARD {
			spec = "rbfard+bias+white"
		}
	}
	iters := opt.Iters
	if iters == 0 {
		iters = 4
	}
	var rowsIdx []int
	for i, l := range labels {
		if kind == ivmNullCategory || l >= 0 {
			rowsIdx = append(rowsIdx, i)
		}
	}
	n := len(rowsIdx)
	xt := mat.NewDense(n, dim, nil)
	for a, i := range rowsIdx {
		xt.SetRow(a, x.RawRowView(i))
	}
	d := opt.ActiveSize
	if d == 0 {
		d = n
		if kind == ivmNullCategory {
			d = min(n, 100)
		}
	}
	m, _ := xs.Dims()
	probs = make([][]float64, m)
	for i := range probs {
		probs[i] = make([]float64, nClass)
	}
	for k := 0; k < nClass; k++ {
		y := make([]float64, n)
		for a, i := range rowsIdx {
			switch {
			case labels[i] < 0:
				y[a] = 0 // NCNM: unlabelled
			case labels[i] == k:
				y[a] = 1
			default:
				y[a] = -1
			}
		}
		model, note, err := archFitBinary(kind, xt, y, spec, dim, d, iters, opt.Seed+uint64(k))
		if err != nil {
			return nil, nil, fmt.Errorf("archipelago: class %d against the rest: %w", k, err)
		}
		if note != "" {
			notes = append(notes, fmt.Sprintf("class %d: %s", k, note))
		}
		for i, p := range model.Predict(xs) {
			v := p.Prob[1]
			if math.IsNaN(v) {
				return nil, nil, fmt.Errorf("archipelago: class %d IVM predicted NaN", k)
			}
			probs[i][k] = v
		}
	}
	for _, p := range probs {
		var s float64
		for _, v := range p {
			s += v
		}
		for k := range p {
			if s > 0 {
				p[k] /= s
			} else {
				p[k] = 1 / float64(nClass)
			}
		}
	}
	return probs, notes, nil
}

// fitBinary learns one binary IVM. If kernel learning fails it fits with the
// initial kernel, and if that fails too (the null-category model can leave
// the active-set matrix numerically singular when many unlabelled points with
// near-zero site precision are included) it retries with smaller active sets;
// the note says which fallback was used.
func archFitBinary(kind ivmKind, x *mat.Dense, y []float64, spec string, dim, d, iters int,
	seed uint64) (*engine.Model, string, error) {
	newNoise := func() noise.Model {
		if kind == ivmNullCategory {
			return noise.NewNullCategory()
		}
		return noise.NewProbit()
	}
	var errs []string
	for _, dd := range []int{d, min(d, 50), min(d, 20)} {
		for _, learn := range []bool{true, false} {
			k, err := kern.Parse(spec, dim)
			if err != nil {
				return nil, "", err
			}
			lo := engine.LearnOptions{ActiveSize: dd, Iters: iters, Seed: seed, Workers: 1}
			if !learn {
				lo.Iters, lo.KernelIters = 1, -1
			}
			model, _, err := engine.Learn(x, y, k, newNoise(), lo)
			if err == nil {
				note := ""
				if len(errs) > 0 {
					note = fmt.Sprintf("fitted with d = %d, learning %v after: %s", dd, learn,
						strings.Join(errs, "; "))
				}
				return model, note, nil
			}
			errs = append(errs, fmt.Sprintf("d = %d, learning %v: %v", dd, learn, err))
		}
	}
	return nil, "", errors.New(strings.Join(errs, "; "))
}
