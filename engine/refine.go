package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// RefineOptions configures Refine. The zero value gives the reference toolbox's settings.
type RefineOptions struct {
	// MaxSwaps caps the number of swaps; 0 means 10·d (d the active-set size), a negative
	// value skips the swap phase.
	MaxSwaps int
	// SwapTol ends the swap phase after the first swap whose net information change
	// |Δ_remove + Δ_add| is at most SwapTol bits; 0 means 1e−3.
	SwapTol float64
	// MaxSweeps caps the number of EP sweeps; 0 means 50, a negative value skips EP.
	MaxSweeps int
	// Tol ends EP after the first sweep in which no factor precision (see Inclusion) changed
	// by more than Tol (absolute); 0 means 1e−3.
	Tol float64
	// RecomputeEvery is the number of site updates (swaps and EP updates) after which the
	// factors, μ and ς are recomputed from the sites from scratch; they are also recomputed
	// after the swap phase and after every sweep. 0 means 100.
	RecomputeEvery int
	// Damping η ∈ (0, 1] mixes each EP update with the site it replaces in natural parameters: β
	// ← (1 − η)β_old + η β_new, βm ← (1 − η)β_old m_old + η β_new m_new. 0 means 1
	// (no damping), the reference's choice and right for the log-concave models (probit, ordinal),
	// whose EP iterations converge undamped in practice. For a model that is not log-concave (the
	// null category model) moment-matched sites can oscillate; use η ≈ 0.5 if the sweeps do not
	// converge.
	Damping float64
}

// RefineStats reports what Refine did.
type RefineStats struct {
	// Swaps is the number of swaps made (the last one included); SwapsConverged reports
	// that the last one's net change |Δ_remove + Δ_add| was within SwapTol (false: the cap
	// was reached, or there was no inactive point); SwapDelta is that net change in bits.
	Swaps          int
	SwapsConverged bool
	SwapDelta      float64
	// Sweeps is the number of EP sweeps made; Converged reports that the last one changed
	// no site precision by more than Tol; MaxDeltaBeta is the last sweep's largest change.
	// Models with exact sites (Gaussian noise) need no EP: Sweeps is 0, Converged true.
	Sweeps       int
	Converged    bool
	MaxDeltaBeta float64
	// Updates is the number of EP site updates; Kept counts those of a model that is not
	// log-concave where the moment-matched site could not be included (ν ≤ 0 at the
	// cavity) and the old site was put back unchanged.
	Updates, Kept int
	// Recomputes is the number of from-scratch recomputations of the factors.
	Recomputes int
}

// refineDefaults are the reference toolbox's settings.
const (
	refineSwapTol        = 1e-3
	refineTol            = 1e-3
	refineMaxSweeps      = 50
	refineSwapsPerPoint  = 10
	refineRecomputeEvery = 100
)

func (o RefineOptions) withDefaults(d int) (RefineOptions, error) {
	if o.SwapTol < 0 || math.IsNaN(o.SwapTol) || o.Tol < 0 || math.IsNaN(o.Tol) ||
		o.RecomputeEvery < 0 {
		return o,
			fmt.Errorf("ivm: refine tolerances %v, %v and recompute interval %d "+
				"must not be negative", o.SwapTol, o.Tol, o.RecomputeEvery)
	}
	if !(o.Damping >= 0 && o.Damping <= 1) {
		return o, fmt.Errorf("ivm: refine damping %v outside (0, 1]", o.Damping)
	}
	if o.MaxSwaps == 0 {
		o.MaxSwaps = refineSwapsPerPoint * d
	}
	if o.SwapTol == 0 {
		o.SwapTol = refineSwapTol
	}
	if o.MaxSweeps == 0 {
		o.MaxSweeps = refineMaxSweeps
	}
	if o.Tol == 0 {
		o.Tol = refineTol
	}
	if o.RecomputeEvery == 0 {
		o.RecomputeEvery = refineRecomputeEvery
	}
	if o.Damping == 0 {
		o.Damping = 1
	}
	return o, nil
}

// Refine improves the current active set and its sites, in two phases (extensions paper
// §3.5; the reference toolbox's ivmSelectPoints):
//
// Swaps. The active point whose removal loses the least information is removed and the
// best inactive point is added, until a swap's net information change is within SwapTol.
// Removing point i changes the entropy by Δ_remove = ½ log₂(1 − ς_i β_i) bits, with ς_i
// its posterior variance and β_i its posterior (factor) precision: 1 − ς_iβ_i is the
// ratio of its posterior to its cavity variance, so Δ_remove ≤ 0 is minus the information
// the site carries, and the point removed is the one maximising it (the smallest loss;
// ties go to the earliest inclusion; a point with 1 − ς_iβ_i ≤ 0 scores −∞). Δ_add ≥ 0
// is the usual entropy reduction of the point then added (Best), which may be the point
// just removed. The net change is Δ_remove + Δ_add; the swap that reaches the tolerance
// is made and counted. A swap whose net change is not finite (a point of a model that is
// not log-concave scoring +∞, see NegativeSitePrecision) also ends the phase.
//
// EP. Each sweep visits the active points in their order at the start of the sweep and
// replaces each site by the moment-matched site at its cavity: the point is removed
// (Remove) and included again (Include), which computes the site from the noise model's
// moments at the cavity marginal with the rules of Include (a negative precision is an
// error for a log-concave model and becomes NegativeSitePrecision otherwise); with
// Damping the included site is the damped mix of the new and the old one. If a model that
// is not log-concave gives ν ≤ 0 at a cavity, the new site cannot enter the factor and the
// old one is put back (RefineStats.Kept). Sweeps stop after the first one in which no
// factor precision (see Inclusion; the site precision except under the
// NegativeSitePrecision rule) changed by more than Tol. Models with exact sites
// (noise.ExactSite) skip this phase: their sites do not depend on the cavity.
//
// The factors, μ and ς are recomputed from the sites from scratch every RecomputeEvery
// site updates, after the swaps and after every sweep, so rounding does not accumulate;
// Best is up to date afterwards. Re-inclusion appends the point at the end of the
// inclusion order, so Active and Steps list the final order: a swap drops the removed
// point and appends the added one, and an EP sweep, which re-includes every point in
// turn, leaves the order as it was. Steps records, for every point, the site it now
// holds (for points updated by EP, the inclusion at which that site was computed).
//
// On an error the selector holds a consistent posterior of the sites it then has.
func (s *Selector) Refine(opt RefineOptions) (RefineStats, error) {
	var st RefineStats
	if s.size == 0 {
		return st, errors.New("ivm: no active points to refine; select some first")
	}
	if s.err != nil {
		return st, s.err
	}
	o, err := opt.withDefaults(s.size)
	if err != nil {
		return st, err
	}
	since := 0 // site updates since the last recomputation
	refresh := func() error {
		st.Recomputes++
		since = 0
		return s.recompute()
	}
	tick := func() error {
		if since++; since >= o.RecomputeEvery {
			return refresh()
		}
		return nil
	}

	for st.Swaps < o.MaxSwaps && s.size < s.n {
		net, err := s.swap()
		if err != nil {
			return st, err
		}
		st.Swaps++
		st.SwapDelta = net
		if err := tick(); err != nil {
			return st, err
		}
		if math.Abs(net) <= o.SwapTol {
			st.SwapsConverged = true
			break
		}
		if math.IsInf(net, 0) || math.IsNaN(net) {
			break // a point of a model that is not log-concave scored +∞: swapping cannot settle
		}
	}
	if st.Swaps > 0 && since > 0 {
		if err := refresh(); err != nil {
			return st, err
		}
	}

	if s.exact != nil {
		st.Converged = true
		return st, nil
	}
	for st.Sweeps < o.MaxSweeps {
		sweep := slices.Clone(s.order)
		maxDB := 0.0
		for _, i := range sweep {
			db, kept, err := s.epUpdate(i, o.Damping)
			if err != nil {
				return st, err
			}
			st.Updates++
			if kept {
				st.Kept++
			}
			maxDB = math.Max(maxDB, db)
			if err := tick(); err != nil {
				return st, err
			}
		}
		if since > 0 {
			if err := refresh(); err != nil {
				return st, err
			}
		}
		st.Sweeps++
		st.MaxDeltaBeta = maxDB
		if maxDB < o.Tol {
			st.Converged = true
			break
		}
	}
	return st, nil
}

// removalScore returns the position of the active point whose removal loses the least
// information and that change, ½ log₂(1 − ς_i β_i) ≤ 0 bits.
func (s *Selector) removalScore() (pos int, delta float64) {
	pos, delta = -1, math.Inf(-1)
	for k, i := range s.order {
		sc := math.Inf(-1)
		if v := 1 - s.varsigma[i]*s.postBeta(k); v > 0 {
			sc = 0.5 * math.Log2(v)
		}
		if pos < 0 || sc > delta {
			pos, delta = k, sc
		}
	}
	return pos, delta
}

// swap removes the least informative active point, adds the best inactive one and
// returns the net information change Δ_remove + Δ_add. If the addition fails the removed
// site is put back.
func (s *Selector) swap() (float64, error) {
	pos, dr := s.removalScore()
	return s.swapAt(pos, dr)
}

// swapAt is swap with the active point at position pos removed, dr the information change
// its removal makes.
func (s *Selector) swapAt(pos int, dr float64) (float64, error) {
	old := s.steps[pos]
	if err := s.Remove(pos); err != nil {
		return 0, err
	}
	j, da := s.best, s.bestD
	if err := s.Include(j); err != nil {
		return 0, s.restore(old, err)
	}
	return dr + da, nil
}

// restore includes again the removed inactive point old.Index with its old site after
// cause (possibly nil) made a replacement fail, and returns cause (with the restoring
// error, if any).
func (s *Selector) restore(old Inclusion, cause error) error {
	if s.active[old.Index] {
		return cause
	}
	if err := s.includeSite(old.Index, old.SiteM, s.oldPostBeta(old), old.SiteBeta); err != nil {
		if cause == nil {
			return fmt.Errorf("ivm: restoring the site of point %d: %w", old.Index, err)
		}
		return fmt.Errorf("%w (and restoring point %d failed: %v)", cause, old.Index, err)
	}
	return cause
}

// oldPostBeta is postBeta for an inclusion record no longer in s.steps.
func (s *Selector) oldPostBeta(rec Inclusion) float64 {
	if s.exact != nil {
		return rec.SiteBeta
	}
	return rec.FactorBeta
}

// epUpdate replaces the site of the active point i by the (damped) moment-matched site at
// its cavity and returns the change of its posterior precision. For a model that is not
// log-concave whose new site cannot be included (ν ≤ 0), the old site is put back and
// kept is true.
func (s *Selector) epUpdate(i int, eta float64) (dBeta float64, kept bool, err error) {
	pos := slices.Index(s.order, i)
	old := s.steps[pos]
	oldB := s.postBeta(pos)
	if err := s.Remove(pos); err != nil {
		return 0, false, err
	}
	if eta == 1 {
		err = s.Include(i)
	} else {
		err = s.includeDamped(i, old, eta)
	}
	if err == nil {
		return math.Abs(s.postBeta(s.size-1) - oldB), false, nil
	}
	if !s.concave && !(s.nu[i] > 0) {
		if rerr := s.restore(old, nil); rerr != nil {
			return 0, false, rerr
		}
		return 0, true, nil
	}
	return 0, false, s.restore(old, err)
}

// includeDamped includes the inactive point i with the site (1 − η)·old + η·new in natural
// parameters, new being the ADF site at its current marginal.
func (s *Selector) includeDamped(i int, old Inclusion, eta float64) error {
	mu, vs, g, nu := s.mu[i], s.varsigma[i], s.g[i], s.nu[i]
	if !(nu > 0) {
		return fmt.Errorf(
			"ivm: point %d has ν = %v; its inclusion would not reduce the posterior variance",
			i, nu)
	}
	bNew, mNew := nu/(1-nu*vs), mu+g/nu
	bOld := s.oldPostBeta(old)
	b := (1-eta)*bOld + eta*bNew
	m := ((1-eta)*bOld*old.SiteM + eta*bNew*mNew) / b
	site := b
	if !(b >= 0) {
		if s.concave {
			return fmt.Errorf(
				"ivm: negative site precision %v at point %d (ν = %v, ς = %v) for the "+
					"log-concave %s noise model: numerical breakdown",
				b, i, nu, vs, s.Noise.Name())
		}
		site = NegativeSitePrecision
	}
	return s.includeSite(i, m, b, site)
}
