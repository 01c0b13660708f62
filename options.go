package ivm

import "github.com/ivmlab/ivm/internal/enum"

// Config's option enums follow one convention across the model families: a typed int whose
// zero value is the documented default, String and ParseX for the CLI's spellings, and
// MarshalText/UnmarshalText so that a configuration reads and writes by name in JSON. Task
// and Learning are this package's; Scaling is package dataset's; Criterion (as
// CriterionChoice), Transform, Optimizer and Objective are package engine's, shared with
// multitask (see engine_alias.go).

// Learning says how Fit chooses the kernel parameters.
type Learning int

const (
	// LearnAuto is Search for binary, multi-class and regression tasks, and Algorithm 2
	// for ordinal and semi-supervised ones.
	LearnAuto Learning = iota
	// Search picks one kernel for all of a task's problems by the predictive log
	// likelihood of held-out rows (see package search); for a regression task whose rows
	// are all active (at most 700), the exact GP's marginal likelihood picks an rbfard
	// kernel instead (package exactgp).
	Search
	// Algorithm2 is the papers' Algorithm 2 (Learn) on each problem, set by Config.Learn.
	Algorithm2
)

var learningNames = []string{"auto", "search", "alg2"}

// String returns the name ParseLearning accepts.
func (l Learning) String() string { return enum.String("Learning", learningNames, int(l)) }

// ParseLearning parses "auto" (or ""), "search" or "alg2".
func ParseLearning(s string) (Learning, error) {
	v, err := enum.Parse("ivm", "learning", learningNames, s)
	return Learning(v), err
}

// MarshalText lets a Learning appear by name in JSON.
func (l Learning) MarshalText() ([]byte, error) {
	return enum.Marshal("ivm", "Learning", learningNames, int(l))
}

// UnmarshalText parses a learning's name.
func (l *Learning) UnmarshalText(b []byte) error {
	v, err := ParseLearning(string(b))
	*l = v
	return err
}
