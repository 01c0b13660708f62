package ivm

import "testing"

func TestDecompositionRule(t *testing.T) {
	for _, c := range []struct {
		dc     Decomposition
		n, k   int
		search bool
		want   Decomposition
	}{
		{DecomposeAuto, 700, 11, true, OneVsOne},
		{DecomposeAuto, ovoMaxRows, 3, true, OneVsOne},
		{DecomposeAuto, ovoMaxRows + 1, 10, true, Projected},
		{DecomposeAuto, ovoMaxRows + 1, 2, true, Projected},
		{DecomposeAuto, ovoMaxRows, 2, true, OneVsRest},
		{DecomposeAuto, 700, 11, false, OneVsRest}, // Algorithm 2, the papers' protocols
		{OneVsOne, 70000, 10, false, OneVsOne},
		{OneVsRest, 100, 3, true, OneVsRest},
	} {
		if got := c.dc.resolve(c.n, c.k, c.search); got != c.want {
			t.Errorf("%v.resolve(%d rows, %d classes, search %v) = %v, want %v",
				c.dc, c.n, c.k, c.search, got, c.want)
		}
	}
	part := Config{Part: Part{Index: 1, Count: 3}}
	if got := part.decomposition(ovoMaxRows+1, 10, ovoMaxRows, true); got != OneVsRest {
		t.Errorf("a partitioned training above %d rows: %v, want ovr", ovoMaxRows, got)
	}
	if got := part.decomposition(ovoMaxRows, 10, ovoMaxRows, true); got != OneVsOne {
		t.Errorf("a partitioned training of %d rows: %v, want ovo", ovoMaxRows, got)
	}
	probit := Config{Task: Binary}
	if got := probit.decomposition(ovoMaxRows+1, 2, ovoMaxRows, true); got != OneVsRest {
		t.Errorf("-noise probit above %d rows: %v, want the probit IVM (ovr)", ovoMaxRows, got)
	}
	// Two classes of 2 and 3 rows: too few for a pair's search, so one-vs-rest, whose models
	// see every row; asked for, one-vs-one stays.
	var auto Config
	y := []float64{0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2}
	pairRows := fewestPairRows(y, []float64{0, 1, 2})
	if got := auto.decomposition(len(y), 3, pairRows, true); got != OneVsRest {
		t.Errorf("a pair of 5 rows: %v, want ovr", got)
	}
	if got := auto.decomposition(60, 3, 6, true); got != OneVsOne {
		t.Errorf("pairs of 6 rows or more: %v, want ovo", got)
	}
	asked := Config{Decomposition: OneVsOne}
	if got := asked.decomposition(60, 3, 5, true); got != OneVsOne {
		t.Errorf("ovo asked for, a pair of 5 rows: %v, want ovo (its search says why not)", got)
	}
	part.Decomposition = Projected
	if got := part.decomposition(100, 10, ovoMaxRows, true); got != Projected {
		t.Errorf("a partitioned training asking for the projected model: %v (Fit refuses it)", got)
	}
	for _, s := range []string{"auto", "ovr", "ovo", "projected"} {
		if dc, err := ParseDecomposition(s); err != nil || dc.String() != s {
			t.Errorf("ParseDecomposition(%q) = %v, %v", s, dc, err)
		}
	}
	if _, err := ParseDecomposition("ova"); err == nil {
		t.Error("ParseDecomposition(ova) accepted")
	}
}
