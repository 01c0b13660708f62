package serve

import (
	"io"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/noise"
)

// kindModel is a family.Model of a kind, classes and input dimension, for the decoder.
type kindModel struct {
	kind    string
	classes []float64
}

func (m kindModel) Format() string       { return "test/1" }
func (m kindModel) Kind() string         { return m.kind }
func (m kindModel) InputDim() int        { return 2 }
func (m kindModel) Classes() []float64   { return m.classes }
func (m kindModel) Tasks() []string      { return nil }
func (m kindModel) Save(io.Writer) error { return nil }
func (m kindModel) Unwrap() any          { return nil }
func (m kindModel) Predict(*mat.Dense, []string) ([]noise.Prediction, error) {
	return nil, nil
}

// Whatever the body, the update decoder answers without panicking, and what it accepts is
// an update the model can take: 1 to maxRows finite rows of the model's inputs, a label per
// row among a classifier's classes (NaN, unlabelled, only for a semi-supervised model), a
// non-negative d, and ivm update's arguments for the options.
func FuzzParseUpdateRequest(f *testing.F) {
	for _, seed := range []string{
		`{"rows": [[1, 2], {"2": 3}], "labels": [1, -1]}`,
		`{"rows": [[1, 2]], "labels": [null], "d": 5, "swaps": -1}`,
		`{"rows": [[1, 2]], "labels": [2.5]}`,
		`{"rows": [[1e999, 2]], "labels": [1]}`,
		`{"rows": [[1, 2]], "labels": [1], "d": -3}`,
		`{"rows": [[1, 2]], "labels": "1"}`,
		`{"rows": [], "labels": []}`,
	} {
		for kind := range 3 {
			f.Add([]byte(seed), kind)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, kind int) {
		models := []kindModel{{"binary", []float64{-1, 1}}, {"regression", nil},
			{"semisupervised", []float64{-1, 1}}}
		km := models[(kind%3+3)%3]
		m := &servedModel{Source: Source{Name: "m"}, model: km, dim: 2, classes: km.classes}
		in, herr := parseUpdateRequest(body, m, 4)
		if herr != nil {
			if herr.status < 400 || herr.status > 499 || herr.msg == "" {
				t.Fatalf("refusal %d %q", herr.status, herr.msg)
			}
			return
		}
		checkAccepted(t, in, km)
	})
}

// checkAccepted checks an update the decoder accepted for model km.
func checkAccepted(t *testing.T, in *updateInput, km kindModel) {
	rows, cols := in.x.Dims()
	if rows < 1 || rows > 4 || cols != 2 || len(in.y) != rows || in.d < 0 ||
		len(in.args) == 0 || in.args[0] != "update" {
		t.Fatalf("accepted %d×%d rows, %d labels, d %d, args %v", rows, cols, len(in.y), in.d,
			in.args)
	}
	for _, v := range in.x.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("accepted the input %v", v)
		}
	}
	for _, y := range in.y {
		switch {
		case math.IsNaN(y) && km.kind == "semisupervised":
		case math.IsNaN(y) || math.IsInf(y, 0):
			t.Fatalf("accepted the label %v for a %s model", y, km.kind)
		case km.classes != nil && !slices.Contains(km.classes, y):
			t.Fatalf("accepted the label %v, not among %v", y, km.classes)
		}
	}
}
