package ivm

import (
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/internal/rowhash"
	"github.com/ivmlab/ivm/kern"
)

// latentChunk is how many rows latents predicts together: the kernel values of a chunk
// against every distinct active input are held at once.
const latentChunk = 504 // a multiple of rowdot's 4×3 blocks, as engine's

// latents returns every model's latent means and, with variances, their variances (else
// vs is nil) at the rows of xs. Models of one kernel (one-vs-rest classes fitted together)
// share the kernel values of the active inputs they have in common, which are most of
// prediction's time and many of the inputs: on Fashion-MNIST's 60 000 images the ten
// classes' 21 080 active points are 10 580 distinct rows, chosen from the same candidates.
func latents(models []*engine.Model, xs *mat.Dense, variances bool) (mu, vs [][]float64) {
	mu = make([][]float64, len(models))
	if variances {
		vs = make([][]float64, len(models))
	}
	if len(models) < 2 || !sameKernels(models) {
		for c, m := range models {
			if variances {
				mu[c], vs[c] = m.Latent(xs, nil, nil)
			} else {
				mu[c] = m.LatentMean(xs, nil)
			}
		}
		return mu, vs
	}
	union, idx := distinctActive(models)
	n, _ := xs.Dims()
	var prior []float64
	if variances {
		prior = make([]float64, n)
		models[0].Kernel.Diag(prior, xs)
	}
	for c := range models {
		mu[c] = make([]float64, n)
		if variances {
			vs[c] = slices.Clone(prior)
		}
	}
	u, _ := union.Dims()
	chunks := (n + latentChunk - 1) / latentChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	type buffers struct{ all, one []float64 }
	bufs := make([]buffers, workers)
	pool.ForEachWorker(chunks, workers, func(w, ch int) {
		lo, hi := ch*latentChunk, min((ch+1)*latentChunk, n)
		b := &bufs[w]
		if b.all == nil {
			b.all = make([]float64, u*min(latentChunk, n))
			if variances { // the means are read from b.all itself
				b.one = make([]float64, maxSize(models)*min(latentChunk, n))
			}
		}
		rows := hi - lo
		all := mat.NewDense(rows, u, b.all[:u*rows])
		models[0].Kernel.K(all, xs.Slice(lo, hi, 0, xs.RawMatrix().Cols), union)
		for c, m := range models {
			if !variances {
				meanFromColumns(mu[c][lo:hi], m.Alpha(), all, idx[c])
				continue
			}
			d := m.Size()
			kt := mat.NewDense(rows, d, b.one[:d*rows])
			for j := range rows {
				src, dst := all.RawRowView(j), kt.RawRowView(j)
				for k, r := range idx[c] {
					dst[k] = src[r]
				}
			}
			m.LatentFromKernel(kt, mu[c][lo:hi], vs[c][lo:hi])
		}
	})
	return mu, vs
}

// meanFromColumns sets mu to the latent means Σ_k α_k k(x*, x_k) of a model whose active
// point k has its kernel values in column idx[k] of all (one row per row x*), summed in
// the order engine.Model.LatentMean sums them, so the means are the same bits.
func meanFromColumns(mu, alpha []float64, all *mat.Dense, idx []int) {
	for j := range mu {
		row := all.RawRowView(j)
		sum := 0.0
		for k, r := range idx {
			sum += row[r] * alpha[k]
		}
		mu[j] = sum
	}
}

// sameKernels reports whether every model's kernel is the first's: the same type, parameter
// names and parameter values.
func sameKernels(models []*engine.Model) bool {
	k0 := models[0].Kernel
	p0 := kernelParams(k0)
	_, inputs := models[0].XActive.Dims()
	for _, m := range models[1:] {
		k := m.Kernel
		if k.Name() != k0.Name() || !slices.Equal(k.ParamNames(), k0.ParamNames()) ||
			!slices.Equal(kernelParams(k), p0) {
			return false
		}
		if _, dim := m.XActive.Dims(); dim != inputs {
			return false
		}
	}
	return !slices.ContainsFunc(p0, math.IsNaN)
}

func kernelParams(k kern.Kernel) []float64 {
	p := make([]float64, k.NumParams())
	k.Params(p)
	return p
}

func maxSize(models []*engine.Model) int {
	d := 0
	for _, m := range models {
		d = max(d, m.Size())
	}
	return d
}

// distinctActive returns the distinct rows among the models' active inputs and, per model,
// the row of each of its active points in them. Rows that hash apart though equal (a zero's
// sign) are kept twice, which costs time, never accuracy.
func distinctActive(models []*engine.Model) (*mat.Dense, [][]int) {
	byHash := map[uint64][]int{} // hash of a row → its candidates in rows
	var rows [][]float64
	idx := make([][]int, len(models))
	for c, m := range models {
		idx[c] = make([]int, m.Size())
		for k := range m.Size() {
			row := m.XActive.RawRowView(k)
			h := rowhash.Sum(0, row)
			at := slices.IndexFunc(byHash[h], func(r int) bool {
				return slices.Equal(rows[r], row)
			})
			if at < 0 {
				byHash[h] = append(byHash[h], len(rows))
				idx[c][k] = len(rows)
				rows = append(rows, row)
				continue
			}
			idx[c][k] = byHash[h][at]
		}
	}
	_, dim := models[0].XActive.Dims()
	union := mat.NewDense(len(rows), dim, nil)
	for i, r := range rows {
		union.SetRow(i, r)
	}
	return union, idx
}
