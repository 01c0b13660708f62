package reproduce

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/internal/reftest"
)

// The sine toy's experiment reproduces the reference's task order and prints it.
func TestMTIVMSine(t *testing.T) {
	c := Config{RefDir: reftest.Dir(), Log: io.Discard}
	r, err := MTIVMSine(c)
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, st := range r.Steps {
		order = append(order, st.Task+1)
	}
	if !slices.Equal(order, sineReferenceOrder) {
		t.Errorf("task order %v, reference %v", order, sineReferenceOrder)
	}
	if r.Learnt == nil || len(r.Learnt) != 15 {
		t.Errorf("learning run: %d inclusions, want 15", len(r.Learnt))
	}
	e, err := Lookup("mtivm-sine")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.Run(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "same as the reference: true") {
		t.Errorf("output:\n%s", buf.String())
	}
	for _, name := range []string{"mtivm-regression", "mtivm-vowel"} {
		if _, err := Lookup(name); err != nil {
			t.Error(err)
		}
	}
}

func TestRegressionBudgets(t *testing.T) {
	d, s, err := regressionBudgets("d400, d500,s150")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d, []int{400, 500}) || !slices.Equal(s, []int{150}) {
		t.Errorf("got d %v, s %v", d, s)
	}
	d, s, err = regressionBudgets("d250")
	if err != nil || s == nil || len(s) != 0 || !slices.Equal(d, []int{250}) {
		t.Errorf("d250: d %v, s %v (want an empty, non-nil sub-sample list), %v", d, s, err)
	}
	for _, bad := range []string{"", "x1", "d", "d-3", "s0", "d1.5", "d400,,s150"} {
		if _, _, err := regressionBudgets(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// -only runs the budgets it names and nothing else.
func TestMTIVMRegressionOnly(t *testing.T) {
	pts, err := MTIVMRegression(Config{Quick: true, Only: "d250", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 1 || pts[0].Method != "mtivm" || pts[0].Size != 250 {
		t.Errorf("points %+v", pts)
	}
	var out bytes.Buffer
	if err := runMTIVMRegression(&out, Config{Quick: true, Only: "d250", Out: t.TempDir(),
		Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
}
