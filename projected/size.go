package projected

import (
	"math"
	"runtime/debug"

	"github.com/ivmlab/ivm/internal/pool"
)

// Centres is the number of centres m of a projected model of n training rows when
// Options.Centres is 0: 5 000 up to 10 000 rows, then growing as n^¼ to at most 7 500
// (fewer where fewer rows are left outside the held-out ones, or where the search found
// that half its centres did as well as all of them). Its m×m system costs 8m² bytes
// (200 MB at 5 000, 450 MB at 7 500) and its fit n·m²/2 multiply-adds; larger m buys a
// little accuracy at a much larger cost (bench/RESULTS.md records the runs).
//
// A two-class model has one latent boundary to draw, where k classes have about k−1: it
// gets at most centresPerBoundary centres per boundary, and its search as many per
// boundary of searchPerBoundary, so that it costs a fraction of a many-class model's while
// the many-class models (five or more classes) keep their counts.
func Centres(n, classes int) int {
	m := int(min(7500, math.Round(5000*math.Sqrt(math.Sqrt(max(float64(n), 1e4)/1e4)))))
	return min(m, centresPerBoundary*max(classes-1, 1))
}

// searchCentresFor is how many centres the search's fits use for a task of the given
// number of classes (see Centres).
func searchCentresFor(classes int) int {
	return min(searchCentres, searchPerBoundary*max(classes-1, 1))
}

// Bytes estimates what Fit allocates for n training rows of dim inputs, m centres (0:
// Centres(n, classes)) and the given classes, beyond the inputs themselves: the larger of
// the search's kernel matrices and the final fit's m×m system with its blocks of kernel
// rows and its scaled centres. A caller checks it against the memory it may use before
// any work.
func Bytes(n, dim, m, classes int) float64 {
	if m <= 0 {
		m = Centres(n, classes)
	}
	m = min(m, n)
	atOnce := searchesAtOnce(n, dim, classes, 0)
	search := max(searchBytes(n, dim, classes, false)*float64(atOnce),
		searchBytes(n, dim, classes, true))
	fm := float64(m + additiveBound(dim))
	// A block of kernel rows for the system's sums, and one for each block of rows whose
	// leave-one-out latents are solved at once.
	systems, rows := 1.0, float64((1+looBlocksAtOnce)*blockRows+panelRows)
	if classes <= 2 && fm <= finalLambdaFeatures {
		// finalLambda's unregularised copy, and a copy and its blocks for each λ scored at
		// once.
		systems += 1 + lambdasAtOnce
		rows += lambdasAtOnce * looBlocksAtOnce * blockRows
	}
	final := 8 * (systems*fm*fm + fm*rows + 3*fm*float64(dim))
	if classes == 1 && dim <= localMaxInputs {
		final += localBytes(n, dim, fm)
	}
	return max(search, final)
}

// localBytes estimates what withLocal allocates beside the final system of fm features for
// n rows of dim inputs: the scaled rows, their weighted copy and the model's, the residuals
// and the tree's order, and each goroutine's block of residuals' kernel rows.
func localBytes(n, dim int, fm float64) float64 {
	rows := float64(n) * (3*float64(dim) + 3)
	blocks := float64(pool.Workers(0)) * (blockRows*fm + residualBlock*float64(dim))
	return 8 * (rows + blocks)
}

// searchBytes estimates what one scaling's search allocates: its rows, kernel matrices and
// systems; with additive, what withAdditive allocates after the searches instead.
func searchBytes(n, dim, classes int, additive bool) float64 {
	nf := float64(min(n, searchRows))
	nv := float64(min(n/5, valRows))
	ms := float64(min(n, searchCentresFor(classes)))
	kernels := nf*float64(dim) + nf*ms + nv*ms + ms*ms
	if additive {
		ma := ms + float64(additiveBound(dim))
		narrower := ms * ms // K(C, C) at a narrower width (narrowerBeside)
		return 8 * (kernels + narrower + nv*ma + 3*ma*ma + additiveBlock*ma)
	}
	return 8 * (kernels + 3*ms*ms + 3*blockRows*ms)
}

// additiveBound is the most knots an additive part of dim inputs may have (0 where the
// search offers none).
func additiveBound(dim int) int {
	if dim > additiveMaxInputs {
		return 0
	}
	return min(dim*manyCodeValues, maxAdditiveKnots)
}

// parallelBytes bounds the memory of the scalings' searches run side by side: two of them
// on up to 8 000 rows of a few hundred inputs fit well within a default training's memory;
// with more inputs (Fashion-MNIST's 784) their scaled rows' copies add too much, and they
// run one at a time.
const parallelBytes = 768 << 20

// searchesAtOnce is how many scalings' searches Fit runs side by side on the given workers
// (0: every core): two where they take at most parallelBytes and half the process's memory
// limit (debug.SetMemoryLimit; ivm train sets it from -max-mem), the rest being left to the
// inputs and the collector's slack.
func searchesAtOnce(n, dim, classes, workers int) int {
	two := 2 * searchBytes(n, dim, classes, false)
	if two > parallelBytes || two > float64(debug.SetMemoryLimit(-1))/2 {
		return 1
	}
	return min(2, pool.Workers(workers))
}
