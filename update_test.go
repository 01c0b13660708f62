package ivm_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/data"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/subset"
)

// uspsUpdateKernel is a fixed kernel for USPS's 256 inputs (as cmd/ivm's USPS test's).
const uspsUpdateKernel = "rbf(gamma=0.0078125,variance=1)+lin(variance=0.01)+bias+" +
	"white(variance=0.01)"

// uspsRows returns n training rows of USPS drawn at random and the test rows.
func uspsRows(t testing.TB, n int) (x *mat.Dense, y []float64, test *dataset.Data) {
	t.Helper()
	train, test, err := data.USPS()
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := train.X.Dims()
	idx := subset.Random(rows, n, 49, 1)
	return subset.Dense(train.X, idx), subset.Of(train.Y, idx), test
}

// accuracyLogLoss returns p's accuracy in percent and mean log loss on the rows.
func accuracyLogLoss(t testing.TB, p *ivm.Predictor, x mat.Matrix, y []float64) (float64,
	float64) {
	t.Helper()
	preds, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	right, loss := 0, 0.0
	for i, q := range preds {
		if q.Label == y[i] {
			right++
		}
		for c, v := range p.Classes {
			if v == y[i] {
				loss -= math.Log(max(q.Prob[c], 1e-300))
			}
		}
	}
	return 100 * float64(right) / float64(len(y)), loss / float64(len(y))
}

// halves fits cfg to all rows and to the first half, and updates the half's model with the
// second half.
func halves(t *testing.T, x *mat.Dense, y []float64, cfg ivm.Config) (full, half,
	updated *ivm.Predictor, fullTime, updateTime time.Duration) {
	t.Helper()
	n, dim := x.Dims()
	start := time.Now()
	full, err := ivm.Fit(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fullTime = time.Since(start)
	first := x.Slice(0, n/2, 0, dim)
	if half, err = ivm.Fit(first, y[:n/2], cfg); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	updated, err = half.Update(x.Slice(n/2, n, 0, dim), y[n/2:], ivm.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return full, half, updated, fullTime, time.Since(start)
}

// The target at a reduced size: ten one-vs-rest USPS classifiers trained on half of
// 2 000 rows and updated with the other half predict within 0.5 accuracy points and 0.01 log
// loss of those trained on all 2 000 with the same kernel.
func TestUpdateComesCloseToTrainingOnAll(t *testing.T) {
	if testing.Short() {
		t.Skip("trains ten USPS classifiers twice")
	}
	x, y, test := uspsRows(t, 2000)
	cfg := ivm.Config{Scale: dataset.ScaleNone, FixedKernel: true, Kernel: uspsUpdateKernel}
	full, half, updated, tf, tu := halves(t, x, y, cfg)
	// The half's active sets, of the size Fit chooses for 1 000 rows, grow by half the size
	// for 2 000: the new rows' share.
	ovr, ok := updated.Kind.(*ivm.OneVsRestKind)
	if !ok {
		t.Fatalf("kind %T, want one-vs-rest", updated.Kind)
	}
	want := ivm.DefaultActiveSize(1000, 10) + ivm.DefaultActiveSize(2000, 10)/2
	for c, m := range ovr.Models {
		if d := m.Size(); d != want {
			t.Errorf("class %d: %d active points after the update, want %d", c, d, want)
		}
	}
	af, lf := accuracyLogLoss(t, full, test.X, test.Y)
	ah, lh := accuracyLogLoss(t, half, test.X, test.Y)
	au, lu := accuracyLogLoss(t, updated, test.X, test.Y)
	t.Logf("all rows %.2f %% %.4f in %v; half %.2f %% %.4f; updated %.2f %% %.4f in %v",
		af, lf, tf, ah, lh, au, lu, tu)
	if af-au > 0.5 || lu-lf > 0.01 {
		t.Errorf("updated: %.2f %%, log loss %.4f; trained on all rows: %.2f %%, %.4f", au, lu,
			af, lf)
	}
}

// A binary model updated with rows of one side of the problem it never saw learns that
// side, and the update is recorded in the provenance.
func TestUpdateBinaryLearnsNewRows(t *testing.T) {
	x, y, test := uspsRows(t, 1200)
	n, _ := x.Dims()
	yb := make([]float64, n)
	for i, v := range y {
		yb[i] = digitsAbove1(v) // 0, 1 against 2 to 9: a binary task over every digit
	}
	var seen, unseen []int
	for i, v := range y {
		if v <= 4 {
			seen = append(seen, i)
		} else {
			unseen = append(unseen, i)
		}
	}
	cfg := ivm.Config{Task: ivm.Binary, Scale: dataset.ScaleNone, FixedKernel: true,
		ActiveSize: 60, Kernel: uspsUpdateKernel}
	p, err := ivm.Fit(subset.Dense(x, seen), subset.Of(yb, seen), cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.Training.Rows = len(seen)
	q, err := p.Update(subset.Dense(x, unseen), subset.Of(yb, unseen),
		ivm.UpdateOptions{ActiveSize: 90})
	if err != nil {
		t.Fatal(err)
	}
	yt := make([]float64, len(test.Y))
	for i, v := range test.Y {
		yt[i] = digitsAbove1(v)
	}
	before, _ := accuracyLogLoss(t, p, test.X, yt)
	after, _ := accuracyLogLoss(t, q, test.X, yt)
	if after < before+1 {
		t.Errorf("accuracy %.2f %% before the update, %.2f %% after", before, after)
	}
	if u := q.Training.Updates; len(u) != 1 || u[0].Rows != len(unseen) || u[0].Time == "" ||
		len(p.Training.Updates) != 0 {
		t.Errorf("updates recorded %+v (the model updated: %+v)", u, p.Training.Updates)
	}
	m := q.Submodels()[0].Model
	if m.Size() != 90 || slicesMax(m.Active) >= n || slicesMax(m.Active) < len(seen) {
		t.Errorf("%d active points, rows up to %d; want 90 with new rows numbered from %d",
			m.Size(), slicesMax(m.Active), len(seen))
	}
}

func digitsAbove1(v float64) float64 {
	if v > 1 {
		return 1
	}
	return 0
}

func slicesMax(v []int) int {
	top := math.MinInt
	for _, a := range v {
		top = max(top, a)
	}
	return top
}

// A model read from its file updates as the model that was saved does, its updated file
// records the update and reads back to the same predictions, and the file of a model never
// updated has no "updates" field.
func TestUpdateSaveLoadRoundTrip(t *testing.T) {
	x, y, test := uspsRows(t, 600)
	n, dim := x.Dims()
	p, err := ivm.Fit(x.Slice(0, n/2, 0, dim), y[:n/2], ivm.Config{Scale: dataset.ScaleNone,
		FixedKernel: true, ActiveSize: 40, Kernel: uspsUpdateKernel})
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := p.Save(&file); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(file.String(), `"updates"`) {
		t.Fatal("the file of a model never updated has an updates field")
	}
	loaded, err := ivm.Load(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	newX, newY := x.Slice(n/2, n, 0, dim), y[n/2:]
	a, err := p.Update(newX, newY, ivm.UpdateOptions{ActiveSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	b, err := loaded.Update(newX, newY, ivm.UpdateOptions{ActiveSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	samePredictions(t, a, b, test.X)
	b.Training.Updates[0].File = "new.csv"
	var updated bytes.Buffer
	if err := b.Save(&updated); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(updated.String()), ""),
		`"updates":[{"file":"new.csv","rows":300,`) {
		t.Fatalf("the updated file does not record the update: %.300s",
			updated.String()[strings.Index(updated.String(), `"training"`):])
	}
	c, err := ivm.Load(&updated)
	if err != nil {
		t.Fatal(err)
	}
	samePredictions(t, b, c, test.X)
	if c.Training.Updates[0].Rows != n-n/2 {
		t.Fatalf("updates read back %+v", c.Training.Updates)
	}
}

func samePredictions(t *testing.T, a, b *ivm.Predictor, x mat.Matrix) {
	t.Helper()
	pa, err := a.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pa {
		for c := range pa[i].Prob {
			if math.Abs(pa[i].Prob[c]-pb[i].Prob[c]) > 1e-9 {
				t.Fatalf("row %d class %d: %v and %v", i, c, pa[i].Prob[c], pb[i].Prob[c])
			}
		}
	}
}

// A one-vs-one model updates each pair with the rows of its two classes: every pair that
// has new rows takes some of them at the larger d; a one-vs-rest model each class.
func TestUpdateMultiClassDecompositions(t *testing.T) {
	x, y, test := uspsRows(t, 800)
	n, dim := x.Dims()
	for _, dc := range []ivm.Decomposition{ivm.OneVsRest, ivm.OneVsOne} {
		p, err := ivm.Fit(x.Slice(0, n/2, 0, dim), y[:n/2], ivm.Config{Scale: dataset.ScaleNone,
			FixedKernel: true, ActiveSize: 20, Kernel: uspsUpdateKernel, Decomposition: dc})
		if err != nil {
			t.Fatal(err)
		}
		p.Training.Rows = n / 2
		q, err := p.Update(x.Slice(n/2, n, 0, dim), y[n/2:], ivm.UpdateOptions{ActiveSize: 30})
		if err != nil {
			t.Fatal(err)
		}
		subs, before := q.Submodels(), p.Submodels()
		if len(subs) != len(before) || len(subs) < 10 {
			t.Fatalf("%v: %d models updated from %d", dc, len(subs), len(before))
		}
		for j, sm := range subs {
			if sm.Model.Size() != 30 || slicesMax(sm.Model.Active) < n/2 ||
				slicesMax(sm.Model.Active) >= n || before[j].Model.Size() != 20 {
				t.Fatalf("%v, model %d (%s): %d active points, rows up to %d", dc, j, sm.Name,
					sm.Model.Size(), slicesMax(sm.Model.Active))
			}
		}
		ab, _ := accuracyLogLoss(t, p, test.X, test.Y)
		aa, _ := accuracyLogLoss(t, q, test.X, test.Y)
		if aa < ab {
			t.Errorf("%v: accuracy %.2f %% before, %.2f %% after the update", dc, ab, aa)
		}
	}
}

// Update refuses rows and labels it cannot use, and a projected model, by name.
func TestUpdateRefuses(t *testing.T) {
	x, y, _ := uspsRows(t, 300)
	n, dim := x.Dims()
	p, err := ivm.Fit(x, y, ivm.Config{Scale: dataset.ScaleNone, FixedKernel: true,
		ActiveSize: 20, Kernel: uspsUpdateKernel})
	if err != nil {
		t.Fatal(err)
	}
	newY := func(i int, v float64) []float64 {
		out := append([]float64(nil), y...)
		out[i] = v
		return out
	}
	nanX := mat.DenseCopyOf(x)
	nanX.Set(5, 7, math.NaN())
	for _, c := range []struct {
		name string
		x    mat.Matrix
		y    []float64
		want string
	}{
		{"new label", x, newY(3, 11), "label 11, not one of the model's classes"},
		{"unlabelled", x, newY(4, math.NaN()), "target NaN"},
		{"width", mat.NewDense(n, dim-1, nil), y, "255 input columns, the model has 256"},
		{"NaN input", nanX, y, "row 5 column 7 is NaN"},
		{"targets", x, y[1:], "targets for"},
	} {
		_, err := p.Update(c.x, c.y, ivm.UpdateOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one saying %q", c.name, err, c.want)
		}
	}
	pr, err := ivm.Fit(x, y, ivm.Config{Scale: dataset.ScaleNone, Decomposition: ivm.Projected,
		ActiveSize: 30})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pr.Update(x, y, ivm.UpdateOptions{})
	if !errors.Is(err, ivm.ErrNotUpdatable) || !strings.Contains(err.Error(), "projected") {
		t.Errorf("projected model: error %v", err)
	}
}

// Active sets of the size Fit chose grow to the size it would choose for all the rows: a
// one-vs-one pair's by its own rows, which the model file keeps.
func TestUpdateGrowsDefaultSizes(t *testing.T) {
	x, y, _ := uspsRows(t, 1200)
	n, dim := x.Dims()
	cfg := ivm.Config{Scale: dataset.ScaleNone, FixedKernel: true, Kernel: uspsUpdateKernel,
		Decomposition: ivm.OneVsOne}
	p, err := ivm.Fit(x.Slice(0, n/2, 0, dim), y[:n/2], cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if p, err = ivm.Load(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := p.Update(x.Slice(n/2, n, 0, dim), y[n/2:], ivm.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := q.Kind.(*ivm.OneVsOneKind).Pairs
	grown := 0
	for j, pp := range pairs {
		a, b := pp.Classes[0], pp.Classes[1]
		rows := 0
		for _, v := range y {
			if v == a || v == b {
				rows++
			}
		}
		d := pp.Kind.(*ivm.SingleKind).Model.Size()
		before := p.Kind.(*ivm.OneVsOneKind).Pairs[j].Kind.(*ivm.SingleKind).Model.Size()
		if pp.Training.Rows != rows || d != ivm.DefaultActiveSize(rows, 1) {
			t.Fatalf("pair %v: %d rows, %d active points; want %d and %d", pp.Classes,
				pp.Training.Rows, d, rows, ivm.DefaultActiveSize(rows, 1))
		}
		if d > before {
			grown++
		}
	}
	if grown < len(pairs)/2 {
		t.Errorf("%d of %d pairs grew", grown, len(pairs))
	}
}
