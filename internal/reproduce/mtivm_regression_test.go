package reproduce

import (
	"math"
	"testing"
)

func TestCompareAtCPU(t *testing.T) {
	pts := []RegressionPoint{
		{Method: "mtivm", Size: 400, Points: 400, KL: []float64{0.02}, CPU: []float64{2}},
		{Method: "mtivm", Size: 800, Points: 800, KL: []float64{0.004}, CPU: []float64{10}},
		{Method: "subsample", Size: 150, Points: 600, KL: []float64{0.05}, CPU: []float64{1}},
		{Method: "subsample", Size: 300, Points: 1200, KL: []float64{0.01}, CPU: []float64{6}},
		{Method: "subsample", Size: 600, Points: 2400, KL: []float64{0.003}, CPU: []float64{40}},
	}
	got := CompareAtCPU(pts)
	if len(got) != 3 || got[0].OK || !got[1].OK || !got[2].OK {
		t.Fatalf("%+v", got)
	}
	if math.Abs(got[1].MTIVMKL-0.012) > 1e-12 || got[1].MTIVMIsLower {
		t.Errorf("at 6 s: MT-IVM KL %v, want 0.012 (interpolated), not lower than 0.01",
			got[1].MTIVMKL)
	}
	if got[2].MTIVMKL != 0.004 || got[2].MTIVMIsLower {
		t.Errorf("at 40 s: %+v", got[2])
	}
	if PointsToReach(pts, "mtivm", 0.01) != 800 ||
		PointsToReach(pts, "subsample", 0.01) != 2400 ||
		PointsToReach(pts, "mtivm", 0.001) != 0 {
		t.Error("PointsToReach")
	}
}
