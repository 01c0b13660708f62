package kern

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/param"
)

const fdTol = 1e-6

// TestGradFD checks Grad against central differences for the symmetric case (x2 == nil,
// with a non-symmetric dK) and the cross case, for every kernel and some sums.
func TestGradFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x1 := randMat(rng, 7, testDim)
	x2 := randMat(rng, 4, testDim)
	dSym := randMat(rng, 7, 7)
	dCross := randMat(rng, 7, 4)
	for _, tc := range testKernels() {
		for _, c := range []struct {
			name string
			x2   mat.Matrix
			dK   *mat.Dense
		}{{"sym", nil, dSym}, {"cross", x2, dCross}} {
			k := tc.k
			got := make([]float64, k.NumParams())
			for i := range got {
				got[i] = 1 // Grad adds
			}
			k.Grad(got, x1, c.x2, c.dK)
			for i := range got {
				got[i]--
			}
			want := naturalFD(k, func() float64 { return objective(k, x1, c.x2, c.dK) })
			if msg := gradMismatch(k.ParamNames(), got, want, fdTol); msg != "" {
				t.Errorf("%s %s: %s", tc.label, c.name, msg)
			}
		}
	}
}

// TestGradDiagFD checks GradDiag against central differences of Diag.
func TestGradDiagFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randMat(rng, 9, testDim)
	d := make([]float64, 9)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	for _, tc := range testKernels() {
		k := tc.k
		got := make([]float64, k.NumParams())
		k.GradDiag(got, x, d)
		want := naturalFD(k, func() float64 { return diagObjective(k, x, d) })
		if msg := gradMismatch(k.ParamNames(), got, want, fdTol); msg != "" {
			t.Errorf("%s: %s", tc.label, msg)
		}
	}
}

// TestGradFreeFD checks GradFree and GradFreeDiag against central differences in free
// (transformed) space, with softplus and exp, ties and grouped ARD scales.
func TestGradFreeFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x1 := randMat(rng, 8, testDim)
	x2 := randMat(rng, 3, testDim)
	dSym := randMat(rng, 8, 8)
	dCross := randMat(rng, 8, 3)
	d := make([]float64, 8)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	specs := []string{
		"rbf(gamma=1.3,variance=0.8)+bias(variance=0.3)+white(variance=0.2)",
		"rbfard(gamma=0.6,scales=[0.3,0.6,0.8],groups=[1,1,2,3,3])+" +
			"linard(groups=[1,1,2,3,3])+white",
		"mlpard(weight=2,bias=0.5,groups=2)+rbfard(groups=2,scale2=0.3)+bias",
		"lin(variance=0.4)+rbf(gamma=0.5)+rbf(variance=2)+mlp(weight=1,bias=1);" +
			"tie(rbf#2.variance,lin.variance,mlp.variance);" +
			"tie(rbf#2.gamma,rbf#3.gamma)",
		"rbfard(tie=none,scales=0.2)+linard(scales=0.7)+mlpard(weight=1,bias=2,scales=0.7)",
	}
	for _, spec := range specs {
		for _, tr := range []param.Transform{param.Softplus{}, param.Exp{}} {
			s := must(Parse(spec, testDim))
			s.SetPositiveTransform(tr)
			names := s.FreeNames()
			check := func(what string, got []float64, f func() float64) {
				want := freeFD(s, f)
				if msg := gradMismatch(names, got, want, fdTol); msg != "" {
					t.Errorf("%q %s %s: %s", spec, tr.Name(), what, msg)
				}
			}
			got := make([]float64, s.NumFree())
			for i := range got {
				got[i] = 7 // GradFree overwrites
			}
			s.GradFree(got, x1, nil, dSym)
			check("sym", got, func() float64 { return objective(s, x1, nil, dSym) })
			s.GradFree(got, x1, x2, dCross)
			check("cross", got, func() float64 { return objective(s, x1, x2, dCross) })
			s.GradFreeDiag(got, x1, d)
			check("diag", got, func() float64 { return diagObjective(s, x1, d) })
		}
	}
}

// TestGradCheckerFails makes sure the finite-difference comparison detects a wrong
// gradient: one scaled by 1 + 1e-4 and one with a swapped sign of a single entry.
func TestGradCheckerFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randMat(rng, 6, testDim)
	dK := randMat(rng, 6, 6)
	k := must(NewRBFARD(0.7, 1.1, []float64{0.3, 0.6, 0.8}, testGroups))
	got := make([]float64, k.NumParams())
	k.Grad(got, x, nil, dK)
	want := naturalFD(k, func() float64 { return objective(k, x, nil, dK) })
	if msg := gradMismatch(k.ParamNames(), got, want, fdTol); msg != "" {
		t.Fatalf("correct gradient rejected: %s", msg)
	}
	scaled := append([]float64(nil), got...)
	scaled[2] *= 1 + 1e-4
	if gradMismatch(k.ParamNames(), scaled, want, fdTol) == "" {
		t.Errorf("gradient scaled by 1+1e-4 accepted")
	}
	flipped := append([]float64(nil), got...)
	flipped[0] = -flipped[0]
	if gradMismatch(k.ParamNames(), flipped, want, fdTol) == "" {
		t.Errorf("gradient with a flipped sign accepted")
	}
}

// TestChainFree checks ChainFree against the transforms' factors with a tie.
func TestChainFree(t *testing.T) {
	s := must(Parse("rbf(gamma=2,variance=0.5)+lin(variance=3);tie(rbf.variance,lin.variance)", 0))
	// The first slot's value wins: lin's variance becomes 0.5.
	p := make([]float64, s.NumParams())
	s.Params(p)
	if p[2] != 0.5 {
		t.Fatalf("tied lin.variance = %v, want 0.5", p[2])
	}
	nat := []float64{1, 2, 3}
	got := make([]float64, s.NumFree())
	s.ChainFree(got, nat)
	sp := param.Softplus{}
	want := []float64{1 * sp.Factor(2), 2*sp.Factor(0.5) + 3*sp.Factor(0.5)}
	for i := range want {
		if !closeTo(got[i], want[i], 1e-15) {
			t.Errorf("free %d: got %v, want %v", i, got[i], want[i])
		}
	}
}
