package kern

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/param"
)

// TestReferenceKernelObjective reproduces the kernel objective of the reference toolbox's
// run class500_d100_fixed (REFERENCE-FACTS.md, "Kernel objective"): with the active set's
// inputs X_I, site means m and precisions β, A = K_II + diag(1/β),
// f = ½ ln|A| + ½ mᵀA⁻¹m and ∂f/∂K_II = ½(A⁻¹ − A⁻¹m mᵀA⁻¹), chained through the kernel
// gradient and the exp transform's factor. The reference reports f = 17.156048596557923
// and the gradient with respect to the log parameters
// [rbf γ, rbf variance, bias variance, white variance].
func TestReferenceKernelObjective(t *testing.T) {
	data, err := reftest.ReadCSV(reftest.Path("data", "class_train_500.csv.gz"))
	checkNoErr(t, err)
	active, err := reftest.ReadCSV(reftest.Path("runs", "class500_d100_fixed_active.csv"))
	checkNoErr(t, err)
	// rows: x1, x2 of each active point in inclusion order, then its site mean and precision.
	rows := make([][]float64, len(active))
	for k, a := range active {
		p := data[int(a[1])-1]
		rows[k] = []float64{p[0], p[1], a[4], a[5]}
	}
	n := len(rows)
	x := mat.NewDense(n, 2, nil)
	m := mat.NewVecDense(n, nil)
	for i, r := range rows {
		x.Set(i, 0, r[0])
		x.Set(i, 1, r[1])
		m.SetVec(i, r[2])
	}
	s := must(Parse("rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+"+
		"white(variance=0.1353352832366127)", 2))
	s.SetPositiveTransform(param.Exp{})
	var K mat.Dense
	s.K(&K, x, nil)
	A := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			A.SetSym(i, j, K.At(i, j))
		}
		A.SetSym(i, i, A.At(i, i)+1/rows[i][3])
	}
	var ch mat.Cholesky
	if !ch.Factorize(A) {
		t.Fatal("Cholesky failed")
	}
	var alpha mat.VecDense
	checkNoErr(t, ch.SolveVecTo(&alpha, m))
	obj := 0.5*ch.LogDet() + 0.5*mat.Dot(m, &alpha)
	if want := 17.156048596557923; !closeTo(obj, want, 1e-12) {
		t.Errorf("objective %.17g, reference %.17g", obj, want)
	}
	var Ainv mat.SymDense
	checkNoErr(t, ch.InverseTo(&Ainv))
	dK := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			dK.Set(i, j, 0.5*(Ainv.At(i, j)-alpha.AtVec(i)*alpha.AtVec(j)))
		}
	}
	g := make([]float64, s.NumFree())
	s.GradFree(g, x, nil, dK)
	want := []float64{5.6927019801776169, 4.7123694853396554,
		0.23140254841503199, -7.3443274775735548}
	for i := range want {
		if !closeTo(g[i], want[i], 1e-12) {
			t.Errorf("%s: gradient %.17g, reference %.17g", s.FreeNames()[i], g[i], want[i])
		}
	}
	free := make([]float64, s.NumFree())
	s.Free(free)
	for i, v := range free[:2] {
		if v != 0 {
			t.Errorf("log parameter %d = %v, want 0", i, v)
		}
	}
	if math.Abs(free[2]+2) > 1e-15 || math.Abs(free[3]+2) > 1e-15 {
		t.Errorf("log bias/white variance %v %v, want −2", free[2], free[3])
	}
}
