package ivm

import (
	"math"

	"github.com/ivmlab/ivm/special"
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
	// score is what it tells about the pool's labels (query_targets.go) or, scored by BALD,
	// about g.
	shift, probitVar float64
	// gaussianSite makes the batch rule's pseudo-site a Gaussian observation of variance
	// noiseVar (regression, a label regression), else the probit's expected site.
	gaussianSite    bool
	white, noiseVar float64
}

// score is the information a label brings about the latent at a row whose latent mean (bias
// included) is m and variance vs (white included).
func (l *queryLink) score(m, vs float64) float64 {
	v := max(0, vs-l.white)
	if l.regression {
		return 0.5 * math.Log1p(v/(l.white+l.noiseVar))
	}
	return probitInformation(m+l.shift, v, l.probitVar)
}

// probitInformation is the mutual information, in nats, between a probit label
// p(y = +1 | g) = Φ(g/s) (s² = s2) and its latent g ~ N(m, v): the entropy of the predictive
// label, h(Φ(m/√(v + s²))), less the expected entropy given g, which Houlsby et al.'s
// approximation gives in closed form (spreadEntropy). The approximation can take it a hair
// below zero far in the tails; it is floored there.
func probitInformation(m, v, s2 float64) float64 {
	return max(0, binaryEntropyPhi(m/math.Sqrt(v+s2))-spreadEntropy(m, s2, v))
}

// binaryEntropyPhi is the entropy in nats of a label of probability Φ(x), accurate in both
// tails.
func binaryEntropyPhi(x float64) float64 {
	p, q := special.Phi(x), special.Phi(-x)
	h := 0.0
	if p > 0 {
		h -= p * special.LogPhi(x)
	}
	if q > 0 {
		h -= q * special.LogPhi(-x)
	}
	return h
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
