package plot

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// LearningCurves draws each strategy's mean and sd over its points at each number of
// labels, in the order the strategies first appear, and the references across the labels
// drawn.
func TestLearningCurves(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	labels := []float64{20, 40, 80}
	var pts []CurvePoint
	want := map[string][][]float64{} // strategy → values at each label count
	for _, s := range []string{"random", "active"} {
		want[s] = make([][]float64, len(labels))
		for seed := range 5 {
			for i := len(labels) - 1; i >= 0; i-- { // any order
				v := 1/labels[i] + 0.01*r.Float64() + float64(seed)*1e-3
				pts = append(pts, CurvePoint{Strategy: s, Labels: labels[i], Value: v})
				want[s][i] = append(want[s][i], v)
			}
		}
	}
	pts = append(pts, CurvePoint{Strategy: "one", Labels: 30, Value: 0.04})
	refs := []CurveReference{{Name: "full data", Value: 0.01}}
	fig, err := LearningCurves(pts, refs, Options{Title: "t", YLabel: "log loss"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range fig.Series {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"random", "active", "one", "full data"}) {
		t.Fatalf("series %v", names)
	}
	for k, s := range fig.Series[:2] {
		if !slices.Equal(s.X, labels) {
			t.Errorf("%s: labels %v, want %v", s.Name, s.X, labels)
		}
		for i, vs := range want[s.Name] {
			m, sd := sampleMeanSD(vs)
			if math.Abs(s.Y[i]-m) > 1e-12 || math.Abs(s.YErr[i]-sd) > 1e-12 {
				t.Errorf("series %d at %g: %g ± %g, want %g ± %g",
					k, s.X[i], s.Y[i], s.YErr[i], m, sd)
			}
		}
	}
	if one := fig.Series[2]; one.YErr[0] != 0 || one.Y[0] != 0.04 {
		t.Errorf("a single point: %+v", one)
	}
	if ref := fig.Series[3]; !slices.Equal(ref.X, []float64{20, 80}) || ref.Y[0] != 0.01 {
		t.Errorf("reference %+v, want across labels 20 to 80", ref)
	}
	checkFiles(t, fig, 12*vg.Centimeter, 8*vg.Centimeter)
	logFig, err := LearningCurves(pts, refs, Options{LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, logFig, 12*vg.Centimeter, 8*vg.Centimeter)
}

// sampleMeanSD is the mean and the sample standard deviation, computed apart from meanSD.
func sampleMeanSD(v []float64) (float64, float64) {
	var s, s2 float64
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	for _, x := range v {
		s2 += (x - m) * (x - m)
	}
	return m, math.Sqrt(s2 / float64(len(v)-1))
}

func TestLearningCurvesInvalid(t *testing.T) {
	ok := []CurvePoint{{Strategy: "a", Labels: 10, Value: 1}}
	for _, c := range []struct {
		pts  []CurvePoint
		refs []CurveReference
		opt  Options
		want string
	}{
		{nil, nil, Options{}, "no points"},
		{[]CurvePoint{{Strategy: "a", Labels: 10, Value: math.NaN()}}, nil, Options{},
			"point 1 (a)"},
		{[]CurvePoint{{Strategy: "a", Labels: 10, Value: -1}}, nil, Options{LogY: true}, "point 1"},
		{ok, []CurveReference{{Name: "full", Value: math.Inf(1)}}, Options{}, `reference "full"`},
	} {
		_, err := LearningCurves(c.pts, c.refs, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.pts, err, c.want)
		}
	}
}
