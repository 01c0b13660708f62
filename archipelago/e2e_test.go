package archipelago

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// pinwheel is the small three-class pinwheel of testdata: 10 training and 40 test rows per
// class, labels 0..2.
type pinwheel struct {
	Classes       int
	Train, Test   *mat.Dense
	TrainY, TestY []int
}

func smallPinwheel(t *testing.T) *pinwheel {
	t.Helper()
	d, err := dataset.ReadFile(filepath.Join("testdata", "pinwheel_k3.csv.gz"),
		dataset.ReadOptions{TaskCol: dataset.TaskFirst, LabelCol: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := &pinwheel{Classes: 3}
	var tr, te []int
	for i, s := range d.Task {
		if s == "train" {
			tr = append(tr, i)
		} else {
			te = append(te, i)
		}
	}
	pick := func(idx []int) (*mat.Dense, []int) {
		x := mat.NewDense(len(idx), 2, nil)
		y := make([]int, len(idx))
		for a, i := range idx {
			x.SetRow(a, d.X.RawRowView(i)[:2])
			y[a] = int(d.Y[i])
		}
		return x, y
	}
	p.Train, p.TrainY = pick(tr)
	p.Test, p.TestY = pick(te)
	return p
}

// labelling keeps perClass labels per class, drawn at random, and −1 elsewhere.
func (p *pinwheel) labelling(perClass int, rng *rand.Rand) []int {
	out := make([]int, len(p.TrainY))
	for i := range out {
		out[i] = -1
	}
	for k := 0; k < p.Classes; k++ {
		var rows []int
		for i, l := range p.TrainY {
			if l == k {
				rows = append(rows, i)
			}
		}
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		for _, i := range rows[:perClass] {
			out[i] = k
		}
	}
	return out
}

// The chain is reproducible from its seed, keeps g = Lν through the O(n²)
// updates, and on the small pinwheel subset (one label per class, 27
// unlabelled points) classifies the test points far better than chance.
func TestArchipelagoEndToEnd(t *testing.T) {
	p := smallPinwheel(t)
	lab := p.labelling(1, rand.New(rand.NewPCG(1, 2)))
	opt := Options{Sweeps: 150, Burn: 50, Seed: 7}
	run := func() (*Sampler, *Chain) {
		sp, err := NewArchipelago(p.Train, lab, p.Classes, opt)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := sp.Run()
		if err != nil {
			t.Fatal(err)
		}
		return sp, ch
	}
	sp, ch := run()
	_, ch2 := run()
	if !reflect.DeepEqual(ch.RejectionTrace(), ch2.RejectionTrace()) ||
		!mat.Equal(ch.Samples[3].G, ch2.Samples[3].G) {
		t.Fatal("two chains with the same seed differ")
	}
	// The default annealed burn-in: the unlabelled factors' power rises as sweep/Anneal
	// over the first 3/4 of the 50 burn-in sweeps and is 1 from then on.
	for _, info := range ch.Trace {
		want := 1.0
		if info.Sweep < 37 {
			want = float64(info.Sweep) / 37
		}
		if info.Beta != want {
			t.Fatalf("sweep %d: unlabelled factors at power %v, want %v",
				info.Sweep, info.Beta, want)
		}
	}
	// g = Lν after the last sweep's moves.
	s := sp.st
	gk := make([]float64, s.n)
	nu := make([]float64, s.n)
	for k := 0; k < s.nc; k++ {
		for i := range nu {
			nu[i] = s.nu[i*s.nc+k]
		}
		s.ch.mulL(gk, nu)
		for i := range gk {
			if math.Abs(gk[i]-s.g[i*s.nc+k]) > 1e-8*(1+math.Abs(gk[i])) {
				t.Fatalf("g ≠ Lν at point %d, function %d: %v vs %v", i, k, gk[i], s.g[i*s.nc+k])
			}
		}
	}
	st := ch.Stats
	for name, r := range map[string]float64{
		"insert": Rate(st.InsertAccepted, st.InsertTried),
		"delete": Rate(st.DeleteAccepted, st.DeleteTried),
		"move":   Rate(st.MoveAccepted, st.MoveTried),
		"HMC g":  Rate(st.GAccepted, st.GTried),
		"HMC θ":  Rate(st.HyperAccepted, st.HyperTried),
	} {
		if !(r > 0.05) {
			t.Errorf("%s acceptance rate %v", name, r)
		}
	}
	probs, err := ch.Predict(p.Test, 3)
	if err != nil {
		t.Fatal(err)
	}
	e, perp, err := Evaluate(probs, p.TestY)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("error %.3f perplexity %.3f, rejections %v, stats %+v", e, perp,
		ch.Samples[len(ch.Samples)-1].Rejections, st)
	if e > 0.35 || perp > 2.5 {
		t.Errorf("error %.3f, perplexity %.3f: no better than a weak classifier (chance: 0.667, 3)",
			e, perp)
	}
	// Fantasies of each class land where that class's data are: with every
	// training label known, the nearest training point to a class-k fantasy is
	// mostly of class k (chance: one in three). The amplitude prior is the wide
	// one so that on these 30 points the densities are sharp enough for the
	// test to say something (with the default SD 0.5 the amplitude stays near
	// 1 here and the islands are broad: 37 of 60).
	all, err := NewArchipelago(p.Train, p.TrainY, p.Classes,
		Options{Sweeps: 100, Burn: 50, Seed: 9, AmpPriorSD: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	fch, err := all.Run()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	hits := 0
	for r := 0; r < 60; r++ {
		k := r % 3
		x, err := fch.Fantasy(fch.Samples[r%len(fch.Samples)], k, rng)
		if err != nil {
			t.Fatal(err)
		}
		if nearestClass(p, x) == k {
			hits++
		}
	}
	t.Logf("%d of 60 fantasies nearest to their class", hits)
	if hits < 40 {
		t.Errorf("only %d of 60 class-conditional fantasies are nearest to their class", hits)
	}
}

func nearestClass(p *pinwheel, x []float64) int {
	best, bd := -1, math.Inf(1)
	for i, l := range p.TrainY {
		d0, d1 := p.Train.At(i, 0)-x[0], p.Train.At(i, 1)-x[1]
		if d := d0*d0 + d1*d1; d < bd {
			best, bd = l, d
		}
	}
	return best
}

// The softmax GP comparator runs on the labelled rows only.
func TestComparators(t *testing.T) {
	p := smallPinwheel(t)
	lab := p.labelling(2, rand.New(rand.NewPCG(3, 4)))
	sp, err := NewSoftmaxGP(p.Train, lab, p.Classes, Options{Sweeps: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sp.st.n != 6 {
		t.Fatalf("softmax GP holds %d points, want the 6 labelled", sp.st.n)
	}
	ch, err := sp.Run()
	if err != nil {
		t.Fatal(err)
	}
	probs, err := ch.Predict(p.Test, 1)
	if err != nil {
		t.Fatal(err)
	}
	e, _, _ := Evaluate(probs, p.TestY)
	if e > 0.5 {
		t.Errorf("softmax GP error %.3f", e)
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{0, 1, 2})
	if _, err := NewArchipelago(x, []int{0, 1}, 2, Options{}); err == nil {
		t.Error("label count mismatch accepted")
	}
	if _, err := NewArchipelago(x, []int{0, 2, -1}, 2, Options{}); err == nil {
		t.Error("label outside the classes accepted")
	}
	x.Set(1, 0, math.NaN())
	if _, err := NewArchipelago(x, []int{0, 1, -1}, 2, Options{}); err == nil {
		t.Error("NaN input accepted")
	}
	x.Set(1, 0, 1)
	if _, err := NewArchipelago(x, []int{0, 1, -1}, 2, Options{Sweeps: 10, Burn: 10}); err == nil {
		t.Error("burn-in as long as the chain accepted")
	}
	if _, err := NewArchipelago(x, []int{0, 1, -1}, 2,
		Options{Sweeps: 30, Burn: 10, Anneal: 11}); err == nil {
		t.Error("annealing longer than the burn-in accepted")
	}
	if _, err := NewArchipelago(x, []int{0, 1, -1}, 2, Options{Anneal: -2}); err == nil {
		t.Error("annealing over −2 sweeps accepted")
	}
	for _, o := range []Options{{AmpPriorSD: -1}, {AmpPriorSD: math.Inf(1)},
		{AmpMoves: -2}, {AmpStep: -0.1}} {
		if _, err := NewArchipelago(x, []int{0, 1, -1}, 2, o); err == nil {
			t.Errorf("amplitude move options %+v accepted", o)
		}
	}
	if _, err := NewSoftmaxGP(x, []int{-1, -1, -1}, 2, Options{}); err == nil {
		t.Error("softmax GP without labels accepted")
	}
	if _, _, err := Evaluate([][]float64{{0.5, 0.5}}, []int{2}); err == nil {
		t.Error("test label outside the classes accepted")
	}
	if _, err := NewCov(2, true, 1, []float64{1, 2, 3}, 0, 0); err == nil {
		t.Error("wrong number of length-scales accepted")
	}
}

// ESS of an AR(1) series is close to n(1−ρ)/(1+ρ); Evaluate, Mode and Entropy
// give known values.
func TestDiagnostics(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n, rho = 20000, 0.8
	v := make([]float64, n)
	for i := 1; i < n; i++ {
		v[i] = rho*v[i-1] + rng.NormFloat64()
	}
	want := n * (1 - rho) / (1 + rho)
	if e := ESS(v); math.Abs(e-want) > 0.25*want {
		t.Errorf("ESS %v, want about %v", e, want)
	}
	ac := Autocorrelation(v, 3)
	if math.Abs(ac[1]-rho) > 0.03 || math.Abs(ac[2]-rho*rho) > 0.04 {
		t.Errorf("autocorrelation %v, want %v, %v", ac, rho, rho*rho)
	}
	e, perp, err := Evaluate([][]float64{{0.9, 0.1}, {0.4, 0.6}}, []int{0, 0})
	if err != nil || e != 0.5 || math.Abs(perp-math.Exp(-(math.Log(0.9)+math.Log(0.4))/2)) > 1e-12 {
		t.Errorf("Evaluate: %v %v %v", e, perp, err)
	}
	if h := Entropy([]float64{0.5, 0.5}); math.Abs(h-math.Ln2) > 1e-15 {
		t.Errorf("entropy %v", h)
	}
	if c := SweepsToConverge([]float64{0, 10, 20, 30, 40, 50, 50, 51, 49, 50}); c != 5 {
		t.Errorf("sweeps to converge %d, want 5", c)
	}
}
