package reproduce

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestScaleGamma(t *testing.T) {
	got, err := scaleGamma("rbf(gamma=0.01,variance=2)+lin(variance=0.5)+bias+white", 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "rbf(gamma=0.02,variance=2)") ||
		!strings.Contains(got, "lin(variance=0.5)") {
		t.Errorf("scaled spec %q", got)
	}
	if _, err := scaleGamma("lin+bias", 3, 2); err == nil {
		t.Error("kernel without an rbf: no error")
	}
	if _, err := scaleGamma("rbf(gamma=", 3, 2); err == nil {
		t.Error("bad spec: no error")
	}
}

func TestUSPSWidthsQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: trains USPS classifiers at several kernel widths")
	}
	r, err := USPSWidths(Config{Quick: true, Workers: 2, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kernels) != 10 || len(r.Errors) != 2 || len(r.TenClass) != 2 || r.Test != 2007 {
		t.Fatalf("shape: %d kernels, %d rows, %d ten-class figures, %d test images",
			len(r.Kernels), len(r.Errors), len(r.TenClass), r.Test)
	}
	for f, e := range r.TenClass {
		// 1000 training images, d = 100: about 9 % at the learnt widths; chance is 90 %.
		if !(e > 0 && e < 20) {
			t.Errorf("factor %v: ten-class error %.2f %%", r.Factors[f], e)
		}
		for k, n := range r.Errors[f] {
			if n <= 0 || n > 200 {
				t.Errorf("factor %v digit %d: %d binary errors", r.Factors[f], k, n)
			}
		}
	}
	for k, b := range r.BestFactor {
		for f := range r.Factors {
			if r.Errors[f][k] < r.Errors[b][k] {
				t.Errorf("digit %d: best factor %d has %d errors, factor %d %d",
					k, b, r.Errors[b][k], f, r.Errors[f][k])
			}
		}
	}
	var out bytes.Buffer
	e, err := Lookup("usps-widths")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(&out, Config{Quick: true, Workers: 2, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ten-class") ||
		!strings.Contains(out.String(), "optimistic bound") {
		t.Errorf("output:\n%s", out.String())
	}
}
