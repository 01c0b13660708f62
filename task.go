package ivm

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Task is what a Predictor learns to predict.
type Task int

const (
	// TaskAuto picks the task from the targets (see Fit).
	TaskAuto Task = iota
	// Binary is two-class classification with the probit noise model.
	Binary
	// MultiClass is classification into three or more classes by one-vs-rest binary
	// IVMs combined by the largest p(y=+1), the papers' USPS protocol.
	MultiClass
	// Regression is real-valued targets with Gaussian noise.
	Regression
	// Ordinal is ordered categories with the ordered-categorical noise model.
	Ordinal
	// SemiSupervised is two-class classification from labelled and unlabelled (NaN)
	// targets with the null category noise model.
	SemiSupervised
)

var taskNames = []string{"auto", "binary", "multiclass", "regression", "ordinal", "semisupervised"}

// String returns the name ParseTask accepts.
func (t Task) String() string {
	if t >= 0 && int(t) < len(taskNames) {
		return taskNames[t]
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// ParseTask parses a task name (as String writes it).
func ParseTask(s string) (Task, error) {
	for i, n := range taskNames {
		if s == n {
			return Task(i), nil
		}
	}
	return TaskAuto, fmt.Errorf("ivm: unknown task %q (want one of %v)", s, taskNames)
}

// MarshalText writes the task's name.
func (t Task) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses a task name.
func (t *Task) UnmarshalText(b []byte) error {
	v, err := ParseTask(string(b))
	*t = v
	return err
}

// noiseName is the noise model of a task's (binary) problems.
func (t Task) noiseName() string {
	switch t {
	case Regression:
		return "gaussian"
	case Ordinal:
		return "ordinal"
	case SemiSupervised:
		return "ncnm"
	}
	return "probit"
}

// maxAutoClasses is the most distinct integer targets TaskAuto reads as classes; more are
// taken as a numeric (regression) target, such as a count or a score.
const maxAutoClasses = 50

// chooseTask checks the targets against the task (picking it for TaskAuto) and returns
// the class labels.
func chooseTask(task Task, y []float64) (Task, []float64, error) {
	distinct := map[float64]bool{}
	integer, unlabelled := true, 0
	for i, v := range y {
		switch {
		case math.IsNaN(v):
			unlabelled++
			continue
		case math.IsInf(v, 0):
			return task, nil, fmt.Errorf("ivm: target %d is %v", i+1, v)
		}
		distinct[v] = true
		if v != math.Trunc(v) {
			integer = false
		}
	}
	labels := make([]float64, 0, len(distinct))
	for v := range distinct {
		labels = append(labels, v)
	}
	slices.Sort(labels)
	if task == TaskAuto {
		switch {
		case unlabelled > 0:
			task = SemiSupervised
		case len(labels) == 2:
			task = Binary
		case !integer || len(labels) > maxAutoClasses:
			task = Regression
		case len(labels) == 1:
			return task, nil, fmt.Errorf("ivm: every target is %g: a single class cannot be learnt",
				labels[0])
		default:
			task = MultiClass
		}
	}
	if unlabelled > 0 && task != SemiSupervised {
		return task, nil, fmt.Errorf("ivm: %d unlabelled targets; only the "+
			"semi-supervised task uses unlabelled rows", unlabelled)
	}
	switch task {
	case Binary, SemiSupervised:
		if len(labels) != 2 {
			return task, nil, fmt.Errorf("ivm: %v needs two distinct labels, found %d",
				task, len(labels))
		}
		return task, labels, nil
	case MultiClass:
		if len(labels) < 2 {
			return task, nil, fmt.Errorf("ivm: multi-class needs at least two classes, found %d",
				len(labels))
		}
		if len(labels) == 2 {
			task = Binary
		}
		return task, labels, nil
	case Ordinal:
		if !integer {
			return task, nil,
				errors.New("ivm: ordinal targets must be integers (ordered categories)")
		}
		if len(labels) < 2 {
			return task, nil, fmt.Errorf("ivm: ordinal needs at least two categories, found %d",
				len(labels))
		}
		return task, labels, nil
	case Regression:
		if len(labels) < 2 {
			return task, nil, errors.New("ivm: every target is the same: nothing to regress")
		}
		return task, nil, nil
	}
	return task, nil, fmt.Errorf("ivm: unknown task %v", task)
}

// codeTargets returns problem c's targets in its noise model's coding: ±1 for binary
// problems (class c against the rest for multi-class), 0 for unlabelled rows, category
// ranks 0…C−1 for ordinal, and the targets themselves for regression.
func codeTargets(task Task, classes, y []float64, c int) ([]float64, float64) {
	if task == Regression {
		return y, math.NaN()
	}
	out := make([]float64, len(y))
	pos := classes[len(classes)-1]
	if task == MultiClass {
		pos = classes[c]
	}
	for i, v := range y {
		switch {
		case math.IsNaN(v):
			out[i] = 0
		case task == Ordinal:
			r, _ := slices.BinarySearch(classes, v)
			out[i] = float64(r)
		case v == pos:
			out[i] = 1
		default:
			out[i] = -1
		}
	}
	return out, pos
}
