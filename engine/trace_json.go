package engine

import (
	"encoding/json"
	"math"
)

// iterTraceJSON is IterTrace with the numbers that may be undefined (NaN when a figure
// could not be computed, ±Inf) as pointers, written as null.
type iterTraceJSON struct {
	Iter          int       `json:"iter"`
	HeldOut       *float64  `json:"held_out"`
	KernelBefore  *float64  `json:"kernel_before,omitempty"`
	KernelAfter   *float64  `json:"kernel_after,omitempty"`
	KernelSteps   int       `json:"kernel_steps,omitempty"`
	NoiseBefore   *float64  `json:"noise_before,omitempty"`
	NoiseAfter    *float64  `json:"noise_after,omitempty"`
	NoiseSteps    int       `json:"noise_steps,omitempty"`
	KernelParams  []float64 `json:"kernel_params,omitempty"`
	NoiseParams   []float64 `json:"noise_params,omitempty"`
	EPFailures    int       `json:"ep_failures,omitempty"`
	EPUnconverged int       `json:"ep_unconverged,omitempty"`
	Halvings      int       `json:"halvings,omitempty"`
	Rejected      bool      `json:"rejected,omitempty"`
	Final         bool      `json:"final,omitempty"`
}

// MarshalJSON writes a trace record; undefined figures (NaN, ±Inf) become null and zero
// objective values are omitted (the step did not run).
func (t IterTrace) MarshalJSON() ([]byte, error) {
	num := func(v float64, keepZero bool) *float64 {
		if bad(v) || (v == 0 && !keepZero) {
			return nil
		}
		return &v
	}
	j := iterTraceJSON{Iter: t.Iter, HeldOut: num(t.HeldOut, true),
		KernelBefore: num(t.KernelBefore, false), KernelAfter: num(t.KernelAfter, false),
		KernelSteps: t.KernelSteps,
		NoiseBefore: num(t.NoiseBefore, false), NoiseAfter: num(t.NoiseAfter, false),
		NoiseSteps:   t.NoiseSteps,
		KernelParams: t.KernelParams, NoiseParams: t.NoiseParams, EPFailures: t.EPFailures,
		EPUnconverged: t.EPUnconverged,
		Halvings:      t.Halvings, Rejected: t.Rejected, Final: t.Final}
	if j.HeldOut == nil {
		// null rather than absent: the field is always there, undefined or not.
		return json.Marshal(struct {
			iterTraceJSON
			HeldOut json.RawMessage `json:"held_out"`
		}{j, json.RawMessage("null")})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; a null held-out figure becomes NaN.
func (t *IterTrace) UnmarshalJSON(data []byte) error {
	var j iterTraceJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	val := func(p *float64, missing float64) float64 {
		if p == nil {
			return missing
		}
		return *p
	}
	*t = IterTrace{Iter: j.Iter, HeldOut: val(j.HeldOut, math.NaN()),
		KernelBefore: val(j.KernelBefore, 0), KernelAfter: val(j.KernelAfter, 0),
		KernelSteps: j.KernelSteps,
		NoiseBefore: val(j.NoiseBefore, 0), NoiseAfter: val(j.NoiseAfter, 0),
		NoiseSteps:   j.NoiseSteps,
		KernelParams: j.KernelParams, NoiseParams: j.NoiseParams, EPFailures: j.EPFailures,
		EPUnconverged: j.EPUnconverged,
		Halvings:      j.Halvings, Rejected: j.Rejected, Final: j.Final}
	return nil
}
