package engine_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/ivmlab/ivm/engine"
)

// The learning trace stored in model files survives a round trip, undefined figures
// (NaN held-out likelihood) included, which plain encoding/json would refuse.
func TestIterTraceJSON(t *testing.T) {
	in := []engine.IterTrace{
		{Iter: 0, HeldOut: math.NaN(), KernelBefore: 12.5, KernelAfter: 10.25, KernelSteps: 7,
			KernelParams: []float64{1, 2}},
		{Iter: 1, HeldOut: -0.25, NoiseBefore: 3, NoiseAfter: 2, NoiseSteps: 4,
			NoiseParams: []float64{0.5}, Halvings: 2, Rejected: true},
		{Iter: 2, HeldOut: 0, Final: true, EPFailures: 1, EPUnconverged: 3},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.IterTrace
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if len(out) != len(in) {
		t.Fatalf("%d records back, want %d", len(out), len(in))
	}
	if !math.IsNaN(out[0].HeldOut) || out[0].KernelAfter != 10.25 || out[0].KernelSteps != 7 ||
		out[0].KernelParams[1] != 2 {
		t.Errorf("record 0: %+v from %s", out[0], b)
	}
	if out[1].HeldOut != -0.25 || out[1].NoiseAfter != 2 || !out[1].Rejected ||
		out[1].Halvings != 2 {
		t.Errorf("record 1: %+v", out[1])
	}
	if out[2].HeldOut != 0 || !out[2].Final || out[2].EPUnconverged != 3 {
		t.Errorf("record 2: %+v", out[2])
	}
}
