package kern_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/param"
)

func ExampleParse() {
	// The reference toolbox's kernel; omitted parameters take the IVM paper's defaults.
	s, err := kern.Parse("rbf(gamma=1) + bias + white", 2)
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	fmt.Println(s.FreeNames())

	// ARD kernels over 4 inputs in 2 groups share their input scales by default.
	a, err := kern.Parse("rbfard(groups=2, scales=[0.5,0.25]) + linard(groups=2)", 4)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.FreeNames())

	_, err = kern.Parse("rbf(gama=1)", 2)
	fmt.Println(err)
	// Output:
	// rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+white(variance=0.1353352832366127)
	// [rbf.gamma rbf.variance bias.variance white.variance]
	// [rbfard.gamma rbfard.variance rbfard.scale1 rbfard.scale2 linard.variance]
	// kern: spec "rbf(gama=1)" at offset 4: rbf has no parameter "gama" (want gamma, variance)
}

func ExampleSum_GradFree() {
	s, err := kern.Parse("rbf+white", 1)
	if err != nil {
		panic(err)
	}
	s.SetPositiveTransform(param.Exp{}) // free parameters are log γ, log variance, log white
	x := mat.NewDense(2, 1, []float64{0, 1})

	// f = Σ_ij K_ij: dK is all ones.
	dK := mat.NewDense(2, 2, []float64{1, 1, 1, 1})
	g := make([]float64, s.NumFree())
	s.GradFree(g, x, nil, dK)
	for i, name := range s.FreeNames() {
		fmt.Printf("%s %.6f\n", name, g[i])
	}
	// Output:
	// rbf.gamma -0.606531
	// rbf.variance 3.213061
	// white.variance 0.270671
}
