package ivm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// BenchmarkQuery100k times a query of 10 rows from a pool of 100 000 of D inputs (20, and
// USPS's 256) against a binary or regression model of d active points (random inputs and
// sites: the time depends on the sizes alone). Results and the command: bench/RESULTS.md.
func BenchmarkQuery100k(b *testing.B) {
	benchmark100k(b, func(p *Predictor, pool *mat.Dense) error {
		_, err := p.Query(pool, 10, QueryOptions{})
		return err
	})
}

// benchmark100k runs f on pools of 100 000 rows of D inputs and binary and regression models
// of d active points.
func benchmark100k(b *testing.B, f func(p *Predictor, pool *mat.Dense) error) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	for _, task := range []Task{Binary, Regression} {
		for _, dim := range []int{20, 256} {
			pool := randomRows(rng, n, dim)
			for _, d := range []int{500, 1000, 1500} {
				p := randomPredictor(b, rng, task, d, dim)
				b.Run(fmt.Sprintf("%v/D=%d/d=%d", task, dim, d), func(b *testing.B) {
					for range b.N {
						if err := f(p, pool); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func randomRows(rng *rand.Rand, n, dim int) *mat.Dense {
	x := mat.NewDense(n, dim, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	return x
}

// randomPredictor is a probit (Binary) or Gaussian (Regression) model of d random active
// inputs and sites.
func randomPredictor(b *testing.B, rng *rand.Rand, task Task, d, dim int) *Predictor {
	k, err := kern.Parse(fmt.Sprintf("rbf(gamma=%g)+bias+white(variance=0.01)", 0.5/float64(dim)),
		dim)
	if err != nil {
		b.Fatal(err)
	}
	siteM, siteBeta := make([]float64, d), make([]float64, d)
	for i := range d {
		siteM[i], siteBeta[i] = rng.NormFloat64(), 1+4*rng.Float64()
	}
	nm, classes := noise.Model(noise.NewProbit()), []float64{0, 1}
	if task == Regression {
		nm, classes = noise.NewGaussian(0.1), nil
	}
	m, err := engine.NewModel(k, nm, randomRows(rng, d, dim), nil, siteM, siteBeta, nil)
	if err != nil {
		b.Fatal(err)
	}
	return &Predictor{Task: task, Classes: classes, Kind: &SingleKind{Model: m, Sharpness: 1}}
}

// BenchmarkPredict100k is BenchmarkQuery100k's Predict alone, the floor under a query's
// time: every pool row's latent mean and variance.
func BenchmarkPredict100k(b *testing.B) {
	benchmark100k(b, func(p *Predictor, pool *mat.Dense) error {
		_, err := p.Predict(pool)
		return err
	})
}
