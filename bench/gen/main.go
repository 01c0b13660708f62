// Command gen writes the data sets of bench/ in libsvm format with labels ±1. The kind is
// chosen with -kind:
//
//   - gauss (the default): two Gaussian classes with unit variance and means ±sep·1 in dim
//     dimensions;
//   - moons: two interleaving half-moons in 2-D with Gaussian noise of sd -noise (like
//     scikit-learn's make_moons(noise=0.3)); the upper moon is −1, the lower +1;
//   - flips: a make_classification-style problem in dim dimensions: -informative dimensions
//     holding two Gaussian clusters per class at the vertices of the hypercube [±1]^informative
//     (XOR layout in 2-D), each cluster linearly mixed by a random matrix fixed by
//     -problem-seed, the remaining dimensions standard normal noise; a fraction -flip of the
//     labels (exactly round(flip·n) points, chosen at random) is flipped;
//   - digits: USPS one-vs-rest, read from the CSV file -in (label in the first column),
//     label +1 for -digit and −1 otherwise, pixels unchanged.
//
// -seed drives the sampling; the same -problem-seed gives the same flips clusters, so a
// training and a test file drawn with different seeds come from the same distribution.
//
//	go run ./bench/gen -n 20000 -dim 20 -seed 1 > train.libsvm
//	go run ./bench/gen -kind moons -n 2000 -seed 1 > train.libsvm
//	go run ./bench/gen -kind flips -n 5000 -flip 0.1 -seed 1 > train.libsvm
//	go run ./bench/gen -kind digits -in data/usps/usps_train.csv.gz -digit 3 > train.libsvm
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

func main() {
	kind := flag.String("kind", "gauss", "data set: gauss, moons, flips or digits")
	n := flag.Int("n", 20000, "number of points (gauss, moons, flips)")
	dim := flag.Int("dim", 20,
		"input dimension (gauss, flips; flips uses 10 when -dim is not given)")
	sep := flag.Float64("sep", 0.25, "gauss: class means are ±sep in every dimension")
	seed := flag.Uint64("seed", 1, "random seed of the sample")
	noise := flag.Float64("noise", 0.3, "moons: sd of the Gaussian noise added to each coordinate")
	informative := flag.Int("informative", 2, "flips: number of informative dimensions")
	flip := flag.Float64("flip", 0, "flips: fraction of labels flipped")
	problemSeed := flag.Uint64("problem-seed", 1, "flips: seed of the cluster mixing matrices")
	in := flag.String("in", "", "digits: USPS CSV file (label first)")
	digit := flag.Int("digit", 3, "digits: the digit labelled +1")
	flag.Parse()
	dimSet := false
	flag.Visit(func(f *flag.Flag) { dimSet = dimSet || f.Name == "dim" })

	rng := rand.New(rand.NewPCG(*seed, 7))
	var d *dataset.Data
	var err error
	switch *kind {
	case "gauss":
		d, err = gauss(rng, *n, *dim, *sep)
	case "moons":
		d, err = moons(rng, *n, *noise)
	case "flips":
		dd := *dim
		if !dimSet {
			dd = 10
		}
		d, err = flips(rng, *n, dd, *informative, *flip, *problemSeed)
	case "digits":
		d, err = digits(*in, *digit)
	default:
		err = fmt.Errorf("unknown -kind %q (want gauss, moons, flips or digits)", *kind)
	}
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriter(os.Stdout)
	if err := dataset.WriteLibSVM(w, d); err != nil {
		fail(err)
	}
	if err := w.Flush(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

func checkN(n, dim int) error {
	if n < 1 || dim < 1 {
		return fmt.Errorf("need -n ≥ 1 and -dim ≥ 1 (got %d, %d)", n, dim)
	}
	return nil
}

// gauss draws two unit-variance Gaussian classes with means ±sep·1 (the original bench data).
func gauss(rng *rand.Rand, n, dim int, sep float64) (*dataset.Data, error) {
	if err := checkN(n, dim); err != nil {
		return nil, err
	}
	x := mat.NewDense(n, dim, nil)
	y := make([]float64, n)
	for i := range y {
		y[i] = 1
		if rng.IntN(2) == 0 {
			y[i] = -1
		}
		for j := 0; j < dim; j++ {
			x.Set(i, j, y[i]*sep+rng.NormFloat64())
		}
	}
	return &dataset.Data{X: x, Y: y}, nil
}

// moons draws make_moons-style data: the upper half-circle (cos t, sin t) for label −1 and
// the lower one (1 − cos t, ½ − sin t) for +1, t uniform on [0, π], each coordinate plus
// N(0, noise²) noise. Labels are equally likely.
func moons(rng *rand.Rand, n int, noise float64) (*dataset.Data, error) {
	if err := checkN(n, 2); err != nil {
		return nil, err
	}
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		t := math.Pi * rng.Float64()
		var a, b float64
		if rng.IntN(2) == 0 {
			y[i] = -1
			a, b = math.Cos(t), math.Sin(t)
		} else {
			y[i] = 1
			a, b = 1-math.Cos(t), 0.5-math.Sin(t)
		}
		x.Set(i, 0, a+noise*rng.NormFloat64())
		x.Set(i, 1, b+noise*rng.NormFloat64())
	}
	return &dataset.Data{X: x, Y: y}, nil
}

// flips draws a make_classification-style problem (n_clusters_per_class = 2, class_sep = 1,
// no redundant features): the 2^inf vertices of [±1]^inf are the cluster centres, a centre
// belonging to class +1 when its number of positive coordinates is even (XOR for inf = 2);
// each point picks a class, then one of its clusters, at random, and is centre + z·A with z
// standard normal and A the cluster's inf×inf matrix with entries uniform on [−1, 1] drawn
// from problemSeed. The other dim − inf coordinates are standard normal noise. Finally
// round(flip·n) labels chosen at random are flipped.
func flips(rng *rand.Rand, n, dim, inf int, flip float64, problemSeed uint64) (*dataset.Data,
	error) {
	if err := checkN(n, dim); err != nil {
		return nil, err
	}
	if inf < 1 || inf > dim || inf > 20 {
		return nil, fmt.Errorf("need 1 ≤ -informative ≤ min(-dim, 20) (got %d)", inf)
	}
	if !(flip >= 0 && flip <= 1) {
		return nil, fmt.Errorf("need 0 ≤ -flip ≤ 1 (got %v)", flip)
	}
	// Cluster centres of each class: vertex v (bit k set = coordinate k is +1).
	var centres [2][][]float64
	for v := 0; v < 1<<inf; v++ {
		c := make([]float64, inf)
		pos := 0
		for k := range c {
			c[k] = -1
			if v>>k&1 == 1 {
				c[k] = 1
				pos++
			}
		}
		centres[pos%2] = append(centres[pos%2], c)
	}
	// Two clusters per class, as make_classification's default, picked from the vertices.
	prng := rand.New(rand.NewPCG(problemSeed, 11))
	type cluster struct {
		centre []float64
		a      *mat.Dense
	}
	var clusters [2][]cluster
	for cls := range centres {
		vs := centres[cls]
		prng.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
		for _, c := range vs[:min(2, len(vs))] {
			a := mat.NewDense(inf, inf, nil)
			for i := 0; i < inf; i++ {
				for j := 0; j < inf; j++ {
					a.Set(i, j, 2*prng.Float64()-1)
				}
			}
			clusters[cls] = append(clusters[cls], cluster{c, a})
		}
	}
	x := mat.NewDense(n, dim, nil)
	y := make([]float64, n)
	z := make([]float64, inf)
	for i := range y {
		cls := rng.IntN(2)
		y[i] = float64(2*cls - 1) // class 0 (even vertices) is −1
		cl := clusters[cls][rng.IntN(len(clusters[cls]))]
		for k := range z {
			z[k] = rng.NormFloat64()
		}
		for j := 0; j < inf; j++ {
			s := cl.centre[j]
			for k := range z {
				s += z[k] * cl.a.At(k, j)
			}
			x.Set(i, j, s)
		}
		for j := inf; j < dim; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	nf := int(math.Round(flip * float64(n)))
	for _, i := range rng.Perm(n)[:nf] {
		y[i] = -y[i]
	}
	return &dataset.Data{X: x, Y: y}, nil
}

// digits reads a USPS CSV file (label first, header) and relabels it one-vs-rest.
func digits(path string, digit int) (*dataset.Data, error) {
	if path == "" {
		return nil, errors.New("-kind digits needs -in FILE")
	}
	d, err := dataset.ReadFile(path, dataset.ReadOptions{Format: dataset.CSV,
		LabelCol: dataset.LabelFirst})
	if err != nil {
		return nil, err
	}
	pos := 0
	for i, v := range d.Y {
		if math.IsNaN(v) || v != math.Trunc(v) {
			return nil, fmt.Errorf("%s: row %d: label %v is not a digit", path, i+1, v)
		}
		if int(v) == digit {
			d.Y[i] = 1
			pos++
		} else {
			d.Y[i] = -1
		}
	}
	if pos == 0 {
		return nil, fmt.Errorf("%s: no row has label %d", path, digit)
	}
	return &dataset.Data{X: d.X, Y: d.Y}, nil
}
