package ivm_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

func refProblem(t testing.TB, train string) (*mat.Dense, []float64, *kern.Sum) {
	x, y := readXY(t, train)
	_, dim := x.Dims()
	k, err := kern.Parse(refKernel, dim)
	if err != nil {
		t.Fatal(err)
	}
	return x, y, k
}

// Selection on several goroutines must give exactly what one goroutine gives (the blocks are
// merged with the same tie rule), on a problem large enough to be split.
func TestParallelSelectionEqualsSerial(t *testing.T) {
	x, y, k := refProblem(t, "class_train_5000.csv")
	run := func(workers int) *ivm.Selector {
		s, err := ivm.NewSelector(x, y, k, noise.NewProbit(), ivm.Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Select(60); err != nil {
			t.Fatal(err)
		}
		return s
	}
	one, many := run(1), run(3)
	for i, st := range one.Steps() {
		if many.Steps()[i] != st {
			t.Fatalf("inclusion %d: serial %+v, parallel %+v", i, st, many.Steps()[i])
		}
	}
	for i := range one.Mean() {
		if one.Mean()[i] != many.Mean()[i] || one.Var()[i] != many.Var()[i] {
			t.Fatalf("point %d: serial μ, ς = %v, %v; parallel %v, %v", i, one.Mean()[i], one.Var()[i], many.Mean()[i], many.Var()[i])
		}
	}
}

// Reset restores the prior; selecting again reproduces the first selection exactly.
func TestResetReproducesSelection(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	s, err := ivm.NewSelector(x, y, k, noise.NewProbit(), ivm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select(30); err != nil {
		t.Fatal(err)
	}
	first := append([]int(nil), s.Active()...)
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if s.Size() != 0 || s.Mean()[0] != 0 {
		t.Fatalf("after Reset: size %d, μ₀ %v", s.Size(), s.Mean()[0])
	}
	if err := s.Select(30); err != nil {
		t.Fatal(err)
	}
	for i, v := range s.Active() {
		if v != first[i] {
			t.Fatalf("inclusion %d: %d after Reset, %d before", i, v, first[i])
		}
	}
	// Selecting in two calls equals selecting in one.
	s.Reset()
	s.Select(10)
	s.Select(20)
	for i, v := range s.Active() {
		if v != first[i] {
			t.Fatalf("inclusion %d: %d in two calls, %d in one", i, v, first[i])
		}
	}
}

// The point Best names is the argmax of −½log₂(1 − ςν) over the inactive points, and
// including a point by hand (not the best) is allowed.
func TestIncludeByHand(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	s, err := ivm.NewSelector(x, y, k, noise.NewProbit(), ivm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if i, d, ties := s.Best(); i != 0 || ties != 232 || math.Abs(d-0.7650084821728893) > 1e-12 {
		t.Fatalf("Best = %d, %v, %d; reference 0, 0.7650084821728893, 232", i, d, ties)
	}
	if err := s.Include(17); err != nil {
		t.Fatal(err)
	}
	if err := s.Include(17); err == nil || !strings.Contains(err.Error(), "already active") {
		t.Errorf("including twice: %v", err)
	}
	if err := s.Include(500); err == nil {
		t.Error("including point 500 of 500: no error")
	}
	if !s.IsActive(17) || s.Active()[0] != 17 || s.Var()[17] >= 1 {
		t.Errorf("after Include(17): active %v, ς₁₇ = %v", s.Active(), s.Var()[17])
	}
	if err := s.Select(500); err == nil {
		t.Error("selecting more points than remain: no error")
	}
}

func TestBadInput(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	if _, err := ivm.NewSelector(x, y[:10], k, noise.NewProbit(), ivm.Options{}); err == nil {
		t.Error("mismatched targets: no error")
	}
	xn := mat.DenseCopyOf(x)
	xn.Set(3, 1, math.NaN())
	if _, err := ivm.NewSelector(xn, y, k, noise.NewProbit(), ivm.Options{}); err == nil || !strings.Contains(err.Error(), "row 3") {
		t.Errorf("NaN input: %v", err)
	}
	yb := append([]float64(nil), y...)
	yb[5] = 0.5
	if _, err := ivm.NewSelector(x, yb, k, noise.NewProbit(), ivm.Options{}); err == nil {
		t.Error("probit target 0.5: no error")
	}
}

// leakyNoise is a non-log-concave test model whose ν exceeds 1/ς at chosen points, making the
// ADF site precision negative there.
type leakyNoise struct {
	noise.Model
	concave bool
}

func (l leakyNoise) LogConcave() bool { return l.concave }
func (l leakyNoise) Moments(n int, y, mu, vs float64) (float64, float64, float64) {
	lz, g, nu := l.Model.Moments(n, y, mu, vs)
	if n == 0 {
		nu = 2 / vs // νς = 2 > 1: a site precision ν/(1 − νς) = −ν < 0
	}
	return lz, g, nu
}

func TestNegativeSitePrecisionRule(t *testing.T) {
	x, y, k := refProblem(t, "class_train_500.csv")
	for _, concave := range []bool{true, false} {
		s, err := ivm.NewSelector(x, y, k, leakyNoise{noise.NewProbit(), concave}, ivm.Options{})
		if concave {
			if err == nil || !strings.Contains(err.Error(), "numerical breakdown") {
				t.Errorf("log-concave model with νς > 1: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if i, d, _ := s.Best(); i != 0 || !math.IsInf(d, 1) {
			t.Fatalf("Best = %d, %v; want point 0 with an infinite score", i, d)
		}
		if err := s.Include(0); err != nil {
			t.Fatal(err)
		}
		st := s.Steps()[0]
		if st.SiteBeta != ivm.NegativeSitePrecision || !(st.FactorBeta < 0) {
			t.Errorf("site β %v, factor β %v; want %v and a negative factor precision", st.SiteBeta, st.FactorBeta, ivm.NegativeSitePrecision)
		}
		if err := s.Select(20); err != nil {
			t.Fatal(err)
		}
		m, err := s.Model()
		if err != nil {
			t.Fatal(err)
		}
		// The model predicts at the inactive training inputs what the selector's posterior
		// holds (at active ones the selector's latent includes the white-noise term).
		mu, vs := m.Latent(x, nil, nil)
		for i := range mu {
			if s.IsActive(i) {
				continue
			}
			if math.Abs(mu[i]-s.Mean()[i]) > 1e-8*(1+math.Abs(mu[i])) || math.Abs(vs[i]-s.Var()[i]) > 1e-8 {
				t.Fatalf("point %d: model μ, ς = %v, %v; selector %v, %v", i, mu[i], vs[i], s.Mean()[i], s.Var()[i])
			}
		}
	}
}

// A model written to a file and read back predicts exactly what the original predicts.
func TestModelFileRoundTrip(t *testing.T) {
	for _, c := range []struct{ train, test, noise string }{
		{"class_train_500.csv", "class_test_2000.csv", "probit"},
		{"reg_train_2000.csv", "reg_test_1000.csv", "gaussian"},
		{"ord_train_500.csv", "ord_test_1000.csv", "ordinal"},
		{"semi_train_500.csv", "class_test_2000.csv", "ncnm"},
	} {
		x, y, k := refProblem(t, c.train)
		xt, _ := readXY(t, c.test)
		nm, _ := noise.ByName(c.noise)
		m, err := ivm.FitFixed(x, y, k, nm, 50, ivm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		meta := &ivm.ModelMeta{Training: ivm.Provenance{File: c.train, Rows: 500}}
		if err := ivm.WriteModel(&buf, m, meta); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		m2, meta2, err := ivm.ReadModel(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if meta2.Training.File != c.train {
			t.Errorf("provenance %+v", meta2.Training)
		}
		p1, p2 := m.Predict(xt), m2.Predict(xt)
		for i := range p1 {
			if p1[i].Label != p2[i].Label || p1[i].Mean != p2[i].Mean || p1[i].Var != p2[i].Var {
				t.Fatalf("%s test point %d: %+v before, %+v after the round trip", c.noise, i, p1[i], p2[i])
			}
		}
		var again bytes.Buffer
		if err := ivm.WriteModel(&again, m2, meta2); err != nil {
			t.Fatal(err)
		}
		if again.String() != text {
			t.Errorf("%s: the model file changed on a second round trip", c.noise)
		}
	}
}

func TestReadModelErrors(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`not json`, "not a readable model file"},
		{`{}`, "no \"format\""},
		{`{"format":"ivm-model/2"}`, "not supported"},
		{`{"format":"svm"}`, "unknown model format"},
		{`{"format":"ivm-model/1"}`, "lacks its kernel"},
	} {
		_, _, err := ivm.ReadModel(strings.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.file, err, c.want)
		}
	}
}

// TestBestIsArgmaxOfDelta checks the selector's choice against the Entropy criterion
// computed by brute force after every inclusion: Δ_j = −½ log₂(1 − ς_j ν_j) over the
// inactive points, the largest winning and ties going to the lowest index. Every row appears
// twice, so exact ties occur at every step (scoreRange skips the logarithm of points clearly
// below the best so far; this is what must not change the choice).
func TestBestIsArgmaxOfDelta(t *testing.T) {
	x0, y0, k := refProblem(t, "class_train_500.csv")
	n0, dim := x0.Dims()
	x := mat.NewDense(2*n0, dim, nil)
	y := make([]float64, 2*n0)
	for i := 0; i < n0; i++ {
		x.SetRow(i, x0.RawRowView(i))
		x.SetRow(n0+i, x0.RawRowView(i))
		y[i], y[n0+i] = y0[i], y0[i]
	}
	for _, nm := range []noise.Model{noise.NewProbit(), noise.NewGaussian(0.1)} {
		sel, err := ivm.NewSelector(x, y, k, nm, ivm.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		tied := 0
		for step := 0; step < 40; step++ {
			mu, vs := sel.Mean(), sel.Var()
			want, wantD, wantTies := -1, 0.0, 0
			for j := range y {
				if sel.IsActive(j) {
					continue
				}
				_, _, nu := nm.Moments(j, y[j], mu[j], vs[j])
				d := -0.5 * math.Log2(1-vs[j]*nu)
				switch {
				case want < 0 || d > wantD:
					want, wantD, wantTies = j, d, 1
				case d == wantD:
					wantTies++
				}
			}
			got, gotD, gotTies := sel.Best()
			if got != want || gotD != wantD || gotTies != wantTies {
				t.Fatalf("%s, step %d: Best() = (%d, %v, %d ties), brute force (%d, %v, %d ties)", nm.Name(), step, got, gotD, gotTies, want, wantD, wantTies)
			}
			if wantTies > 1 {
				tied++
			}
			if err := sel.Include(got); err != nil {
				t.Fatal(err)
			}
		}
		if tied < 10 {
			t.Errorf("%s: the best point was tied at %d of 40 steps; the duplicated rows should tie more often", nm.Name(), tied)
		}
	}
}
