package ivm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// The engine's user-facing names, re-exported so that programs written against package ivm
// keep compiling; each is the engine's own type or function (see package engine).
type (
	// Selector runs Algorithm 1 on one data set (engine.Selector).
	Selector = engine.Selector
	// Options configures a Selector (engine.Options).
	Options = engine.Options
	// Criterion is the selection score (engine.Criterion).
	Criterion = engine.Criterion
	// Inclusion records one step of Algorithm 1 (engine.Inclusion).
	Inclusion = engine.Inclusion
	// Model is a trained IVM (engine.Model).
	Model = engine.Model
	// LearnOptions configures Learn (engine.LearnOptions).
	LearnOptions = engine.LearnOptions
	// LearnResult is the record of a Learn run (engine.LearnResult).
	LearnResult = engine.LearnResult
	// IterTrace reports one outer iteration of Algorithm 2 (engine.IterTrace).
	IterTrace = engine.IterTrace
	// Objective is Algorithm 2's kernel objective (engine.Objective), the same enum as
	// multitask.Objective; its zero value, ObjectiveAuto, is FullData for Fit and Learn.
	Objective = engine.Objective
	// CriterionChoice is Config.Criterion: CriterionAuto (Fit chooses) or one of the
	// criteria (engine.CriterionChoice, the same type as multitask.Criterion).
	CriterionChoice = engine.CriterionChoice
	// Transform is Config.Transform (engine.Transform, the same type as
	// multitask.Transform).
	Transform = engine.Transform
	// Optimizer is LearnOptions.Optimizer (engine.Optimizer, the same type as
	// multitask.Optimizer).
	Optimizer = engine.Optimizer
	// Prior is a prior density on a kernel parameter (engine.Prior).
	Prior = engine.Prior
	// GammaPrior and ExponentialPrior are the priors on offer (engine.GammaPrior,
	// engine.ExponentialPrior).
	GammaPrior       = engine.GammaPrior
	ExponentialPrior = engine.ExponentialPrior
	// RefineOptions and RefineStats configure and report Selector.Refine.
	RefineOptions = engine.RefineOptions
	RefineStats   = engine.RefineStats
)

// The selection criteria, kernel objectives and the negative-site-precision rule (see
// package engine).
const (
	Entropy               = engine.Entropy
	ExpectedEntropy       = engine.ExpectedEntropy
	ObjectiveAuto         = engine.ObjectiveAuto
	FullData              = engine.FullData
	EPEvidence            = engine.EPEvidence
	FixedSites            = engine.FixedSites
	NegativeSitePrecision = engine.NegativeSitePrecision
	CriterionAuto         = engine.CriterionAuto
	CriterionEntropy      = engine.CriterionEntropy
	CriterionExpected     = engine.CriterionExpected
	TransformAuto         = engine.TransformAuto
	TransformSoftplus     = engine.TransformSoftplus
	TransformExp          = engine.TransformExp
	OptimizerSCG          = engine.OptimizerSCG
	OptimizerLBFGS        = engine.OptimizerLBFGS
	// MaxInputDim is the largest input dimension a model file may declare.
	MaxInputDim = engine.MaxInputDim
)

// NewSelector prepares Algorithm 1 (engine.NewSelector).
func NewSelector(x *mat.Dense, y []float64, k kern.Kernel, nm noise.Model, opt Options) (*Selector,
	error) {
	return engine.NewSelector(x, y, k, nm, opt)
}

// FitFixed selects d points and returns the model (engine.FitFixed).
func FitFixed(x *mat.Dense, y []float64, k kern.Kernel, nm noise.Model, d int, opt Options) (*Model,
	error) {
	return engine.FitFixed(x, y, k, nm, d, opt)
}

// NewModel makes a model from an active set (engine.NewModel).
func NewModel(k kern.Kernel, nm noise.Model, xActive *mat.Dense, active []int, siteM, siteBeta,
	factorBeta []float64) (*Model, error) {
	return engine.NewModel(k, nm, xActive, active, siteM, siteBeta, factorBeta)
}

// Learn runs Algorithm 2 on one task (engine.Learn).
func Learn(x *mat.Dense, y []float64, k *kern.Sum, nm noise.Model, opt LearnOptions) (*Model,
	*LearnResult, error) {
	return engine.Learn(x, y, k, nm, opt)
}

// ParseCriterion parses "entropy" or "expected" (engine.ParseCriterion).
func ParseCriterion(s string) (Criterion, error) { return engine.ParseCriterion(s) }

// ParseObjective parses "auto" (or ""), "full", "ep" or "fixed" (engine.ParseObjective).
func ParseObjective(s string) (Objective, error) { return engine.ParseObjective(s) }

// ParseCriterionChoice parses "auto" (or ""), "entropy" or "expected"
// (engine.ParseCriterionChoice).
func ParseCriterionChoice(s string) (CriterionChoice, error) {
	return engine.ParseCriterionChoice(s)
}

// ParseTransform parses "auto" (or ""), "softplus" or "exp" (engine.ParseTransform).
func ParseTransform(s string) (Transform, error) { return engine.ParseTransform(s) }

// ParseOptimizer parses "scg" (or "") or "lbfgs" (engine.ParseOptimizer).
func ParseOptimizer(s string) (Optimizer, error) { return engine.ParseOptimizer(s) }

// CheckSites validates the site precisions of a model read from a file (engine.CheckSites).
func CheckSites(nm noise.Model, siteBeta, factorBeta []float64) error {
	return engine.CheckSites(nm, siteBeta, factorBeta)
}
