package ivm

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/noise"
	"gonum.org/v1/gonum/mat"
)

// Where the label regression and the probit model predict their held-out rows about as
// well, Fit blends them: the probabilities are the mean of its members' (each a complete
// binary predictor with its own calibration), the label the likelier class, PredictLabels
// agrees with Predict, and a model file's round trip keeps every probability.
func TestFitBlend(t *testing.T) {
	x, y := twoBlobs(200, 1)
	xt, _ := twoBlobs(500, 2)
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	bl := asBlend(p)
	if bl == nil || len(bl.Members) != 2 || asSingle(bl.Members[0]).Logistic == nil ||
		asSingle(bl.Members[1]).Logistic != nil {
		t.Fatalf("kind %T: want the label regression and the probit model blended", p.Kind)
	}
	if a, b := asSingle(bl.Members[0]).Model.Noise.Name(),
		asSingle(bl.Members[1]).Model.Noise.Name(); a != "gaussian" || b != "probit" {
		t.Fatalf("members' noise %s and %s", a, b)
	}
	preds, err := p.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	var members [2][]noise.Prediction
	for j, mp := range bl.Members {
		if members[j], err = mp.Predict(xt); err != nil {
			t.Fatal(err)
		}
	}
	labels, err := p.PredictLabels(xt)
	if err != nil {
		t.Fatal(err)
	}
	apart := 0
	for i, pr := range preds {
		for c := range 2 {
			want := (members[0][i].Prob[c] + members[1][i].Prob[c]) / 2
			if math.Abs(pr.Prob[c]-want) > 1e-15 {
				t.Fatalf("row %d: p(class %d) = %v, the members' mean %v", i, c, pr.Prob[c], want)
			}
		}
		if (pr.Prob[1] > pr.Prob[0]) != (pr.Label == 1) || labels[i].Label != pr.Label {
			t.Fatalf("row %d: label %v (PredictLabels %v), probabilities %v",
				i, pr.Label, labels[i].Label, pr.Prob)
		}
		if len(pr.Latent) != 2 || pr.Latent[0] != members[0][i].Latent[0] ||
			pr.Latent[1] != members[1][i].Latent[0] || pr.Mean != pr.Latent[0] {
			t.Fatalf("row %d: latent means %v, the members' %v and %v",
				i, pr.Latent, members[0][i].Latent, members[1][i].Latent)
		}
		if math.Abs(members[0][i].Prob[1]-members[1][i].Prob[1]) > 0.05 {
			apart++
		}
	}
	if apart == 0 {
		t.Error("the members agree on every row to within 0.05: nothing is blended")
	}
	back, file := reloaded(t, p, xt)
	if subs := back.Submodels(); len(subs) != 2 || subs[0].Name != "labels" ||
		subs[1].Name != "probit" {
		t.Errorf("submodels %+v: want labels and probit", subs)
	}
	// What a file may not hold: a blend with models or calibration of its own, members of
	// other classes, or one member.
	for _, bad := range []struct{ name, from, to string }{
		{"own sharpness", `"format": "ivm-model/1",`, `"format": "ivm-model/1", "sharpness": 2,`},
		{"own logistic", `"format": "ivm-model/1",`,
			`"format": "ivm-model/1", "logistic": {"slope": 1, "offset": 0},`},
		{"member classes", `"classes": [` + "\n" + `    0,` + "\n" + `    1` + "\n" + `   ]`,
			`"classes": [0, 2]`},
		{"multi-class", `"task": "binary"`, `"task": "multiclass"`},
	} {
		edited := strings.Replace(file, bad.from, bad.to, 1)
		if edited == file {
			t.Fatalf("%s: the file has no %q", bad.name, bad.from)
		}
		if _, err := Load(strings.NewReader(edited)); err == nil {
			t.Errorf("%s: loaded", bad.name)
		}
	}
}

// blendable blends only held-out log losses within blendRatio of each other.
func TestBlendable(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want bool
	}{{0.2, 0.2, true}, {0.2, 0.29, true}, {0.29, 0.2, true}, {0.2, 0.31, false},
		{0.1, 0.29, false}, {0, 0.1, false}, {math.Inf(1), 0.1, false}, {math.NaN(), 0.1, false}} {
		if got := blendable(c.a, c.b); got != c.want {
			t.Errorf("blendable(%v, %v) = %v", c.a, c.b, got)
		}
	}
}

// A blend member or one-vs-one pair that is not a predictor of one model is refused by
// Save, not a panic.
func TestSaveRefusesNestedMembers(t *testing.T) {
	x, y := twoBlobs(60, 3)
	p, err := Fit(x, y, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if asBlend(p) == nil {
		t.Fatal("no blend to nest")
	}
	nested := &Predictor{Task: Binary, Classes: p.Classes,
		Kind: &BlendKind{Members: []*Predictor{p, asBlend(p).Members[1]}}}
	var b bytes.Buffer
	if err := nested.Save(&b); err == nil || !strings.Contains(err.Error(), "one model") {
		t.Errorf("a blend inside a blend saved: %v", err)
	}
}

// reloaded saves p, loads the file and checks that the loaded predictor's probabilities at
// x are p's bit for bit; it returns the loaded predictor and the file's text.
func reloaded(t *testing.T, p *Predictor, x *mat.Dense) (*Predictor, string) {
	t.Helper()
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Load(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	before, err := p.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	after, err := back.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range after {
		if !slices.Equal(after[i].Prob, before[i].Prob) {
			t.Fatalf("row %d: %v after the round trip, %v before", i, after[i].Prob, before[i].Prob)
		}
	}
	return back, b.String()
}
