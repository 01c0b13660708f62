package ivm

import (
	"math"
)

// queryLink is how a query unit's label depends on its latent, and so what a label would tell
// about it and how much including the row would shrink the posterior (the pseudo-site's ν of
// the batch rule).
//
// The latent ς the models report includes the kernel's white variance w, which stands for
// noise no label removes: the learnable part of the latent has variance ς − w.
type queryLink struct {
	// regression scores ½ ln((ς + σ²)/(w + σ²)): the entropy reduction of the latent that a
	// Gaussian observation with the noise model's σ² (noiseVar) brings.
	regression bool
	// Otherwise the label is a probit of the learnable latent g, p(y = +1 | g) = Φ((g + shift)
	// / s) with s² = probitVar, where g's mean is the reported latent (bias included); its
	// score is what it tells about the pool's labels (query_targets.go).
	shift, probitVar float64
	// gaussianSite makes the batch rule's pseudo-site a Gaussian observation of variance
	// noiseVar (regression, a label regression), else the probit's expected site.
	gaussianSite    bool
	white, noiseVar float64
}

// score is the information a regression's observation brings at a row whose latent variance
// (white included) is vs.
func (l *queryLink) score(vs float64) float64 {
	return 0.5 * math.Log1p(max(0, vs-l.white)/(l.white+l.noiseVar))
}

// siteNu is ν = 1/(ς + 1/β) of the pseudo-site the batch rule includes at a chosen row whose
// latent has mean m (bias included) and variance vs: a Gaussian observation's, or for a
// probit label the ADF ν averaged over the two labels under their predictive probabilities.
func (l *queryLink) siteNu(m, vs float64) float64 {
	if l.gaussianSite {
		return 1 / (vs + l.noiseVar)
	}
	label := newProbitLabel(m+l.shift, max(0, vs-l.white)+l.probitVar)
	return label.p[0]*label.shrink[0] + label.p[1]*label.shrink[1]
}
