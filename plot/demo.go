package plot

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/plot/vg"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/toys"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// DemoKernel is the fixed kernel of Demo: the RBF of the data's generating process
// (toys.ClassificationGamma) with a moderate variance, a bias and a little white noise.
const DemoKernel = "rbf(gamma=10,variance=10)+bias+white(variance=0.01)"

// Demo trains a probit IVM with d = 100 active points of 400 on the classification toy
// problem of the IVM paper §4.1.2 (toys.ClassificationGP drawn with the seed; the
// kernel DemoKernel, fixed) and draws it as the paper's Fig. 3 (right) by Classification.
// It takes well under a second.
func Demo(seed uint64) (*Figure, error) {
	x, y, err := toys.ClassificationGP(400, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		return nil, err
	}
	k, err := kern.Parse(DemoKernel, 2)
	if err != nil {
		return nil, err
	}
	m, err := engine.FitFixed(x, y, k, noise.NewProbit(), 100,
		engine.Options{Criterion: engine.ExpectedEntropy, Workers: 1})
	if err != nil {
		return nil, err
	}
	return Classification(m, x, y, Options{
		Title: fmt.Sprintf("IVM on a 2-D toy (seed %d): %d of 400 active", seed, m.Size()),
	})
}

// DemoFigure writes Demo's figure to path (.png, .svg or .pdf), 14 × 12 cm when width and
// height are 0.
func DemoFigure(path string, width, height vg.Length, seed uint64) error {
	if width == 0 && height == 0 {
		width, height = 14*vg.Centimeter, 12*vg.Centimeter
	}
	fig, err := Demo(seed)
	if err != nil {
		return err
	}
	return fig.Save(path, width, height)
}
