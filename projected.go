package ivm

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/internal/subset"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/projected"
)

// The projected model (Decomposition Projected) is package projected's; this file is its
// adapter: Config to projected.Options, the package's progress to Progress and its result
// to the Predictor, and the model's latents and scores to Predictions.

// errProjectedPart is Fit's answer to a partitioned training of a projected model.
var errProjectedPart = errors.New(
	"ivm: a projected model is one solve shared by every class; it cannot be trained in parts")

// fitProjected trains p, a binary, multi-class or regression task, as a projected model
// (projected.Fit): on held-out rows its search chooses the input scaling among
// projectedScalings', the rbf kernel's width and λ, and fits the class probabilities (a
// softmax with label noise) or the predictive variance; where the model does not beat the
// constant predictor there, it becomes that predictor, with a warning.
func (p *projectedFit) fitProjected(x mat.Matrix, y []float64, cfg *Config) error {
	switch {
	case cfg.Part.IsPart():
		return errProjectedPart
	case cfg.Kernel != "" || cfg.FixedKernel || cfg.Learning == Algorithm2:
		return errors.New("ivm: a projected model searches its own rbf kernel; a given " +
			"kernel or Algorithm 2 needs the one-vs-rest or one-vs-one decomposition")
	}
	t, err := p.projectedTargets(y)
	if err != nil {
		return err
	}
	classes := len(p.Classes)
	if p.Task == Regression {
		classes = 0
	}
	scalings, err := projectedScalings(x, p.relevanceTargets(y), cfg, classes)
	if err != nil {
		return err
	}
	var report func(projected.Progress)
	if cfg.Progress != nil {
		report = func(pr projected.Progress) { cfg.Progress(projectedProgress(pr)) }
	}
	res, err := projected.Fit(x, t, scalings, projected.Options{Seed: cfg.Learn.Seed,
		Centres: cfg.ActiveSize, Workers: cfg.Workers}, report)
	if err != nil {
		return err
	}
	p.Projected, p.Scaler, p.Sharpness = res.Model, res.Scaler, 1
	p.heldOut, p.heldOutClasses = res.HeldOut()
	p.Softmax, p.LabelNoise, p.Baseline = p.Task != Regression, res.LabelNoise, res.Baseline
	p.Warnings = append(p.Warnings, res.Warnings...)
	return nil
}

// projectedTargets are p's training targets y as a projected model regresses them: each
// row's class, or for regression the targets themselves.
func (p *Predictor) projectedTargets(y []float64) (projected.Targets, error) {
	if p.Task == Regression {
		return projected.RealTargets(y)
	}
	return projected.ClassTargets(subset.ClassIndices(y, p.Classes), len(p.Classes))
}

// relevanceTargets are the targets the relevance scaling's exact GP regresses: a
// regression's own, or each row's class index. The inputs that tell the classes apart are
// those a regression of their indices finds relevant (of ordered classes the more so).
func (p *Predictor) relevanceTargets(y []float64) []float64 {
	if p.Task == Regression {
		return y
	}
	out := make([]float64, len(y))
	for i, c := range subset.ClassIndices(y, p.Classes) {
		out[i] = float64(c)
	}
	return out
}

// projectedProgress is a projected fit's progress as Fit reports it: one problem, its
// search's kernels, then its final fit's rows through ActiveSize centres.
func projectedProgress(pr projected.Progress) Progress {
	if pr.Search > 0 {
		return Progress{Search: pr.Search, SearchKernel: pr.Kernel, SearchScore: pr.Score,
			SearchPrior: pr.Prior, Problems: 1}
	}
	return Progress{Problems: 1, Rows: pr.Rows, RowsDone: pr.RowsDone, ActiveSize: pr.Centres,
		Done: pr.Done}
}

// predictProjected is Predict for a projected model, on checked inputs. Latent holds the
// class latents f_c (LatentVar is nil: the probabilities do not use them), and
// Label is the class of the largest: the regression's own decision. The probabilities,
// a map fitted to a few thousand held-out rows for their log loss, can rank a near tie
// the other way, and their argmax was the less accurate decision (bench/RESULTS.md records
// the runs).
func (p *projectedFit) predictProjected(x mat.Matrix, probs bool) ([]noise.Prediction, error) {
	xs, err := p.Scaler.Apply(x)
	if err != nil {
		return nil, err
	}
	f := p.Projected.Latents(xs)
	n, _ := x.Dims()
	var dm, dv []float64
	if p.Projected.Local != nil {
		dm, dv = p.Projected.Local.Predict(xs, 0)
	}
	out := make([]noise.Prediction, n)
	for i := range out {
		out[i].Latent = slices.Clone(f.RawRowView(i))
		z := p.Projected.Scores(out[i].Latent)
		if p.Task == Regression {
			if math.IsNaN(z[0]) || math.IsInf(z[0], 0) {
				return nil, fmt.Errorf("ivm: the projected model's prediction at row %d "+
					"is not finite: its weights overflow", i+1)
			}
			out[i].Label, out[i].Mean, out[i].Var, out[i].Latent =
				z[0], z[0], p.Projected.NoiseVar, nil
			if dm != nil {
				out[i].Mean += dm[i]
				out[i].Label, out[i].Var = out[i].Mean, dv[i]
			}
			continue
		}
		if floats.HasNaN(z) || math.IsInf(floats.Max(z), 0) || math.IsInf(floats.Min(z), 0) {
			return nil, fmt.Errorf("ivm: the projected model's class scores at row %d "+
				"are not finite: its weights or score map overflow", i+1)
		}
		out[i].Label = p.Classes[floats.MaxIdx(out[i].Latent)]
		if probs {
			calib.Softmax(z, 1)
			calib.MixUniform(z, p.LabelNoise)
			if l := p.Projected.Linear; l != nil {
				l.Tilt(z, xs.RawRowView(i))
			}
			out[i].Prob = z
		}
	}
	return out, nil
}

// checkProjected validates a projected predictor read from a file.
func (p *projectedFit) checkProjected() error {
	switch {
	case p.Task == Binary && len(p.Classes) != 2 || p.Task == MultiClass && len(p.Classes) < 3:
		return fmt.Errorf("a projected model of a %v task with %d classes", p.Task, len(p.Classes))
	case p.Task == Regression && (len(p.Classes) != 0 || p.Softmax || !(p.Projected.NoiseVar > 0)):
		return errors.New("a projected regression has no classes, no softmax and a " +
			"noise_variance > 0")
	case p.Task == Regression:
		return p.checkScaler()
	case p.Task != Binary && p.Task != MultiClass:
		return fmt.Errorf("a projected model is for a binary, multi-class or regression "+
			"task, not a %v one", p.Task)
	case !p.Softmax:
		return errors.New("a projected model's probabilities are a softmax (\"softmax\": true)")
	case !(p.LabelNoise >= 0 && p.LabelNoise < 1):
		return fmt.Errorf("label_noise %v: want 0 ≤ ε < 1", p.LabelNoise)
	}
	if err := p.checkScaler(); err != nil {
		return err
	}
	return p.checkClasses()
}

// checkScaler checks a projected predictor's input scaling against its centres.
func (p *projectedFit) checkScaler() error {
	if p.Scaler != nil {
		return p.Scaler.Check(p.InputDim())
	}
	return nil
}
