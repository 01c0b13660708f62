// Package subset picks rows: by index, by class, at random, and scaled as a model sees them.
package subset

import (
	"math/rand/v2"
	"slices"

	"github.com/ivmlab/ivm/dataset"
	"gonum.org/v1/gonum/mat"
)

// Of returns v's elements at idx (the targets or classes of rows idx).
func Of[T any](v []T, idx []int) []T {
	out := make([]T, len(idx))
	for r, i := range idx {
		out[r] = v[i]
	}
	return out
}

// Dense copies rows idx of x.
func Dense(x mat.Matrix, idx []int) *mat.Dense {
	if d, ok := x.(*mat.Dense); ok {
		return dataset.RowsOf(d, idx)
	}
	_, dim := x.Dims()
	out := mat.NewDense(len(idx), dim, nil)
	for r, i := range idx {
		for c := range dim {
			out.Set(r, c, x.At(i, c))
		}
	}
	return out
}

// ByClass returns, per class, the rows of y holding it.
func ByClass(y, classes []float64) [][]int {
	rows := make([][]int, len(classes))
	for i, v := range y {
		if c, ok := slices.BinarySearch(classes, v); ok {
			rows[c] = append(rows[c], i)
		}
	}
	return rows
}

// Random returns, in ascending order, k of the row indices 0…n−1 drawn at random by
// the generator (seed, stream), or all n when k ≥ n.
func Random(n, k int, seed, stream uint64) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return Sample(rows, k, rand.New(rand.NewPCG(seed, stream)))
}

// Sample returns at most max of rows, a random subset in ascending order.
func Sample(rows []int, max int, rng *rand.Rand) []int {
	if len(rows) > max {
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:max]
		slices.Sort(rows)
	}
	return rows
}

// Scaled returns the rows idx of x, scaled by sc.
func Scaled(x mat.Matrix, sc *dataset.Scaler, idx []int) (*mat.Dense, error) {
	_, dim := x.Dims()
	out := mat.NewDense(max(len(idx), 1), dim, nil)
	for i, r := range idx {
		mat.Row(out.RawRowView(i), r, x)
	}
	return sc.Apply(out)
}

// ClassIndices returns each target's index in classes (ascending).
func ClassIndices(y, classes []float64) []int {
	out := make([]int, len(y))
	for i, v := range y {
		out[i], _ = slices.BinarySearch(classes, v)
	}
	return out
}

// All returns 0, 1, …, n−1.
func All(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Others returns, in ascending order, the rows 0…n−1 not in rows (distinct, any order).
func Others(n int, rows []int) []int {
	in := make([]bool, n)
	for _, r := range rows {
		in[r] = true
	}
	out := make([]int, 0, n-len(rows))
	for r, ok := range in {
		if !ok {
			out = append(out, r)
		}
	}
	return out
}
