package engine

import "strconv"

// DefaultKernel is the kernel ivm.Fit and multitask.Fit learn by Algorithm 2 when none is given:
// rbfard+bias+white for up to 32 inputs and rbf+bias+white above, with the rbf's inverse width γ =
// 1/D for D inputs. With few inputs one learnt scale per input switches irrelevant inputs off
// (bench/robust.sh's flips set; bench/RESULTS.md); with many (USPS has 256) the scales cost more
// time than they give and the isotropic kernel, the reference toolbox's, is used. γ = 1/D rather
// than the papers' γ = 1: on standardised inputs the squared distance between two points is about
// 2D, so γ = 1 makes every kernel value exp(−D) — on USPS exp(−256), a kernel with no gradient to
// learn from, and learning then switched the rbf off; γ = 1/D puts typical values near exp(−1),
// libsvm's choice of scale.
func DefaultKernel(dim int) string {
	g := strconv.FormatFloat(1/float64(max(dim, 1)), 'g', -1, 64)
	if dim <= 32 {
		return "rbfard(gamma=" + g + ")+bias+white"
	}
	return "rbf(gamma=" + g + ")+bias+white"
}
