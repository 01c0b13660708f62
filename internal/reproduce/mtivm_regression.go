package reproduce

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/internal/rusage"
	"github.com/ivmlab/ivm/internal/toys"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/multitask"
)

// The regression experiment of the learning-to-learn paper (§5.1, Fig. 4): tasks sampled from a GP
// with k = θ₂ exp(−θ₁ E) + θ₃⁻¹ δ + θ₄, E = ½‖x − x'‖², θ = [1, 1, 100,
// 0]; in this package's kernels that is rbf(γ = θ₁, variance = θ₂) + white(θ₃⁻¹) +
// bias(θ₄).
const (
	// RegressionTrueKernel is the generating kernel (θ₄ = 0: no bias term).
	RegressionTrueKernel = "rbf(gamma=1,variance=1)+white(variance=0.01)"
	// RegressionStartKernel is the starting estimate θ̂ = [10, 10, 10, 10].
	RegressionStartKernel = "rbf(gamma=10,variance=10)+white(variance=0.1)+bias(variance=10)"
	// regressionStartNoiseless and regressionStartNoise are the same start with the white
	// term as the Gaussian noise variance (RegressionConfig.NoiseIters).
	regressionStartNoiseless = "rbf(gamma=10,variance=10)+bias(variance=10)"
	regressionStartNoise     = 0.1
)

// RegressionConfig sets up the regression experiment; the zero value is the paper's.
type RegressionConfig struct {
	// Tasks is M (default 4: the paper's sub-sampling budgets of 150–600 per task are 600–2400
	// points in total); PerTask is N_m (default 2000); Dim the input dimension (default 4);
	// Test the number of test inputs of the KL divergence (default 200).
	Tasks, PerTask, Dim, Test int
	// ActiveSizes are the MT-IVM's d (default the paper's 400, 500, …, 1000, then 1200, 1500
	// and 2000, so that MT-IVM has a budget as costly as the largest sub-samples and the
	// comparison at equal CPU time is measured, not extrapolated); Subsample the random
	// sub-sample sizes per task (default 150, 200, …, 600).
	ActiveSizes, Subsample []int
	// Runs is the number of independent data sets (default 10).
	Runs int
	// OuterIters and KernelIters are the MT-IVM's outer iterations and SCG steps per
	// iteration (default 5 and 50); SubsampleIters the SCG steps of sub-sampling (default 200).
	OuterIters, KernelIters, SubsampleIters int
	// Safeguard turns on Learn's held-out safeguard. Off by default: the paper accepts every
	// outer iteration. With the safeguard MT-IVM's KL at large d is several times higher,
	// because the held-out likelihood barely depends on the bias variance θ₄, so an early
	// iterate with θ₄ still near its start of 10 is kept, and θ₄ dominates the KL. Without
	// it, few active points spread far apart can leave the noise variance unidentified and
	// drive the white variance to zero (bench/RESULTS.md records the runs).
	Safeguard bool
	// NoiseIters bounds the SCG steps of the MT-IVM's noise step (default 20; negative: no
	// noise step). With a noise step the white variance θ₃⁻¹ is learnt as the tasks' shared
	// Gaussian noise variance by Algorithm 2's noise step (LearnOptions.NoiseIters: the
	// inactive points' predictive likelihood given the active set, exact for Gaussian
	// noise) instead of as a kernel parameter of the active-set evidence; the kernel is
	// then rbf + bias, the variance starts at θ̂₃⁻¹ = 0.1, and the learnt kernel of the KL
	// is rbf + bias + white(σ²). Why: entropy selection spreads the active points apart,
	// and with few of them per task the active-set evidence separates the white variance
	// from the rbf variance poorly: without the noise step the learnt white variance
	// scatters widely about the truth at the small budgets, and the KL with it. The
	// sub-sampling baseline is unchanged: its random subsets have close pairs that identify
	// the white variance.
	NoiseIters int
	// Seed seeds the data; Workers bounds goroutines (0: all cores).
	Seed    uint64
	Workers int
	// Log receives one line per fit (nil: none).
	Log io.Writer
}

func (c *RegressionConfig) defaults() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Tasks, 4)
	def(&c.PerTask, 2000)
	def(&c.Dim, 4)
	def(&c.Test, 200)
	def(&c.Runs, 10)
	def(&c.OuterIters, 5)
	def(&c.KernelIters, 50)
	def(&c.SubsampleIters, 200)
	def(&c.NoiseIters, 20)
	if c.ActiveSizes == nil {
		c.ActiveSizes = []int{400, 500, 600, 700, 800, 900, 1000, 1200, 1500, 2000}
	}
	if c.Subsample == nil {
		c.Subsample = []int{150, 200, 250, 300, 350, 400, 450, 500, 550, 600}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// RegressionPoint is one budget of one method, over the runs.
type RegressionPoint struct {
	// Method is "mtivm" or "subsample"; Size is d or the per-task sub-sample; Points the
	// points used in total (d, or Size × tasks).
	Method string
	Size   int
	Points int
	// KL holds, per run, KL(θ‖θ̂) between the zero-mean Gaussians the true and the learnt
	// kernel give the test targets, divided by the number of test points (nats per point).
	KL []float64
	// CPU and Wall are the training times per run in seconds (CPU: the process's user +
	// system time, all goroutines).
	CPU, Wall []float64
	// Kernels are the learnt kernels per run.
	Kernels []string
}

// RegressionTasks draws M tasks of the experiment: N inputs per task, half from N(+1, 0.125 I)
// and half from N(−1, 0.125 I), targets from the GP with the true kernel, Gaussian noise
// models with zero bias (σ² = 1e−6: the noise is the kernel's white term), and the test
// inputs.
func RegressionTasks(c RegressionConfig, rng *rand.Rand) ([]multitask.Task, *mat.Dense, error) {
	c.defaults()
	truth, err := kern.Parse(RegressionTrueKernel, c.Dim)
	if err != nil {
		return nil, nil, err
	}
	tasks := make([]multitask.Task, c.Tasks)
	for m := range tasks {
		x := toys.MultiTaskInputs(c.PerTask, c.Dim, rng)
		y, err := toys.SampleGP(x, truth, rng)
		if err != nil {
			return nil, nil, err
		}
		tasks[m] = multitask.Task{Name: fmt.Sprint(m + 1), X: x, Y: y,
			Noise: multitask.NewZeroMeanGaussian(0)}
	}
	return tasks, toys.MultiTaskInputs(c.Test, c.Dim, rng), nil
}

// RunRegression runs the experiment: for every run a new set of tasks; MT-IVM at every
// active-set size and random sub-sampling at every per-task size, each starting from θ̂ =
// [10, 10, 10, 10]; the KL divergence per test point and the training times.
func RunRegression(c RegressionConfig) ([]RegressionPoint, error) {
	c.defaults()
	truth, err := kern.Parse(RegressionTrueKernel, c.Dim)
	if err != nil {
		return nil, err
	}
	var out []RegressionPoint
	for _, d := range c.ActiveSizes {
		out = append(out, RegressionPoint{Method: "mtivm", Size: d, Points: d})
	}
	for _, p := range c.Subsample {
		out = append(out, RegressionPoint{Method: "subsample", Size: p, Points: p * c.Tasks})
	}
	for run := 0; run < c.Runs; run++ {
		rng := rand.New(rand.NewPCG(c.Seed, uint64(run)))
		tasks, xt, err := RegressionTasks(c, rng)
		if err != nil {
			return nil, err
		}
		for i := range out {
			pt := &out[i]
			start, fitTasks := RegressionStartKernel, tasks
			noiseStep := pt.Method == "mtivm" &&
				c.NoiseIters > 0 // negative: the paper's white kernel
			if noiseStep {
				// Fresh noise models: the noise step changes them, and the tasks are shared
				// by every fit of the run.
				start, fitTasks = regressionStartNoiseless, make([]multitask.Task, len(tasks))
				for m, t := range tasks {
					t.Noise = multitask.NewZeroMeanGaussian(regressionStartNoise)
					fitTasks[m] = t
				}
			}
			k, err := kern.Parse(start, c.Dim)
			if err != nil {
				return nil, err
			}
			// Netlab's absolute stopping rule (the papers' SCG) for both methods: with the
			// looser relative one the sub-sampling learner, whose objective sums over up to
			// 2400 points, stopped with the bias variance still near its starting 10 on
			// the larger sub-samples, a handicap that was the learner's, not the method's.
			opt := multitask.LearnOptions{Iters: c.OuterIters, KernelIters: c.KernelIters,
				LastIterate: !c.Safeguard, Workers: c.Workers,
				NetlabTolerances: true}
			if pt.Method == "mtivm" {
				opt.ActiveSize = pt.Size
				if noiseStep {
					opt.NoiseIters = c.NoiseIters
				}
			} else {
				opt.PerTask, opt.Seed, opt.Iters, opt.KernelIters =
					pt.Size, uint64(run), 1, c.SubsampleIters
			}
			cpu0, _ := rusage.CPU()
			t0 := time.Now()
			if _, _, err := multitask.Learn(fitTasks, k, opt); err != nil {
				return nil, fmt.Errorf("run %d, %s %d: %w", run+1, pt.Method, pt.Size, err)
			}
			wall := time.Since(t0).Seconds()
			cpu1, _ := rusage.CPU()
			learnt := k
			if noiseStep {
				var v [1]float64
				fitTasks[0].Noise.Params(v[:])
				w, err := kern.NewWhite(v[0])
				if err != nil {
					return nil, fmt.Errorf("run %d, %s %d: learnt noise variance: %w",
						run+1, pt.Method, pt.Size, err)
				}
				learnt = kern.NewSum(append(k.Parts(), w)...)
			}
			kl, err := toys.KernelKL(truth, learnt, xt)
			if err != nil {
				return nil, fmt.Errorf("run %d, %s %d: %w", run+1, pt.Method, pt.Size, err)
			}
			n, _ := xt.Dims()
			pt.KL = append(pt.KL, kl/float64(n))
			pt.CPU = append(pt.CPU, (cpu1 - cpu0).Seconds())
			pt.Wall = append(pt.Wall, wall)
			pt.Kernels = append(pt.Kernels, learnt.String())
			fmt.Fprintf(c.Log, "run %d %s %d: KL %.4g nats/point, CPU %.2f s, wall %.2f s, %s\n",
				run+1, pt.Method, pt.Size, kl/float64(n), (cpu1 - cpu0).Seconds(), wall, learnt)
		}
	}
	return out, nil
}

// WriteRegression prints the table behind Fig. 4: per method and budget, the points used,
// the mean ± sd of the KL divergence per test point and the mean CPU and wall times.
func WriteRegression(w io.Writer, pts []RegressionPoint) {
	fmt.Fprintf(w, "%-10s %6s %7s %22s %10s %10s\n",
		"method", "size", "points", "KL nats/test point", "CPU s", "wall s")
	for _, p := range pts {
		kl, sd := sampleMeanSD(p.KL)
		cpu, _ := sampleMeanSD(p.CPU)
		wall, _ := sampleMeanSD(p.Wall)
		fmt.Fprintf(w, "%-10s %6d %7d %12.4f ± %-7.4f %10.2f %10.2f\n",
			p.Method, p.Size, p.Points, kl, sd, cpu, wall)
	}
}

// CPUComparison compares the methods at equal CPU time: for every sub-sampling budget, the
// MT-IVM's mean KL interpolated (linearly in mean CPU time between its budgets) at that
// budget's mean CPU time. OK is false where the MT-IVM has no budget that cheap or that
// expensive (no interpolation possible).
type CPUComparison struct {
	Size             int
	CPU              float64
	SubsampleKL      float64
	MTIVMKL          float64
	OK, MTIVMIsLower bool
}

// CompareAtCPU returns the CPU-time comparison of the regression table.
func CompareAtCPU(pts []RegressionPoint) []CPUComparison {
	type xy struct{ cpu, kl float64 }
	var mt []xy
	for _, p := range pts {
		if p.Method == "mtivm" {
			c, _ := sampleMeanSD(p.CPU)
			k, _ := sampleMeanSD(p.KL)
			mt = append(mt, xy{c, k})
		}
	}
	for i := 1; i < len(mt); i++ { // sort by CPU time (insertion sort: a handful of points)
		for j := i; j > 0 && mt[j].cpu < mt[j-1].cpu; j-- {
			mt[j], mt[j-1] = mt[j-1], mt[j]
		}
	}
	var out []CPUComparison
	for _, p := range pts {
		if p.Method != "subsample" {
			continue
		}
		c, _ := sampleMeanSD(p.CPU)
		k, _ := sampleMeanSD(p.KL)
		r := CPUComparison{Size: p.Size, CPU: c, SubsampleKL: k, MTIVMKL: math.NaN()}
		for i := 0; i+1 < len(mt); i++ {
			if mt[i].cpu <= c && c <= mt[i+1].cpu {
				f := 0.0
				if mt[i+1].cpu > mt[i].cpu {
					f = (c - mt[i].cpu) / (mt[i+1].cpu - mt[i].cpu)
				}
				r.MTIVMKL, r.OK = mt[i].kl+f*(mt[i+1].kl-mt[i].kl), true
				break
			}
		}
		if !r.OK && len(mt) > 0 && c >= mt[len(mt)-1].cpu {
			// Beyond the MT-IVM's largest budget: its most expensive run already took less time.
			r.MTIVMKL, r.OK = mt[len(mt)-1].kl, true
		}
		r.MTIVMIsLower = r.OK && r.MTIVMKL < r.SubsampleKL
		out = append(out, r)
	}
	return out
}

// PointsToReach returns the smallest number of points with which the method's mean KL per
// test point is below threshold, or 0 if it never is.
func PointsToReach(pts []RegressionPoint, method string, threshold float64) int {
	best := 0
	for _, p := range pts {
		if k, _ := sampleMeanSD(p.KL); p.Method == method && k < threshold &&
			(best == 0 || p.Points < best) {
			best = p.Points
		}
	}
	return best
}
