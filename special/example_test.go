package special_test

import (
	"fmt"

	"github.com/ivmlab/ivm/special"
)

// Far in the lower tail N(u) and Φ(u) both underflow, but their ratio and ln Φ do not.
func ExampleLogPhiMills() {
	for _, u := range []float64{0, -5, -40, -1e6} {
		logPhi, r, d := special.LogPhiMills(u)
		fmt.Printf("u=%-6g ln Φ=%-12.6g r=%-10.6g r(r+u)=%.6f\n", u, logPhi, r, d)
	}
	// Output:
	// u=0      ln Φ=-0.693147    r=0.797885   r(r+u)=0.636620
	// u=-5     ln Φ=-15.065      r=5.1865     r(r+u)=0.967304
	// u=-40    ln Φ=-804.608     r=40.025     r(r+u)=0.999377
	// u=-1e+06 ln Φ=-5e+11       r=1e+06      r(r+u)=1.000000
}

// The ordered categorical model needs ln(Φ(a) − Φ(b)) and N(a)/(Φ(a) − Φ(b)),
// N(b)/(Φ(a) − Φ(b)) when both ends lie far in a tail.
func ExampleLogPhiDiffRatios() {
	logD, ra, rb := special.LogPhiDiffRatios(-30, -31)
	fmt.Printf("ln D=%.6g  N(a)/D=%.6g  N(b)/D=%.6g\n", logD, ra, rb)
	// Output:
	// ln D=-454.321  N(a)/D=30.0333  N(b)/D=1.70459e-12
}
