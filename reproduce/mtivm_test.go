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
