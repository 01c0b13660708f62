package ivm

// Small binary tasks: regression on the labels, calibrated by a logistic map.
//
// Where every row of a binary task is active (at most exactgp.MaxRows rows), Fit also regresses
// the labels coded ±1 on the inputs (as the search scaled them) with the exact GP and turns its
// predictive mean into p(y = +1) by a logistic map (exactgp.FitLabels). It blends this model with
// the probit search's (blend.go) where their held-out log losses (leave-one-out here), both at the
// least label noise, are within blendRatio of each other, and otherwise takes the one whose loss
// is lower.
//
// Why. On few rows the probit model can do worse than a regression of its labels, whose marginal
// likelihood and leave-one-out predictions use every row (bench/RESULTS.md records the runs).
// Why not always: on inputs with many repeated values (the house votes' yes/no answers) the
// marginal likelihood's optimum interpolates the labels with a vanishing length scale, which its
// leave-one-out log loss shows. One-vs-one pairs never take the label regression alone (by the
// same rule per pair it cost accuracy and log loss), but blend it with their probit model
// (blend.go).

import (
	"github.com/ivmlab/ivm/exactgp"
	"github.com/ivmlab/ivm/search"
)

// labelRegression reports whether Fit tries the label regression on a binary task of n
// rows with d active points whose probit search scored probit (see the comment at the top
// of labels.go): not where the task was given as Binary, which asks for the probit model
// (as -noise probit does), except in a one-vs-one pair, which may blend the two — unless
// its probit model leaves nothing to gain (held-out log loss below search.FlatLoss), since
// K(K−1)/2 pairs would pay for it without changing a prediction.
func (cfg *Config) labelRegression(task Task, n, d int, probit float64) bool {
	return task == Binary && (cfg.Task == TaskAuto || (cfg.pair && probit >= search.FlatLoss)) &&
		d == n && n <= exactgp.MaxRows && cfg.resolveLearning(task) == Search
}
