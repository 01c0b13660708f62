package reproduce

import (
	"fmt"
	"io"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/data"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/kern"
)

func init() {
	register(Experiment{Name: "usps-widths",
		Title: "Diagnostic: the usps-table1 rbf row's learnt widths scaled, and what the " +
			"test set would choose", Run: runUSPSWidths})
}

// WidthScan is the result of USPSWidths.
type WidthScan struct {
	// Kernels are the ten learnt kernels (digit order), Factors the multipliers of their
	// rbf inverse widths γ.
	Kernels []string
	Factors []float64
	// Errors[f][k] is digit k's binary test errors (a count) with γ × Factors[f];
	// TenClass[f] the ten-class % error with every digit at that factor; PerDigitBest the
	// ten-class % error with each digit at its own fewest-errors factor (ties: the smaller
	// factor), BestFactor that factor's index per digit.
	Errors       [][10]int
	TenClass     []float64
	PerDigitBest float64
	BestFactor   [10]int
	Test         int
	Seconds      float64
}

// USPSWidths learns the usps-table1 rbf row's ten kernels (the same protocol) and then
// selects each digit's active set again with the learnt kernel's γ multiplied by each of
// a few factors, the other parameters as learnt: how far the width the evidence chose is
// from the width the test set rewards. The factors are chosen on the test set, so the
// best row is an optimistic bound for this kernel family at d = 500, not a method.
// Quick: 1000 training images, d = 100, one short iteration, factors 1 and 2.
func USPSWidths(c Config) (*WidthScan, error) {
	start := time.Now()
	train, test, err := data.USPS()
	if err != nil {
		return nil, err
	}
	x, y := train.X, train.Y
	d, iters, kIters, nIters := 500, 5, 100, 20
	factors := []float64{1, 1.5, 2, 3, 4}
	if c.Quick {
		x, y = x.Slice(0, 1000, 0, 256).(*mat.Dense), y[:1000]
		d, iters, kIters, nIters = 100, 1, 20, 5
		factors = []float64{1, 2}
	}
	p, err := ivm.Fit(x, y, table1Config(uspsKernels[0].spec, d, iters, kIters, nIters, c.Workers))
	if err != nil {
		return nil, fmt.Errorf("usps-widths: %w", err)
	}
	if len(ivmModels(p)) != 10 {
		return nil, fmt.Errorf("usps-widths: %d classifiers, want 10", len(ivmModels(p)))
	}
	res := &WidthScan{Factors: factors, Errors: make([][10]int, len(factors)), Test: len(test.Y)}
	_, dim := x.Dims()
	specs := make([][]string, len(factors))
	for _, m := range ivmModels(p) {
		s, ok := m.Kernel.(fmt.Stringer)
		if !ok {
			return nil, fmt.Errorf("usps-widths: kernel %s cannot be written as a spec",
				m.Kernel.Name())
		}
		res.Kernels = append(res.Kernels, s.String())
		for f, fac := range factors {
			spec, err := scaleGamma(s.String(), dim, fac)
			if err != nil {
				return nil, err
			}
			specs[f] = append(specs[f], spec)
		}
	}
	workers := workersOr(c, 2)
	// probs[f][k][i]: digit k's p(y = +1) for test image i at factor f.
	probs := make([][][]float64, len(factors))
	for f := range probs {
		probs[f] = make([][]float64, 10)
	}
	// One job per digit and factor, digit k of factor f as job 10f + k.
	if err := pool.ForEachErr(len(factors)*10, workers, func(j int) error {
		f, k := j/10, j%10
		cl := p.Classes[k]
		yk := make([]float64, len(y))
		for i, v := range y {
			yk[i] = -1
			if v == cl {
				yk[i] = 1
			}
		}
		m, err := ivm.Fit(x, yk, ivm.Config{Task: ivm.Binary, Kernel: specs[f][k],
			FixedKernel: true, ActiveSize: d, Scale: dataset.ScaleNone, Workers: 1,
			Criterion: engine.CriterionEntropy})
		if err != nil {
			return err
		}
		preds, err := m.Predict(test.X)
		if err != nil {
			return err
		}
		probs[f][k] = make([]float64, len(preds))
		for i, q := range preds {
			probs[f][k][i] = q.Prob[len(m.Classes)-1]
			if (q.Label > 0) != (test.Y[i] == cl) {
				res.Errors[f][k]++
			}
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("usps-widths: %w", err)
	}
	for f := range factors {
		res.TenClass = append(res.TenClass, oneVsRestError(func(i, k int) float64 {
			return probs[f][k][i]
		}, p.Classes, test.Y))
	}
	for k := 0; k < 10; k++ {
		for f := range factors {
			if res.Errors[f][k] < res.Errors[res.BestFactor[k]][k] {
				res.BestFactor[k] = f
			}
		}
	}
	res.PerDigitBest = oneVsRestError(func(i, k int) float64 {
		return probs[res.BestFactor[k]][k][i]
	}, p.Classes, test.Y)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// scaleGamma returns spec with every rbf part's inverse width multiplied by fac.
func scaleGamma(spec string, dim int, fac float64) (string, error) {
	s, err := kern.Parse(spec, dim)
	if err != nil {
		return "", err
	}
	v := make([]float64, s.NumParams())
	s.Params(v)
	found := false
	for i, name := range s.ParamNames() {
		if strings.HasPrefix(name, "rbf") && strings.HasSuffix(name, "gamma") {
			v[i] *= fac
			found = true
		}
	}
	if !found {
		return "", fmt.Errorf("usps-widths: kernel %s has no rbf inverse width", spec)
	}
	if err := s.SetParams(v); err != nil {
		return "", err
	}
	return s.String(), nil
}

func runUSPSWidths(w io.Writer, c Config) error {
	r, err := USPSWidths(c)
	if err != nil {
		return err
	}
	fmt.Fprintln(w,
		"USPS, the usps-table1 rbf row's learnt kernels with the rbf inverse width γ scaled "+
			"(fixed-kernel selection, the rest as learnt)")
	fmt.Fprintln(w, "learnt kernels:")
	for k, s := range r.Kernels {
		fmt.Fprintf(w, "  %d: %s\n", k, s)
	}
	fmt.Fprintf(w, "binary test errors (of %d images) per digit, and the ten-class %% error:\n",
		r.Test)
	fmt.Fprintf(w, "%-6s", "γ ×")
	for k := 0; k < 10; k++ {
		fmt.Fprintf(w, " %4d", k)
	}
	fmt.Fprintf(w, " %9s\n", "ten-class")
	for f, fac := range r.Factors {
		fmt.Fprintf(w, "%-6g", fac)
		for _, e := range r.Errors[f] {
			fmt.Fprintf(w, " %4d", e)
		}
		fmt.Fprintf(w, " %8.2f%%\n", r.TenClass[f])
	}
	fmt.Fprintf(w, "each digit at its own best factor %v: ten-class %.2f %%\n", r.BestFactor,
		r.PerDigitBest)
	fmt.Fprintf(w, "(factors chosen on the test set: an optimistic bound, not a method; "+
		"paper's Table 1 rbf: 4.58 %%); %.0f s\n", r.Seconds)
	if c.Quick {
		fmt.Fprintln(w, "(quick: 1000 training images, d = 100, one short iteration)")
	}
	return nil
}
