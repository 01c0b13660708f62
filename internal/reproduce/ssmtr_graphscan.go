package reproduce

import (
	"errors"
	"fmt"
	"math"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/ssmtr"
)

// GraphScanSplit is one split of GraphWeightScan: the transductive nMSE (per task, averaged
// over the tasks, as NMSE) of the fitted SMTR model and of its kernels with each graph
// weight, the summed negative log evidence at each weight, and the nMSE when each task
// takes the weight that is best on its own unlabelled targets.
type GraphScanSplit struct {
	SMTR           float64
	Trans          []float64
	NegLogEvidence []float64
	PerTaskBest    float64
}

// GraphWeightScan asks whether the unlabelled points' graph could help on c's data. For
// every split it fits SMTR with c.Options (as RunExperiment does), then forms SSMTR's
// kernel (ssmtr.Model.GraphWeights) with each weight in alphas and records the evidence and
// the transductive nMSE. SSMTR learns α by the evidence (paper §3.1); where the evidence is
// largest at the smallest α while a larger α predicts the unlabelled targets better, the
// graph holds information the evidence cannot see, and SSMTR must tie with SMTR
// (bench/RESULTS.md: the school data).
func GraphWeightScan(c ExperimentConfig, alphas []float64) ([]GraphScanSplit, error) {
	if len(alphas) == 0 {
		return nil, errors.New("ssmtr: no graph weights to scan")
	}
	proto, draw, err := c.Splitter()
	if err != nil {
		return nil, err
	}
	opt := c.Options
	opt.Method = ssmtr.SMTR
	opt.Targets = proto.Targets
	var out []GraphScanSplit
	for s := 0; s < c.Splits; s++ {
		splits, err := draw(s)
		if err != nil {
			return nil, err
		}
		r, err := scanSplit(splits, opt, alphas)
		if err != nil {
			return nil, fmt.Errorf("split %d: %w", s+1, err)
		}
		out = append(out, r)
		if c.Log != nil {
			fmt.Fprintf(c.Log, "split %d/%d: SMTR %.4f\n", s+1, c.Splits, r.SMTR)
		}
	}
	return out, nil
}

// scanSplit is GraphWeightScan on one split.
func scanSplit(splits []Split, opt ssmtr.Config, alphas []float64) (GraphScanSplit, error) {
	truth := make([][]float64, len(splits))
	for i, sp := range splits {
		truth[i] = sp.YU
	}
	x, y, task, _ := splitData(splits)
	// as RunSplit: the splits' inputs are as the protocol leaves them
	opt.Scaling = dataset.ScaleNone
	m, err := ssmtr.Fit(x, y, task, opt)
	if err != nil {
		return GraphScanSplit{}, err
	}
	var r GraphScanSplit
	if r.SMTR, err = transductive(m, splits, truth, nil); err != nil {
		return r, err
	}
	best := make([]float64, len(splits))
	for i := range best {
		best[i] = math.Inf(1)
	}
	gs, err := m.GraphWeights(x, y, task, alphas)
	if err != nil {
		return r, err
	}
	for _, g := range gs {
		v, err := transductive(g, splits, truth, best)
		if err != nil {
			return r, err
		}
		r.Trans = append(r.Trans, v)
		r.NegLogEvidence = append(r.NegLogEvidence, g.Objective)
	}
	var sum float64
	var n int
	for _, b := range best {
		if !math.IsInf(b, 1) {
			sum += b
			n++
		}
	}
	r.PerTaskBest = sum / float64(n)
	return r, nil
}

// transductive returns the model's per-task transductive nMSE averaged over the tasks and,
// if best is not nil, lowers best[i] to task i's own nMSE where that is lower.
func transductive(m *ssmtr.Model, splits []Split, truth [][]float64, best []float64) (float64,
	error) {
	pred := make([][]float64, len(splits))
	for i, sp := range splits {
		if sp.U == nil {
			continue
		}
		var err error
		if pred[i], err = predictMeans(m, i, sp.U); err != nil {
			return 0, err
		}
		if best != nil {
			if v, _, used := ssmtr.NMSE(pred[i:i+1], truth[i:i+1]); used == 1 && v < best[i] {
				best[i] = v
			}
		}
	}
	v, _, _ := ssmtr.NMSE(pred, truth)
	return v, nil
}
