package reproduce

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// The quick semi-supervised USPS run: 1000 images of which a quarter keep their labels, both
// tables (kernel learnt; kernel from the supervised IVM), printed beside the paper's.
func TestUSPSNCNMQuick(t *testing.T) {
	res, err := USPSNCNM(Config{Quick: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Kernel != "learnt" || res[1].Kernel != "fixed" {
		t.Fatalf("results %+v", res)
	}
	for _, r := range res {
		if len(r.Errors) != 1 || len(r.Errors[0]) != 1 {
			t.Fatalf("%s: %d fractions", r.Kernel, len(r.Errors))
		}
		e := r.Errors[0][0]
		t.Logf("%s: binary %.3v, overall %.2f %%", r.Kernel, e[:10], e[10])
		// About 250 labelled images: each binary classifier must beat "always no" (which
		// errs on the digit's share, about 10 %) on most digits, and the ten-class
		// classifier must be far better than chance (90 %).
		better := 0
		for _, v := range e[:10] {
			if v < 7 {
				better++
			}
		}
		if better < 9 || e[10] > 25 {
			t.Errorf("%s: binary %.3v, overall %.2f %%", r.Kernel, e[:10], e[10])
		}
	}
	var out bytes.Buffer
	writeUSPSNCNM(&out, res, true)
	if s := out.String(); !strings.Contains(s, "Table 1") || !strings.Contains(s, "Table 2") ||
		!strings.Contains(s, "6.10 ± 0.41") {
		t.Errorf("table:\n%s", s)
	}
}

// -only for usps-ncnm takes the kinds and the paper's fractions; a fraction's labellings
// are seeded by its place in the paper's list, whatever else is asked for.
func TestNCNMOnly(t *testing.T) {
	kinds, fr, err := ncnmOnly("learnt, 0.25")
	if err != nil || len(kinds) != 1 || kinds[0] != "learnt" || len(fr) != 1 || fr[0] != 0.25 {
		t.Errorf("learnt,0.25: %v %v %v", kinds, fr, err)
	}
	kinds, fr, err = ncnmOnly("0.1,0.01")
	if err != nil || len(kinds) != 2 || len(fr) != 2 {
		t.Errorf("0.1,0.01: %v %v %v", kinds, fr, err)
	}
	kinds, fr, err = ncnmOnly("")
	if err != nil || len(kinds) != 2 || fr != nil {
		t.Errorf("empty: %v %v %v", kinds, fr, err)
	}
	for _, bad := range []string{"0.3", "learned", "fixed,x"} {
		if _, _, err := ncnmOnly(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if ncnmSeedIndex(0.25, 0) != 4 || ncnmSeedIndex(0.01, 3) != 0 || ncnmSeedIndex(0.3, 2) != 2 {
		t.Error("seed index is not r's place in the paper's list")
	}
}
