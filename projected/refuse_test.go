package projected

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRefuses: the arguments Fit, its targets and Decode refuse, each with an error that
// names the fault.
func TestRefuses(t *testing.T) {
	classes := make([]int, MinRows)
	x := mat.NewDense(MinRows, 1, nil)
	for i := range MinRows {
		classes[i] = i % 2
		x.Set(i, 0, float64(i))
	}
	good, err := ClassTargets(classes, 2)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(t Targets, s []Scaling) func() error {
		return func() error { _, err := Fit(x, t, s, Options{}, nil); return err }
	}
	one := []Scaling{{StartGamma: 1}}
	for name, c := range map[string]struct {
		run  func() error
		want string
	}{
		"few rows": {func() error { _, err := ClassTargets(classes[1:], 2); return err },
			"at least 50"},
		"one class": {func() error { _, err := ClassTargets(classes, 1); return err },
			"1 classes"},
		"out of range": {
			func() error {
				c := append([]int{2}, classes[1:]...)
				_, err := ClassTargets(c, 2)
				return err
			},
			"class index 2"},
		"same targets": {
			func() error { _, err := RealTargets(make([]float64, MinRows)); return err },
			"every target"},
		"few real rows": {func() error { _, err := RealTargets([]float64{1, 2}); return err },
			"at least 50"},
		"zero targets": {fit(Targets{}, one), "0 targets"},
		"no scaling":   {fit(good, nil), "input scaling"},
		"zero γ":       {fit(good, []Scaling{{}}), "γ = 0"},
		"infinite γ":   {fit(good, []Scaling{{StartGamma: math.Inf(1)}}), "γ = +Inf"},
		"no classes":   {func() error { _, err := Decode(&File{}, 0); return err }, "0 classes"},
		"no centres":   {func() error { _, err := Decode(&File{}, 2); return err }, "0 centres"},
	} {
		if err := c.run(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}
