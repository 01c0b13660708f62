package archipelago

import "testing"

// TestAcceptance checks the one-line summary of a chain's moves, a move never tried
// included (NaN, not a division by zero).
func TestAcceptance(t *testing.T) {
	st := Stats{InsertTried: 4, InsertAccepted: 1, DeleteTried: 2, DeleteAccepted: 2, MoveTried: 10,
		MoveAccepted: 5, GTried: 8, GAccepted: 6, HyperTried: 5, HyperAccepted: 1, Jitter: 3}
	want := "insert 0.25, delete 1.00, move 0.50, HMC g 0.75, HMC θ 0.20, amplitude NaN; " +
		"jitter fallbacks 3"
	if got := st.Acceptance(); got != want {
		t.Errorf("Acceptance() = %q, want %q", got, want)
	}
}
