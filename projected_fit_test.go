package ivm

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/subset"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// projectedBlobs returns n rows per class of four overlapping Gaussian classes in dim
// inputs, labelled 2, 4, 6, 8.
func projectedBlobs(rng *rand.Rand, n, dim int) (*mat.Dense, []float64) {
	x := mat.NewDense(4*n, dim, nil)
	y := make([]float64, 4*n)
	for i := range 4 * n {
		c := i % 4
		y[i] = float64(2 * (c + 1))
		for j := range dim {
			mu := 0.0
			if j == c%dim || j == (c+1)%dim {
				mu = 1.5
			}
			x.Set(i, j, 100*(mu+rng.NormFloat64())) // unscaled: the search scales
		}
	}
	return x, y
}

// TestFitProjected trains a projected model through Fit and checks what a user gets: a
// test accuracy near the Bayes rate's, probabilities that sum to 1 and say the label,
// PredictLabels' labels equal Predict's, a file that round-trips, progress reports that
// end in Done, and the summary of the search.
func TestFitProjected(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := projectedBlobs(rng, 150, 5)
	xt, yt := projectedBlobs(rng, 250, 5)
	var reports []Progress
	p, err := Fit(x, y, Config{Decomposition: Projected, ActiveSize: 300,
		Progress: func(pr Progress) { reports = append(reports, pr) }})
	if err != nil {
		t.Fatal(err)
	}
	if k := asProjected(p); k == nil || !k.Softmax || k.Sharpness != 1 {
		t.Fatalf("Fit made %+v", p.Kind)
	}
	if m, _ := asProjected(p).Projected.Centres.Dims(); m != 300 {
		t.Errorf("%d centres, want the 300 asked for", m)
	}
	preds, err := p.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	labels, err := p.PredictLabels(xt)
	if err != nil {
		t.Fatal(err)
	}
	right, agree, loss := 0, 0, 0.0
	for i, q := range preds {
		if math.Abs(floats.Sum(q.Prob)-1) > 1e-12 || len(q.Latent) != 4 || q.LatentVar != nil ||
			q.Var != 0 || q.Mean != q.Latent[floats.MaxIdx(q.Prob)] {
			t.Fatalf("row %d: %+v", i, q)
		}
		if q.Label != p.Classes[floats.MaxIdx(q.Latent)] || labels[i].Label != q.Label {
			t.Fatalf("row %d: label %v, latents %v, PredictLabels %v",
				i, q.Label, q.Latent, labels[i].Label)
		}
		if q.Label == p.Classes[floats.MaxIdx(q.Prob)] {
			agree++
		}
		if q.Label == yt[i] {
			right++
		}
		c := slices.Index(p.Classes, yt[i])
		loss -= math.Log(q.Prob[c])
	}
	// Each class's mean is 1.5 from the others' in two inputs of unit noise: Bayes about 0.75.
	if acc := float64(right) / float64(len(yt)); acc < 0.68 {
		t.Errorf("test accuracy %.3f, want ≥ 0.68", acc)
	}
	if loss /= float64(len(yt)); loss > 0.75 {
		t.Errorf("test log loss %.3f, want ≤ 0.75 (uniform: %.3f)", loss, math.Log(4))
	}
	if agree < len(yt)*95/100 {
		t.Errorf("the probabilities' argmax is the label on %d rows of %d, want 95 %%",
			agree, len(yt))
	}
	last := reports[len(reports)-1]
	if reports[0].Search != 1 || !last.Done || last.Rows != 600 || last.RowsDone != 600 {
		t.Errorf("progress: first %+v, last %+v", reports[0], last)
	}
	back, file := reloaded(t, p, xt)
	if asProjected(back) == nil || !strings.Contains(file, `"projected"`) ||
		strings.Contains(file, `"models"`) {
		t.Error("the file does not hold the projected model alone")
	}
}

// TestFitProjectedRelevance: classes told apart by one input of six, in bands too narrow
// for a width shared by all six. The projected search learns per-input widths from the
// class indices, searches them (their gain over one width is large) and chooses them; with
// the inputs alike (all six carry the class) it leaves them out.
func TestFitProjectedRelevance(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	bands := func(n int, alike bool) (*mat.Dense, []float64) {
		x, y := mat.NewDense(n, 6, nil), make([]float64, n)
		for i := range n {
			for j := range 6 {
				x.Set(i, j, 2*rng.Float64()-1)
			}
			s := x.At(i, 0)
			if alike {
				s = floats.Sum(x.RawRowView(i)) / 6
			}
			y[i] = float64(int(math.Floor(3*s+3)) % 3)
		}
		return x, y
	}
	for _, alike := range []bool{false, true} {
		x, y := bands(900, alike)
		var reports []Progress
		p, err := Fit(x, y, Config{Decomposition: Projected, ActiveSize: 300,
			Progress: func(pr Progress) { reports = append(reports, pr) }})
		if err != nil {
			t.Fatal(err)
		}
		relevance := false
		for _, r := range reports {
			relevance = relevance || strings.Contains(r.SearchKernel, "relevance scaling")
		}
		if got := asProjected(p).Scaler.Kind == dataset.ScaleRelevance; relevance == alike ||
			got == alike {
			t.Errorf("inputs alike %v: relevance scaling searched %v, chosen %v", alike,
				relevance, got)
		}
		if alike {
			continue
		}
		xt, yt := bands(1000, false)
		if acc := labelAccuracy(t, p, xt, yt); acc < 0.9 {
			t.Errorf("test accuracy %.3f, want ≥ 0.9", acc)
		}
	}
}

// TestFitProjectedScreened: a binary class set by two inputs of 120, the others noise.
// One width for all 120 drowns the two; the projected search screens the inputs, learns
// per-input widths of the 32 most correlated and chooses them, the two inputs weighted
// most, and predicts new rows far better than the scalings of one width do.
func TestFitProjectedScreened(t *testing.T) {
	if testing.Short() {
		t.Skip("fits three projected models of 1 500 rows and 120 inputs")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	wide := func(n int) (*mat.Dense, []float64) {
		x, y := mat.NewDense(n, 120, nil), make([]float64, n)
		for i := range n {
			for j := range 120 {
				x.Set(i, j, 2*rng.Float64()-1)
			}
			if x.At(i, 7)+0.5*math.Sin(3*x.At(i, 50)) > 0 {
				y[i] = 1
			}
		}
		return x, y
	}
	x, y := wide(1500)
	xt, yt := wide(2000)
	p, err := Fit(x, y, Config{Decomposition: Projected})
	if err != nil {
		t.Fatal(err)
	}
	sc := asProjected(p).Scaler
	if sc.Kind != dataset.ScaleRelevance {
		t.Fatalf("scaling %v, want relevance", sc.Kind)
	}
	w := slices.Clone(sc.Weight)
	slices.Sort(w)
	if sc.Weight[7] < w[117] || sc.Weight[50] < w[117] {
		t.Errorf("weights of inputs 8 and 51: %.3g and %.3g, below the third largest %.3g",
			sc.Weight[7], sc.Weight[50], w[117])
	}
	acc := labelAccuracy(t, p, xt, yt)
	for _, scale := range []dataset.Scaling{dataset.ScaleStd, dataset.ScaleMinMax} {
		q, err := Fit(x, y, Config{Decomposition: Projected, Scale: scale})
		if err != nil {
			t.Fatal(err)
		}
		if other := labelAccuracy(t, q, xt, yt); acc < other+0.05 {
			t.Errorf("test accuracy %.3f screened, %.3f with %v inputs: want 0.05 more", acc,
				other, scale)
		}
	}
}

// TestFitProjectedRefuses: what a projected model cannot be asked for.
func TestFitProjectedRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := projectedBlobs(rng, 20, 3)
	for name, c := range map[string]struct {
		cfg  Config
		n    int
		want string
	}{
		"part": {Config{Decomposition: Projected, Part: Part{Index: 0, Count: 2}}, 80,
			"in parts"},
		"kernel":   {Config{Decomposition: Projected, Kernel: "rbf"}, 80, "searches its own"},
		"fixed":    {Config{Decomposition: Projected, FixedKernel: true}, 80, "searches its own"},
		"few rows": {Config{Decomposition: Projected}, 40, "at least 50"},
		"ordinal": {Config{Decomposition: Projected, Task: Ordinal}, 80,
			"binary, multi-class or regression"},
	} {
		yy := y[:c.n]
		if name == "ordinal" {
			yy = make([]float64, c.n)
			for i := range yy {
				yy[i] = float64(i % 3)
			}
		}
		_, err := Fit(x.Slice(0, c.n, 0, 3), yy, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// TestLoadRefusesMalformedProjected edits a projected model's file in the ways a corrupt
// or hostile file could and checks that Load names each.
func TestLoadRefusesMalformedProjected(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x, y := projectedBlobs(rng, 20, 3)
	p, err := Fit(x, y, Config{Decomposition: Projected})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		edit func(f map[string]any, pj map[string]any)
		want string
	}{
		"weights rows": {func(f, pj map[string]any) { pj["weights"] = pj["weights"].([]any)[1:] },
			"rows of weights"},
		"weights width": {func(f, pj map[string]any) { pj["weights"].([]any)[0] = []any{1.0} },
			"weights"},
		"centre width": {func(f, pj map[string]any) { pj["centres"].([]any)[2] = []any{1.0} },
			"centre values"},
		"score map": {func(f, pj map[string]any) { pj["score_mix"] = pj["score_mix"].([]any)[1:] },
			"score map"},
		"score offset": {func(f, pj map[string]any) { pj["score_offset"] = []any{} }, "offsets"},
		"log weights": {func(f, pj map[string]any) {
			pj["score_log_weight"], pj["score_log_floor"] = []any{1.0, 1.0}, 1e-3
		}, "log weights"},
		"log floor": {func(f, pj map[string]any) {
			pj["score_log_weight"], pj["score_log_floor"] = []any{1.0, 1.0, 1.0, 1.0}, 0.0
		}, "log floor"},
		"additive knots": {func(f, pj map[string]any) {
			pj["additive"] = additiveJSON(f, 0, 1, 1, 2)
		}, "3 knots and 2 rows"},
		"additive input": {func(f, pj map[string]any) {
			pj["additive"] = additiveJSON(f, 3, 1, 1, 3)
		}, "below 3"},
		"additive variance": {func(f, pj map[string]any) {
			pj["additive"] = additiveJSON(f, 0, 0, 1, 3)
		}, "additive variance"},
		"additive gamma": {func(f, pj map[string]any) {
			pj["additive"] = additiveJSON(f, 0, 1, -1, 3)
		}, "positive finite γ"},
		"additive weights": {func(f, pj map[string]any) {
			a := additiveJSON(f, 0, 1, 1, 3)
			a["weights"].([]any)[1] = []any{1.0}
			pj["additive"] = a
		}, "additive weight row 2"},
		"lambda":     {func(f, pj map[string]any) { pj["lambda"] = -1.0 }, "λ"},
		"kernel":     {func(f, pj map[string]any) { pj["kernel_spec"] = "nonsense(" }, "kernel"},
		"no softmax": {func(f, pj map[string]any) { delete(f, "softmax") }, "softmax"},
		"two classes": {func(f, pj map[string]any) { f["classes"] = []any{1.0, 2.0} },
			"per class"},
		"other models": {func(f, pj map[string]any) { f["models"] = []any{map[string]any{}} },
			"other models"},
		"wrong task":   {func(f, pj map[string]any) { f["task"] = "regression" }, "no classes"},
		"ordinal task": {func(f, pj map[string]any) { f["task"] = "ordinal" }, "not a ordinal"},
		"no centres": {func(f, pj map[string]any) {
			pj["centres"], pj["weights"] = []any{}, []any{}
		}, "centres"},
		"label noise": {func(f, pj map[string]any) { f["label_noise"] = 1.5 }, "label_noise"},
		"unsorted class": {func(f, pj map[string]any) { f["classes"] = []any{8.0, 6.0, 4.0, 2.0} },
			"ascending"},
	} {
		var f map[string]any
		if err := json.Unmarshal(b.Bytes(), &f); err != nil {
			t.Fatal(err)
		}
		c.edit(f, f["projected"].(map[string]any))
		edited, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Load(bytes.NewReader(edited))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load gave %v, want an error naming %q", name, err, c.want)
		}
	}
}

// additiveJSON is a projected model file's additive part of three knots on the given input,
// with rows zero weights (one a class of f).
func additiveJSON(f map[string]any, input int, variance, gamma float64, rows int) map[string]any {
	classes := len(f["classes"].([]any))
	weights := make([]any, rows)
	for i := range weights {
		weights[i] = make([]any, classes)
		for c := range classes {
			weights[i].([]any)[c] = 0.0
		}
	}
	return map[string]any{"variance": variance, "weights": weights,
		"inputs": []any{map[string]any{"input": input, "gamma": gamma,
			"knots": []any{-1.0, 0.0, 1.0}}}}
}

// TestFitProjectedFewInputs: many centres in two inputs are nearly dependent, so the system
// may need a jitter; one far below λ changes nothing worth a warning, and the model still
// predicts well.
func TestFitProjectedFewInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	corners := func(n int) (*mat.Dense, []float64) {
		x := mat.NewDense(4*n, 2, nil)
		y := make([]float64, 4*n)
		for i := range 4 * n {
			c := i % 4
			y[i] = float64(c)
			x.Set(i, 0, 3*float64(c%2)+rng.NormFloat64())
			x.Set(i, 1, 3*float64(c/2)+rng.NormFloat64())
		}
		return x, y
	}
	x, y := corners(150)
	p, err := Fit(x, y, Config{Decomposition: Projected, ActiveSize: 480})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %q, want none", p.Warnings)
	}
	xt, yt := corners(100)
	// Four classes at the corners of a square of side 3 in unit noise: the Bayes rate is
	// Φ(1.5)² ≈ 0.87.
	if acc := labelAccuracy(t, p, xt, yt); acc < 0.83 {
		t.Errorf("test accuracy %.3f, want ≥ 0.83", acc)
	}
}

// labelAccuracy is the share of the rows of x whose label p predicts as y says.
func labelAccuracy(t *testing.T, p *Predictor, x mat.Matrix, y []float64) float64 {
	t.Helper()
	labels, err := p.PredictLabels(x)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for i, l := range labels {
		if l.Label == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y))
}

// The projected search scores the logarithms of long-tailed inputs beside std and minmax
// where a table of few inputs has such a column, and for an image's many pixels (values ≥ 0)
// their square roots instead; many inputs with a negative value get neither.
func TestProjectedScalersLogs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		dim      int
		negative bool
		want     []string // each scaler's transform
	}{
		{3, false, []string{"", "", "log"}},
		{relevanceMaxInputs + 1, false, []string{"", "", "root"}},
		{relevanceMaxInputs + 1, true, []string{"", ""}},
	} {
		x := mat.NewDense(500, c.dim, nil)
		for i := range 500 {
			for j := range c.dim {
				x.Set(i, j, math.Exp(3*rng.NormFloat64())) // long-tailed, > 0
			}
		}
		if c.negative {
			x.Set(7, 2, -1)
		}
		scalers, err := projectedScalers(x, dataset.ScaleAuto)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(scalers))
		for i, sc := range scalers {
			switch {
			case sc.Log != nil:
				got[i] = "log"
			case sc.Root:
				got[i] = "root"
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d inputs (a negative value: %v): scalers %q, want %q", c.dim,
				c.negative, got, c.want)
		}
	}
}

// timeSeriesRows returns the rows of the given steps of a series: a time (steps/100) and an
// input x with an effect sin(2x); the targets add a wandering of time (a first-order
// autoregression of variance 0.57) and noise of variance 0.09.
func timeSeriesRows(rng *rand.Rand, walk []float64, steps []int) (*mat.Dense, []float64) {
	x, y := mat.NewDense(len(steps), 2, nil), make([]float64, len(steps))
	for i, s := range steps {
		x.Set(i, 0, float64(s)/100)
		x.Set(i, 1, 3*rng.Float64())
		y[i] = math.Sin(2*x.At(i, 1)) + walk[s] + 0.3*rng.NormFloat64()
	}
	return x, y
}

// localSeries fits, once for the tests that share it, a regression whose targets wander in
// time, its rows a random three quarters of the steps, and returns it with the other steps'
// rows and targets.
func localSeries(t *testing.T) (*Predictor, *mat.Dense, []float64) {
	t.Helper()
	localSeriesOnce.Do(func() {
		rng := rand.New(rand.NewPCG(11, 12))
		walk := make([]float64, 4000)
		for i := 1; i < len(walk); i++ {
			walk[i] = 0.98*walk[i-1] + 0.15*rng.NormFloat64()
		}
		perm := rng.Perm(len(walk))
		x, y := timeSeriesRows(rng, walk, perm[:3000])
		s := &localSeriesFit
		s.xt, s.yt = timeSeriesRows(rng, walk, perm[3000:])
		s.p, s.err = Fit(x, y, Config{Task: Regression, Decomposition: Projected})
	})
	s := localSeriesFit
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.p, s.xt, s.yt
}

var (
	localSeriesOnce sync.Once
	localSeriesFit  struct {
		p   *Predictor
		xt  *mat.Dense
		yt  []float64
		err error
	}
)

// TestFitProjectedLocal: a regression whose targets wander in time, its rows a random
// three quarters of the steps. Fit adds a local part, which predicts the other steps with
// less than half the model's squared error above the noise without it, with 95 % intervals
// that cover 90–99 % of them; the file round-trips to the same predictions.
func TestFitProjectedLocal(t *testing.T) {
	p, xt, yt := localSeries(t)
	k := asProjected(p)
	if k == nil || k.Projected.Local == nil {
		t.Fatalf("no local part: %+v", p.Kind)
	}
	scores := func(p *Predictor) (mse, cover float64) {
		preds, err := p.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range preds {
			d := q.Mean - yt[i]
			mse += d * d
			if d*d <= 1.96*1.96*q.Var {
				cover++
			}
		}
		return mse / float64(len(yt)), cover / float64(len(yt))
	}
	mse, cover := scores(p)
	back, _ := reloaded(t, p, xt)
	before, _ := p.Predict(xt)
	after, _ := back.Predict(xt)
	for i := range after {
		if after[i].Mean != before[i].Mean || after[i].Var != before[i].Var {
			t.Fatalf("row %d: %+v after the round trip, %+v before", i, after[i], before[i])
		}
	}
	asProjected(back).Projected.Local = nil
	without, _ := scores(back)
	t.Logf("test MSE %.4f with the local part (95 %% intervals cover %.3f), %.4f without "+
		"(noise 0.09)", mse, cover, without)
	if mse-0.09 > 0.5*(without-0.09) {
		t.Errorf("test MSE %.4f with the local part, %.4f without: want half the excess "+
			"over the noise", mse, without)
	}
	if cover < 0.9 || cover > 0.99 {
		t.Errorf("95 %% intervals cover %.3f of the test rows", cover)
	}
}

// TestPreferProjected: a binary task of 2 600 rows and a regression of 1 200 whose targets
// follow a smooth effect of one input and an effect per value of a code of 60 values, rough
// along the code's axis. The search's active set draws the first and poorly the second; the
// projected model's additive part puts a knot at each value, its held-out gain over the
// constant predictor is the larger by far, and Fit returns it (not where one-vs-rest is
// asked for: IVM models, which query and update can use).
func TestPreferProjected(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	effect := make([]float64, 60)
	for i := range effect {
		effect[i] = 1.5 * rng.NormFloat64()
	}
	f := func(c int, v float64) float64 { return effect[c] + 2*math.Sin(6*v) }
	rows := func(n int, task Task) (*mat.Dense, []float64) {
		x, y := mat.NewDense(n, 2, nil), make([]float64, n)
		for i := range n {
			c := rng.IntN(len(effect))
			x.Set(i, 0, float64(c))
			x.Set(i, 1, rng.Float64())
			switch {
			case task == Regression:
				y[i] = f(c, x.At(i, 1)) + rng.NormFloat64()
			case rng.Float64() < 1/(1+math.Exp(-f(c, x.At(i, 1)))):
				y[i] = 1
			}
		}
		return x, y
	}
	for _, tc := range []struct {
		task Task
		n    int
		// most is how far above the true distribution's the test log loss may be.
		most float64
	}{{Binary, 2600, 0.07}, {Regression, 1200, 0.1}} {
		x, y := rows(tc.n, tc.task)
		p, err := Fit(x, y, Config{Task: tc.task})
		if tc.task == Binary {
			p, err = Fit(x, y, Config{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if k := asProjected(p); k == nil || k.Projected.Additive == nil {
			t.Fatalf("%v: Fit made %T, want the projected model with its additive part",
				tc.task, p.Kind)
		}
		if tc.task == Regression {
			// One-vs-rest asked for: an IVM model, which query and update can use.
			ivm, err := Fit(x, y, Config{Task: tc.task, Decomposition: OneVsRest})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := ivm.Kind.(*SingleKind); !ok {
				t.Errorf("with OneVsRest Fit made %T, want one IVM model", ivm.Kind)
			}
		}
		xt, yt := rows(2000, tc.task)
		preds, err := p.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		loss, truth := 0.0, 0.0
		for i, q := range preds {
			fi := f(int(xt.At(i, 0)), xt.At(i, 1))
			switch {
			case tc.task == Regression:
				d := yt[i] - q.Mean
				loss += 0.5*math.Log(2*math.Pi*q.Var) + d*d/(2*q.Var)
				truth += 0.5*math.Log(2*math.Pi) + (yt[i]-fi)*(yt[i]-fi)/2
			case yt[i] == 1:
				loss -= math.Log(q.Prob[1])
				truth += math.Log(1 + math.Exp(-fi))
			default:
				loss -= math.Log(q.Prob[0])
				truth += math.Log(1 + math.Exp(fi))
			}
		}
		loss, truth = loss/float64(len(yt)), truth/float64(len(yt))
		t.Logf("%v: test log loss %.4f, the true distribution's %.4f", tc.task, loss, truth)
		if loss > truth+tc.most {
			t.Errorf("%v: test log loss %.4f, want within %.2f of the true distribution's %.4f",
				tc.task, loss, tc.most, truth)
		}
	}
}

// TestScreenInputs: the inputs most correlated with the targets, in increasing order, a
// constant input never among them however few the others.
func TestScreenInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	n := 400
	x, y := mat.NewDense(n, 6, nil), make([]float64, n)
	for i := range n {
		y[i] = rng.NormFloat64()
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, 5)
		x.Set(i, 2, -y[i]+0.5*rng.NormFloat64())
		x.Set(i, 3, rng.NormFloat64())
		x.Set(i, 4, y[i]+rng.NormFloat64())
		x.Set(i, 5, rng.NormFloat64())
	}
	if got := screenInputs(x, y, subset.All(n), 2); !slices.Equal(got, []int{2, 4}) {
		t.Errorf("two inputs screened: %v, want [2 4]", got)
	}
	if got := screenInputs(x, y, subset.All(n), 6); !slices.Equal(got, []int{0, 2, 3, 4, 5}) {
		t.Errorf("six inputs screened: %v, want all but the constant input 1", got)
	}
}

// TestProjectedWins: a binary task's projected model replaces the search's IVM where its
// held-out gain is at least the IVM's (whose figure flatters it); a regression's, or a binary
// task's of at most ivmOnlyRows rows, must gain more than the larger standard error.
func TestProjectedWins(t *testing.T) {
	b := func(gain, se float64) *calib.Baseline {
		return &calib.Baseline{Prior: 0.6, Model: 0.6 - gain, SE: se}
	}
	for _, c := range []struct {
		ivm, projected *calib.Baseline
		binary, want   bool
	}{
		{b(0.05, 0.01), b(0.05, 0.005), true, true},
		{b(0.05, 0.01), b(0.0499, 0.005), true, false},
		{b(0.05, 0.01), b(0.055, 0.005), false, false},
		{b(0.05, 0.01), b(0.0601, 0.005), false, true},
	} {
		if got := projectedWins(c.ivm, c.projected, c.binary); got != c.want {
			t.Errorf("IVM %+v, projected %+v, binary %v: %v, want %v", *c.ivm, *c.projected,
				c.binary, got, c.want)
		}
	}
}

// TestRarerClassRows counts the rarer class's labels, whichever of the two it is.
func TestRarerClassRows(t *testing.T) {
	for _, c := range []struct {
		y    []float64
		want int
	}{
		{[]float64{-1, 1, 1, 1}, 1},
		{[]float64{-1, -1, -1, 1}, 1},
		{[]float64{-1, 1, -1, 1}, 2},
		{[]float64{1, 1}, 0},
	} {
		if got := rarerClassRows(c.y, []float64{-1, 1}); got != c.want {
			t.Errorf("rarerClassRows(%v) = %d, want %d", c.y, got, c.want)
		}
	}
}
