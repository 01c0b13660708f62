package ivm_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/internal/reftest"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// A model written to a file and read back predicts exactly what the original predicts.
func TestModelFileRoundTrip(t *testing.T) {
	for _, c := range []struct{ train, test, noise string }{
		{"class_train_500.csv", "class_test_2000.csv", "probit"},
		{"reg_train_2000.csv", "reg_test_1000.csv", "gaussian"},
		{"ord_train_500.csv", "ord_test_1000.csv", "ordinal"},
		{"semi_train_500.csv", "class_test_2000.csv", "ncnm"},
	} {
		x, y, err := reftest.ReadXY(c.train)
		if err != nil {
			t.Fatal(err)
		}
		xt, _, err := reftest.ReadXY(c.test)
		if err != nil {
			t.Fatal(err)
		}
		_, dim := x.Dims()
		k, err := kern.Parse("rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+white(variance=0.1353352832366127)", dim)
		if err != nil {
			t.Fatal(err)
		}
		nm, _ := noise.ByName(c.noise)
		m, err := ivm.FitFixed(x, y, k, nm, 50, ivm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		meta := &ivm.ModelMeta{Training: ivm.Provenance{File: c.train, Rows: 500}}
		if err := ivm.WriteModel(&buf, m, meta); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		m2, meta2, err := ivm.ReadModel(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if meta2.Training.File != c.train {
			t.Errorf("provenance %+v", meta2.Training)
		}
		p1, p2 := m.Predict(xt), m2.Predict(xt)
		for i := range p1 {
			if p1[i].Label != p2[i].Label || p1[i].Mean != p2[i].Mean || p1[i].Var != p2[i].Var {
				t.Fatalf("%s test point %d: %+v before, %+v after the round trip", c.noise, i, p1[i], p2[i])
			}
		}
		var again bytes.Buffer
		if err := ivm.WriteModel(&again, m2, meta2); err != nil {
			t.Fatal(err)
		}
		if again.String() != text {
			t.Errorf("%s: the model file changed on a second round trip", c.noise)
		}
	}
}

func TestReadModelErrors(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`not json`, "not a readable model file"},
		{`{}`, "no \"format\""},
		{`{"format":"ivm-model/2"}`, "not supported"},
		{`{"format":"svm"}`, "unknown model format"},
		{`{"format":"ivm-model/1"}`, "lacks its kernel"},
	} {
		_, _, err := ivm.ReadModel(strings.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.file, err, c.want)
		}
	}
}
