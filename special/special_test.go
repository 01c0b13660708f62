package special

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var (
	inf = math.Inf(1)
	nan = math.NaN()
)

func same(got, want float64) bool {
	return got == want || (math.IsNaN(got) && math.IsNaN(want))
}

func TestEdgeValues(t *testing.T) {
	tests := []struct {
		name string
		f    func(float64) float64
		x    float64
		want float64
	}{
		{"Erfcx", Erfcx, nan, nan},
		{"Erfcx", Erfcx, inf, 0},
		{"Erfcx", Erfcx, -inf, inf},
		{"Erfcx", Erfcx, 0, 1},
		{"Erfcx", Erfcx, -26.64, inf}, // 2e^{x²} > MaxFloat64
		{"Erfcx", Erfcx, -30, inf},
		{"Phi", Phi, nan, nan},
		{"Phi", Phi, inf, 1},
		{"Phi", Phi, -inf, 0},
		{"Phi", Phi, 0, 0.5},
		{"Phi", Phi, -1e300, 0},
		{"Phi", Phi, 1e300, 1},
		{"LogPhi", LogPhi, nan, nan},
		{"LogPhi", LogPhi, inf, 0},
		{"LogPhi", LogPhi, -inf, -inf},
		{"LogPhi", LogPhi, 0, -ln2},
		{"LogPhi", LogPhi, 1e300, 0},
		{"LogPhi", LogPhi, -1e300, -inf}, // −u²/2 overflows, as the true value does
		{"InvMills", InvMills, nan, nan},
		{"InvMills", InvMills, inf, 0},
		{"InvMills", InvMills, -inf, inf},
		{"InvMills", InvMills, 0, sqrt2OverPi},
		{"InvMills", InvMills, 1e300, 0},
		{"InvMills", InvMills, -1e300, 1e300},
		{"InvMills", InvMills, -math.MaxFloat64, math.MaxFloat64},
		{"LogNormPDF", LogNormPDF, 0, -lnSqrt2Pi},
		{"NormPDF", NormPDF, inf, 0},
		{"NormPDF", NormPDF, -inf, 0},
		{"NormPDF", NormPDF, nan, nan},
		{"PhiInv", PhiInv, 0, -inf},
		{"PhiInv", PhiInv, 1, inf},
		{"PhiInv", PhiInv, 0.5, 0},
		{"PhiInv", PhiInv, -0.1, nan},
		{"PhiInv", PhiInv, 1.1, nan},
		{"PhiInv", PhiInv, nan, nan},
	}
	for _, tt := range tests {
		if got := tt.f(tt.x); !same(got, tt.want) {
			t.Errorf("%s(%v) = %v, want %v", tt.name, tt.x, got, tt.want)
		}
	}
	// Erfcx overflows exactly where 2e^{x²} passes MaxFloat64 (x ≈ −26.6287).
	if v := Erfcx(-26.628); math.IsInf(v, 0) || v < 1e308 {
		t.Errorf("Erfcx(-26.628) = %v, want finite ≈ 1.79e308", v)
	}
}

// TestFarTails checks the asymptotic behaviour far beyond the golden grid: r(u) ≈ −u,
// r(r+u) → 1, ln Φ(u) ≈ −u²/2 − ln(−u√(2π)).
func TestFarTails(t *testing.T) {
	for _, u := range []float64{-1e4, -1e6, -1e8, -1e10, -1e50, -1e150} {
		lp, r, d := LogPhiMills(u)
		if e := math.Abs(r/(-u-1/u) - 1); e > 1e-15 {
			t.Errorf("r(%g) = %v, want ≈ %v", u, r, -u-1/u)
		}
		if e := math.Abs(d - (1 - 1/(u*u))); e > 1e-15 {
			t.Errorf("d(%g) = %v, want ≈ 1 − 1/u²", u, d)
		}
		want := -0.5*u*u - math.Log(-u) - lnSqrt2Pi
		if e := math.Abs(lp/want - 1); e > 1e-15 {
			t.Errorf("LogPhi(%g) = %v, want ≈ %v", u, lp, want)
		}
		if lp != LogPhi(u) || r != InvMills(u) {
			t.Errorf("LogPhiMills(%g) disagrees with LogPhi/InvMills", u)
		}
	}
	for _, u := range []float64{1e4, 1e8, 1e300, inf} {
		lp, r, d := LogPhiMills(u)
		if lp != 0 || r != 0 || d != 0 {
			t.Errorf("LogPhiMills(%g) = %v, %v, %v, want 0, 0, 0", u, lp, r, d)
		}
	}
	lp, r, d := LogPhiMills(nan)
	if !math.IsNaN(lp) || !math.IsNaN(r) || !math.IsNaN(d) {
		t.Errorf("LogPhiMills(NaN) = %v, %v, %v", lp, r, d)
	}
}

// TestLogPhiMillsConsistent checks that the fused function returns exactly what the
// separate ones do and that d = −r′ (central differences).
func TestLogPhiMillsConsistent(t *testing.T) {
	for u := -60.0; u <= 30; u += 0.37 {
		lp, r, d := LogPhiMills(u)
		if lp != LogPhi(u) {
			t.Errorf("LogPhiMills(%v).logPhi = %v, LogPhi = %v", u, lp, LogPhi(u))
		}
		if r != InvMills(u) {
			t.Errorf("LogPhiMills(%v).r = %v, InvMills = %v", u, r, InvMills(u))
		}
		h := 1e-5
		fd := -(InvMills(u+h) - InvMills(u-h)) / (2 * h)
		if math.Abs(fd-d) > 1e-6*math.Max(d, 1e-300) {
			t.Errorf("d(%v) = %v, −dr/du by differences %v", u, d, fd)
		}
	}
}

func TestLogPhiDiffEdges(t *testing.T) {
	tests := []struct{ a, b, l, ra, rb float64 }{
		{1, 2, nan, nan, nan},
		{nan, 0, nan, nan, nan},
		{0, nan, nan, nan, nan},
		{1, 1, -inf, inf, inf},
		{inf, -inf, 0, 0, 0},
		{inf, 0, -ln2, 0, sqrt2OverPi},
		{0, -inf, -ln2, sqrt2OverPi, 0},
		{1e300, -1e300, 0, 0, 0},
	}
	for _, tt := range tests {
		l, ra, rb := LogPhiDiffRatios(tt.a, tt.b)
		if !same(l, tt.l) || !same(ra, tt.ra) || !same(rb, tt.rb) {
			t.Errorf("LogPhiDiffRatios(%v, %v) = %v, %v, %v, want %v, %v, %v",
				tt.a, tt.b, l, ra, rb, tt.l, tt.ra, tt.rb)
		}
	}
}

// TestLogPhiDiffDerivatives checks ∂ln D/∂a = ra and ∂ln D/∂b = −rb by central differences
// over random intervals in every regime (narrow, same tail, straddling, far tails), and
// that D agrees with Phi where Phi is accurate.
func TestLogPhiDiffDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 4000; i++ {
		m := (rng.Float64()*2 - 1) * []float64{2, 10, 40, 300}[i%4]
		w := math.Pow(10, -4+5*rng.Float64())
		a, b := m+w/2, m-w/2
		l, ra, rb := LogPhiDiffRatios(a, b)
		if math.IsNaN(l) || math.IsInf(l, 0) || math.IsNaN(ra) || math.IsNaN(rb) ||
			ra < 0 || rb < 0 {
			t.Fatalf("LogPhiDiffRatios(%v, %v) = %v, %v, %v", a, b, l, ra, rb)
		}
		h := 1e-4 * math.Min(w, 1/(1+math.Max(math.Abs(a), math.Abs(b))))
		da := (LogPhiDiff(a+h, b) - LogPhiDiff(a-h, b)) / (2 * h)
		db := (LogPhiDiff(a, b+h) - LogPhiDiff(a, b-h)) / (2 * h)
		// Differences of ln D lose |ln D|·eps/h; allow for it.
		tol := func(v float64) float64 { return 1e-5*math.Abs(v) + 1e-13*math.Abs(l)/h + 1e-300 }
		if math.Abs(da-ra) > tol(ra) {
			t.Errorf("a=%v b=%v: ra = %v, ∂lnD/∂a by differences %v", a, b, ra, da)
		}
		if math.Abs(db+rb) > tol(rb) {
			t.Errorf("a=%v b=%v: rb = %v, −∂lnD/∂b by differences %v", a, b, rb, -db)
		}
		if a <= 0 && l > -700 {
			want := math.Log(Phi(a) - Phi(b))
			if w > 0.1 && math.Abs(l-want) > 1e-12*math.Abs(want)+1e-14 {
				t.Errorf("LogPhiDiff(%v, %v) = %v, ln(Φ(a)−Φ(b)) = %v", a, b, l, want)
			}
		}
	}
}

// TestLogPhiDiffNarrowBoundary checks continuity where the Taylor branch hands over.
func TestLogPhiDiffNarrowBoundary(t *testing.T) {
	for _, m := range []float64{-300, -30, -3, -0.5, 0, 0.7, 4, 50} {
		h := narrowPhiDiff / (1 + math.Abs(m))
		l1, a1, b1 := LogPhiDiffRatios(m+h*(1-1e-9), m-h*(1-1e-9))
		l2, a2, b2 := LogPhiDiffRatios(m+h*(1+1e-9), m-h*(1+1e-9))
		for _, p := range [][2]float64{{l1, l2}, {a1, a2}, {b1, b2}} {
			if math.Abs(p[0]-p[1]) > 1e-8*math.Abs(p[0]) {
				t.Errorf("m=%v: jump at the narrow boundary: %v vs %v", m, p[0], p[1])
			}
		}
	}
}

func TestNoAllocs(t *testing.T) {
	var sink float64
	n := testing.AllocsPerRun(100, func() {
		a, b, c := LogPhiMills(-3)
		x, y, z := LogPhiDiffRatios(-3, -4)
		sink += a + b + c + x + y + z + LogPhi(2) + InvMills(1) + Erfcx(30) + Phi(1) + PhiInv(0.3)
	})
	if n != 0 {
		t.Errorf("%v allocations per run", n)
	}
	_ = sink
}

var benchSink float64

// benchArgs spreads the arguments over the range the IVM meets (|u| up to ~40).
func benchArgs() []float64 {
	us := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range us {
		us[i] = (rng.Float64()*2 - 1) * 8
		if i%16 == 0 {
			us[i] *= 5
		}
	}
	return us
}

func BenchmarkInvMills(b *testing.B) {
	us := benchArgs()
	for i := 0; b.Loop(); i++ {
		benchSink += InvMills(us[i&1023])
	}
}

func BenchmarkLogPhi(b *testing.B) {
	us := benchArgs()
	for i := 0; b.Loop(); i++ {
		benchSink += LogPhi(us[i&1023])
	}
}

func BenchmarkLogPhiMills(b *testing.B) {
	us := benchArgs()
	for i := 0; b.Loop(); i++ {
		l, r, d := LogPhiMills(us[i&1023])
		benchSink += l + r + d
	}
}

func BenchmarkErfcx(b *testing.B) {
	for _, x := range []float64{0.3, 3, 20} {
		b.Run(fmt.Sprint(x), func(b *testing.B) {
			for b.Loop() {
				benchSink += Erfcx(x)
			}
		})
	}
}

func BenchmarkLogPhiDiffRatios(b *testing.B) {
	us := benchArgs()
	for i := 0; b.Loop(); i++ {
		u := us[i&1023]
		l, ra, rb := LogPhiDiffRatios(u, u-0.7)
		benchSink += l + ra + rb
	}
}
