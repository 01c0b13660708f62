package ivm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/rusage"
	"github.com/ivmlab/ivm/internal/subset"
)

// BenchmarkUpdateHalves is issue 49's measure of Update on full USPS: ten one-vs-rest
// classifiers with a fixed kernel fitted to a shuffled half of the 7 291 rows and updated
// with the other half, against Fit on all of them (the rows in the same order), timed in
// the same iteration so that the ratio compares them under the same load. It reports the
// update's seconds, Fit's and their ratio, in wall time and in CPU time (steadier on a
// shared machine), and the test set's accuracy and log loss of the half, the update and
// Fit; ns/op is the update's. An iteration takes about half a minute
// on two cores. The updates run under the profiler label phase=update, so that a profile
// can leave the fits out:
//
//	go test -run XXX -bench UpdateHalves -benchtime 1x -cpuprofile cpu.prof .
//	go tool pprof -tagfocus phase=update -top ivm.test cpu.prof
func BenchmarkUpdateHalves(b *testing.B) {
	if testing.Short() {
		b.Skip("fits ten USPS classifiers to 7 291 rows")
	}
	x, y, test := uspsRows(b, 7291)
	n, dim := x.Dims()
	cfg := ivm.Config{Scale: dataset.ScaleNone, FixedKernel: true, Kernel: uspsUpdateKernel}
	labels := pprof.Labels("phase", "update")
	for _, seed := range []uint64{0, 1, 2} {
		b.Run(fmt.Sprint("seed=", seed), func(b *testing.B) {
			perm := rand.New(rand.NewPCG(seed, 49)).Perm(n)
			xs, ys := subset.Dense(x, perm), subset.Of(y, perm)
			h := (n + 1) / 2
			half, err := ivm.Fit(xs.Slice(0, h, 0, dim), ys[:h], cfg)
			if err != nil {
				b.Fatal(err)
			}
			var full, updated *ivm.Predictor
			var fitTime, updateTime, fitCPU, updateCPU time.Duration
			for b.Loop() {
				b.StopTimer()
				start, cpu := time.Now(), cpuTime(b)
				if full, err = ivm.Fit(xs, ys, cfg); err != nil {
					b.Fatal(err)
				}
				fitTime, fitCPU = fitTime+time.Since(start), fitCPU+cpuTime(b)-cpu
				b.StartTimer()
				start, cpu = time.Now(), cpuTime(b)
				pprof.Do(context.Background(), labels, func(context.Context) {
					updated, err = half.Update(xs.Slice(h, n, 0, dim), ys[h:],
						ivm.UpdateOptions{})
				})
				if err != nil {
					b.Fatal(err)
				}
				updateTime, updateCPU = updateTime+time.Since(start), updateCPU+cpuTime(b)-cpu
			}
			b.ReportMetric(updateTime.Seconds()/float64(b.N), "update-s")
			b.ReportMetric(fitTime.Seconds()/float64(b.N), "fit-s")
			b.ReportMetric(updateTime.Seconds()/fitTime.Seconds(), "ratio")
			b.ReportMetric(updateCPU.Seconds()/float64(b.N), "update-cpu-s")
			b.ReportMetric(fitCPU.Seconds()/float64(b.N), "fit-cpu-s")
			b.ReportMetric(updateCPU.Seconds()/fitCPU.Seconds(), "cpu-ratio")
			for _, m := range []struct {
				name string
				p    *ivm.Predictor
			}{{"half", half}, {"update", updated}, {"fit", full}} {
				acc, loss := accuracyLogLoss(b, m.p, test.X, test.Y)
				b.ReportMetric(acc, m.name+"-acc%")
				b.ReportMetric(loss, m.name+"-logloss")
			}
		})
	}
}

// cpuTime is the process's CPU time so far; the benchmark needs it.
func cpuTime(b *testing.B) time.Duration {
	t, ok := rusage.CPU()
	if !ok {
		b.Skip("no CPU time on this platform")
	}
	return t
}
