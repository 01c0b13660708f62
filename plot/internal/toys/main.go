// Command toys writes the two-dimensional toy problems of the IVM paper §4.1 and the
// extensions paper's null category toy as CSV files, for drawing the papers' figures with
// ivm train and ivm plot:
//
//	go run ./plot/internal/toys -out DIR [-seed 1]
//
// Files (label in the last column; "?" marks an unlabelled row):
//
//	fig2-left.csv    regression, input scales [0, 1] (IVM paper Fig. 2 left)
//	fig2-right.csv   regression, input scales [1, 0.2] (Fig. 2 right)
//	fig3-left.csv    classification, mixture of three Gaussians (Fig. 3 left)
//	fig3-right.csv   classification, labels from a GP prior sample (Fig. 3 right)
//	fig4-left.csv    seven ordered categories 3 units apart along x2 (Fig. 4 left)
//	fig4-right.csv   seven ordered categories in polar coordinates (Fig. 4 right)
//	fig5.csv         two interlocking classes, 10 % labelled (extensions paper Fig. 5)
//	sine1d.csv       a noisy sine in one input (a 1-D regression figure)
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/toys"
)

func main() {
	out := flag.String("out", ".", "directory to write the CSV files to")
	seed := flag.Uint64("seed", 1, "seed of every generator")
	flag.Parse()
	if err := run(*out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "toys:", err)
		os.Exit(1)
	}
}

func run(dir string, seed uint64) error {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }
	type gen func() (*mat.Dense, []float64, error)
	files := []struct {
		name string
		g    gen
	}{
		{"fig2-left.csv", func() (*mat.Dense, []float64, error) {
			return toys.Regression(500, [2]float64{0, 1}, rng())
		}},
		{"fig2-right.csv", func() (*mat.Dense, []float64, error) {
			return toys.Regression(500, [2]float64{1, 0.2}, rng())
		}},
		{"fig3-left.csv", func() (*mat.Dense, []float64, error) {
			return toys.ClassificationMixture(100, rng())
		}},
		{"fig3-right.csv", func() (*mat.Dense, []float64, error) {
			return toys.ClassificationGP(500, rng())
		}},
		{"fig4-left.csv", func() (*mat.Dense, []float64, error) {
			return toys.Ordinal(30, 7, rng())
		}},
		{"fig4-right.csv", func() (*mat.Dense, []float64, error) {
			return toys.PolarOrdinal(30, 7, rng())
		}},
		{"fig5.csv", func() (*mat.Dense, []float64, error) {
			x, _, observed, err := toys.Interlocking(400, 0.1, rng())
			return x, observed, err
		}},
		{"sine1d.csv", func() (*mat.Dense, []float64, error) { return toys.Sine1D(100, rng()) }},
	}
	for _, f := range files {
		x, y, err := f.g()
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		_, d := x.Dims()
		names := []string{"x1", "x2"}[:d]
		if d == 1 {
			names = []string{"x"}
		}
		if err := write(filepath.Join(dir, f.name),
			&dataset.Data{X: x, Y: y, Names: names, LabelName: "y"}); err != nil {
			return err
		}
	}
	return nil
}

func write(path string, d *dataset.Data) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := dataset.WriteCSV(f, d); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
