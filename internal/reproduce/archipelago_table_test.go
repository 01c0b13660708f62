package reproduce

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ivmlab/ivm/archipelago"
	"gonum.org/v1/gonum/mat"
)

// archTestdata holds the small pinwheel of the archipelago package's tests.
const archTestdata = "../../archipelago/testdata"

// Errors and ordinary perplexities print with three decimals; a perplexity from a
// probability at the 1e−300 floor prints in exponent form, not as a hundred digits.
func TestFmtStat(t *testing.T) {
	for v, want := range map[float64]string{0.0761: "0.076", 2.379: "2.379",
		999999: "999999.000", 2.52e109: "2.52e+109"} {
		if got := archFmtStat(v); got != want {
			t.Errorf("fmtStat(%g) = %q, want %q", v, got, want)
		}
	}
}

// The wine and oil splits have exactly the sizes asked for (89/89 of 178; 134/266
// of 400 drawn from 1000), each class in proportion, whatever the class sizes.
func TestStratifiedSplitSizes(t *testing.T) {
	for _, c := range []struct {
		sizes         []int
		nTrain, total int
	}{
		{[]int{59, 71, 48}, 89, 178},
		{[]int{333, 334, 333}, 134, 400},
		{[]int{500, 250, 250}, 134, 400},
		{[]int{1, 1, 1, 1, 1, 1, 1}, 3, 5},
	} {
		var y []int
		for k, n := range c.sizes {
			for i := 0; i < n; i++ {
				y = append(y, k)
			}
		}
		tr, te := stratifiedSplit(y, len(c.sizes), c.nTrain, c.total, rand.New(rand.NewPCG(1, 2)))
		if len(tr) != c.nTrain || len(tr)+len(te) != c.total {
			t.Errorf("sizes %v: %d train + %d test, want %d + %d",
				c.sizes, len(tr), len(te), c.nTrain, c.total-c.nTrain)
		}
		seen := map[int]bool{}
		for _, i := range append(append([]int(nil), tr...), te...) {
			if seen[i] {
				t.Fatalf("sizes %v: row %d twice", c.sizes, i)
			}
			seen[i] = true
		}
		for k, n := range c.sizes {
			got := 0
			for _, i := range tr {
				if y[i] == k {
					got++
				}
			}
			if want := float64(n) * float64(c.nTrain) /
				float64(len(y)); math.Abs(float64(got)-want) >= 1 {
				t.Errorf("sizes %v: class %d has %d training rows, want %.2f ± 1",
					c.sizes, k, got, want)
			}
		}
	}
}

// Only the two sampled methods run as chains; the labellings a cell draws are
// reproducible from its seed and have perClass labels per class.
func TestRunChainAndLabellings(t *testing.T) {
	p, err := loadPinwheel(archTestdata, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := archLabellings(p, 2, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := archLabellings(p, 2, 3, 5)
	for r := range a {
		count := make([]int, p.Classes)
		for i, l := range a[r] {
			if l != b[r][i] {
				t.Fatalf("labelling %d differs between draws with one seed", r)
			}
			if l >= 0 {
				count[l]++
			}
		}
		for k, n := range count {
			if n != 2 {
				t.Errorf("labelling %d: class %d has %d labels, want 2", r, k, n)
			}
		}
	}
	if _, err := archRunChain("PrGP", p, a[0], archipelago.Options{Sweeps: 5}); err == nil {
		t.Error("RunChain accepted PrGP")
	}
	if ch, err := archRunChain("SmGP", p, a[0],
		archipelago.Options{Sweeps: 6, Burn: 2}); err != nil || len(ch.Samples) == 0 {
		t.Errorf("SmGP chain: %v", err)
	}
}

// loadPinwheel keeps trainTotal training rows split as evenly as the classes allow (the
// first ones of each class), every row with 0, and refuses sizes that leave a class empty.
func TestLoadPinwheelTrainTotal(t *testing.T) {
	for _, c := range []struct{ total, n int }{{0, 30}, {10, 10}, {17, 17}, {30, 30}} {
		p, err := loadPinwheel(archTestdata, 3, c.total)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.TrainY) != c.n || len(p.TestY) != 120 {
			t.Fatalf("total %d: %d training and %d test rows, want %d and 120",
				c.total, len(p.TrainY), len(p.TestY), c.n)
		}
		count := make([]int, 3)
		for _, y := range p.TrainY {
			count[y]++
		}
		for k, n := range count {
			if lo := c.n / 3; n < lo || n > lo+1 || (k > 0 && n > count[k-1]) {
				t.Errorf("total %d: class counts %v", c.total, count)
				break
			}
		}
	}
	all, _ := loadPinwheel(archTestdata, 3, 0)
	some, _ := loadPinwheel(archTestdata, 3, 9)
	if !mat.Equal(all.Train.Slice(0, 3, 0, 2), some.Train.Slice(0, 3, 0, 2)) {
		t.Error("the kept rows are not the first of their class")
	}
	for _, bad := range []int{-1, 2} {
		if _, err := loadPinwheel(archTestdata, 3, bad); err == nil {
			t.Errorf("%d training points accepted", bad)
		}
	}
}

// With Chains > 1 a labelling's prediction is the average of independent chains'
// predictive distributions; chain 0 keeps the labelling's seed, so one chain per
// labelling gives what it always gave.
func TestPooledChains(t *testing.T) {
	p, err := loadPinwheel(archTestdata, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	labs, err := archLabellings(p, 1, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	so := archipelago.Options{Sweeps: 20, Burn: 10}
	seed := archChainSeed(5, 0)
	if extraChainSeed(seed, 0) != seed || extraChainSeed(seed, 1) == seed ||
		extraChainSeed(seed, 1) == extraChainSeed(seed, 2) {
		t.Fatal("chain seeds: the first must be the labelling's, the others distinct")
	}
	var avg [][]float64
	for c := 0; c < 2; c++ {
		o := so
		o.Seed = extraChainSeed(seed, c)
		ch, err := archRunChain("SmGP", p, labs[0], o)
		if err != nil {
			t.Fatal(err)
		}
		pc, err := ch.Predict(p.Test, o.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if avg == nil {
			avg = pc
			continue
		}
		for i := range avg {
			for k := range avg[i] {
				avg[i][k] = (avg[i][k] + pc[i][k]) / 2
			}
		}
	}
	wantErr, wantPerp, err := archipelago.Evaluate(avg, p.TestY)
	if err != nil {
		t.Fatal(err)
	}
	got, _, _, err := archRunLabelling(p, labs[0], []string{"SmGP"}, so, seed, 2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got["SmGP"][0]-wantErr) > 1e-12 || math.Abs(got["SmGP"][1]-wantPerp) > 1e-9 {
		t.Errorf("pooled chains: error %v perplexity %v, want %v %v",
			got["SmGP"][0], got["SmGP"][1], wantErr, wantPerp)
	}
	one, _, _, err := archRunLabelling(p, labs[0], []string{"SmGP"}, so, seed, 1)
	if err != nil {
		t.Fatal(err)
	}
	if one["SmGP"] == got["SmGP"] {
		t.Error("two chains gave exactly what one gives")
	}
}

// The IVM one-vs-rest comparators return distributions and beat chance on the small pinwheel.
func TestOneVsRestComparators(t *testing.T) {
	p, err := loadPinwheel(archTestdata, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	lab, err := p.Labelling(2, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []ivmKind{ivmProbit, ivmNullCategory} {
		probs, _, err := oneVsRest(kind, p.Train, lab, p.Classes, p.Test, ivmOptions{Iters: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range probs {
			var s float64
			for _, v := range pr {
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("one-vs-rest probabilities sum to %v", s)
			}
		}
		e, perp, _ := archipelago.Evaluate(probs, p.TestY)
		t.Logf("IVM kind %d: error %.3f perplexity %.3f", kind, e, perp)
		if e > 0.6 {
			t.Errorf("IVM kind %d error %.3f", kind, e)
		}
	}
	if _, _, err := oneVsRest(ivmProbit, p.Train, lab[1:], p.Classes, p.Test,
		ivmOptions{}); err == nil {
		t.Error("one label short accepted")
	}
}
