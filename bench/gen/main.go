// Command gen writes the synthetic benchmark data sets of bench/: two Gaussian classes with
// unit variance and means ±sep·1 in dim dimensions, labels ±1, in libsvm format.
//
//	go run ./bench/gen -n 20000 -dim 20 -seed 1 > train.libsvm
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

func main() {
	n := flag.Int("n", 20000, "number of points")
	dim := flag.Int("dim", 20, "input dimension")
	sep := flag.Float64("sep", 0.25, "class means are ±sep in every dimension")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	rng := rand.New(rand.NewPCG(*seed, 7))
	x := mat.NewDense(*n, *dim, nil)
	y := make([]float64, *n)
	for i := range y {
		y[i] = 1
		if rng.IntN(2) == 0 {
			y[i] = -1
		}
		for j := 0; j < *dim; j++ {
			x.Set(i, j, y[i]**sep+rng.NormFloat64())
		}
	}
	w := bufio.NewWriter(os.Stdout)
	if err := dataset.WriteLibSVM(w, &dataset.Data{X: x, Y: y}); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
