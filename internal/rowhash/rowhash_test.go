package rowhash

import "testing"

// Equal rows hash equal whatever their backing arrays; a changed value, a different seed
// or a reordered row hash apart (for these rows).
func TestSum(t *testing.T) {
	a := []float64{1, 2.5, -3}
	b := append([]float64(nil), a...)
	if Sum(7, a) != Sum(7, b) {
		t.Fatal("equal rows hash apart")
	}
	for name, h := range map[string]uint64{
		"changed value": Sum(7, []float64{1, 2.5, -3.0000001}),
		"other seed":    Sum(8, a),
		"reordered":     Sum(7, []float64{2.5, 1, -3}),
	} {
		if h == Sum(7, a) {
			t.Errorf("%s: same hash as the row", name)
		}
	}
}
