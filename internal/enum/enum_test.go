package enum

import (
	"strings"
	"testing"
)

func TestEnum(t *testing.T) {
	names := []string{"auto", "scg", "lbfgs"}
	if v, err := Parse("ivm", "optimizer", names, " LBFGS "); v != 2 || err != nil {
		t.Errorf("Parse(LBFGS) = %d, %v", v, err)
	}
	if v, err := Parse("ivm", "optimizer", names, ""); v != 0 || err != nil {
		t.Errorf(`Parse("") = %d, %v, want the zero value`, v, err)
	}
	if _, err := Parse("ivm", "optimizer", names, "newton"); err == nil ||
		!strings.Contains(err.Error(), "want auto, scg, lbfgs") {
		t.Errorf("Parse(newton): %v", err)
	}
	if s := String("Optimizer", names, 7); s != "Optimizer(7)" {
		t.Errorf("String(7) = %q", s)
	}
	if _, err := Marshal("ivm", "Optimizer", names, -1); err == nil {
		t.Error("Marshal of a value without a name: no error")
	}
	if b, err := Marshal("ivm", "Optimizer", names, 1); string(b) != "scg" || err != nil {
		t.Errorf("Marshal(1) = %q, %v", b, err)
	}
}
