package ivm

import "github.com/ivmlab/ivm/internal/enum"

// Config's option enums follow one convention across the model families: a typed int whose
// zero value is the documented default, String and ParseX for the CLI's spellings, and
// MarshalText/UnmarshalText so that a configuration reads and writes by name in JSON. Task
// and Learning are this package's; Scaling is package dataset's; Criterion (as
// CriterionChoice), Transform, Optimizer and Objective are package engine's, shared with
// multitask (see engine_alias.go).

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
