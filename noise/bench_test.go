package noise

import (
	"math/rand/v2"
	"testing"
)

var benchSink float64

// BenchmarkMoments measures one Moments call, the IVM's per-point cost after each
// inclusion, at latent marginals spread like those of a run.
func BenchmarkMoments(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	mus := make([]float64, 1024)
	vss := make([]float64, 1024)
	for i := range mus {
		mus[i] = 3 * rng.NormFloat64()
		vss[i] = 0.05 + rng.Float64()
	}
	for _, mc := range modelCases() {
		b.Run(mc.name, func(b *testing.B) {
			nt := len(mc.targets)
			for i := 0; b.Loop(); i++ {
				j := i & 1023
				l, g, nu := mc.model.Moments(i%nt, mc.targets[i%nt], mus[j], vss[j])
				benchSink += l + g + nu
			}
		})
	}
}
