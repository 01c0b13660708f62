package engine

import (
	"math"
	"testing"
)

// A classifier's swaps score an active point out by what its label would bring as a
// candidate: removed, the point's expected score (expectedDelta, at the posterior without
// its site) is the information expectedRemoval said it takes away.
func TestExpectedRemovalIsTheCandidatesScore(t *testing.T) {
	s := rfSelector(t, "class_train_500.csv", "probit", Options{Workers: 1,
		Criterion: ExpectedEntropy})
	if err := s.Select(30); err != nil {
		t.Fatal(err)
	}
	pos, loss := s.expectedRemoval()
	i := s.order[pos]
	if err := s.Remove(pos); err != nil {
		t.Fatal(err)
	}
	s.scoreRange(i, i+1)
	lz, _, nu := s.Noise.Moments(i, s.Y[i], s.mu[i], s.varsigma[i])
	s.logZ[i] = lz
	got := s.expectedDelta(i, delta(s.varsigma[i], nu))
	if math.Abs(got+loss) > 1e-9*(1+got) {
		t.Errorf("point %d: removal loses %v bits, its score as a candidate is %v", i, -loss, got)
	}
	if !(loss < 0) {
		t.Errorf("removal loss %v: a point's label brings information", loss)
	}
}
