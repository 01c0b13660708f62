package reproduce

import (
	"math"
	"os"
	"testing"
)

func readVowelFixture(t *testing.T) *Vowel {
	t.Helper()
	f, err := os.Open("testdata/vowel_context.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := ReadVowel(f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestReadVowel(t *testing.T) {
	v := readVowelFixture(t)
	n, dim := v.X.Dims()
	if n != 990 || dim != 10 {
		t.Fatalf("%d×%d, want 990×10", n, dim)
	}
	var count [15][11]int
	for i := range v.Speaker {
		count[v.Speaker[i]][v.Class[i]]++
	}
	for s := range count {
		for c, k := range count[s] {
			if k != 6 {
				t.Fatalf("speaker %d has %d examples of vowel %d, want 6", s, k, c)
			}
		}
	}
	if got := v.X.At(0, 0); got != -3.639 {
		t.Errorf("first feature %v, want -3.639", got)
	}
}

// The speaker protocol at a small budget: the kernels learnt by the MT-IVM from 14 speakers
// (28 active points) classify a held-out speaker's 55 points from 11 of its own well, in
// each of the six draws of the 11 (330 test decisions in all).
func TestVowelOneSpeaker(t *testing.T) {
	v := readVowelFixture(t)
	pts, err := RunVowel(v, VowelConfig{HeldOut: []int{3}, ActiveSizes: []int{28},
		Subsample: []int{}, Pooled: []int{}, Iters: 2, KernelIters: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 1 || len(pts[0].Err) != 1 {
		t.Fatalf("results %+v", pts)
	}
	t.Logf("held-out speaker 3, MT-IVM d = 28: error %.1f %%, CPU %.2f s",
		100*pts[0].Err[0], pts[0].CPU[0])
	if wrong := pts[0].Err[0] * 330; math.Abs(wrong-math.Round(wrong)) > 1e-9 {
		t.Errorf("error %v is not a count of 330 decisions (six draws of 55)", pts[0].Err[0])
	}
	if e := pts[0].Err[0]; e > 0.2 {
		t.Errorf("error %.1f %% on the held-out speaker, want ≤ 20 %% (chance: 91 %%)", 100*e)
	}
	// Every iteration accepted (the papers' Algorithm 2): at this budget the safeguard keeps
	// the starting kernel, so accepting the learnt one must change the result.
	last, err := RunVowel(v, VowelConfig{HeldOut: []int{3}, ActiveSizes: []int{28},
		Subsample: []int{}, Pooled: []int{}, Iters: 2, KernelIters: 50, LastIterate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with every iteration accepted: error %.1f %%", 100*last[0].Err[0])
	if last[0].Err[0] == pts[0].Err[0] {
		t.Errorf("LastIterate gave the safeguard's error %v: the option does not reach Learn",
			pts[0].Err[0])
	}
}
