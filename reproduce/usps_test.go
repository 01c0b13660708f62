package reproduce

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// The quick USPS Table 1 run (rbf kernel, 1000 training images, d = 100, one iteration):
// the table prints with the paper's row beside ours and sensible errors.
func TestUSPSTable1Quick(t *testing.T) {
	rows, err := USPSTable1(Config{Quick: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Kernel != "rbf" {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	// Measured: binary errors 1.05–3.19 %, ten-class 8.77 %. A collapsed classifier (one
	// that names its digit for every image) would show 80–90 % here.
	for k, e := range r.Errors[:10] {
		if e < 0 || e > 5 {
			t.Errorf("digit %d binary error %.2f %%", k, e)
		}
	}
	if r.Errors[10] > 11 {
		t.Errorf("ten-class error %.2f %% with 1000 training images", r.Errors[10])
	}
	t.Logf("quick: binary %.3v, overall %.2f %%, %.1f s", r.Errors[:10], r.Errors[10], r.Seconds)
	if _, err := Lookup("usps-table1"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeUSPSTable1(&out, rows, true)
	if !strings.Contains(out.String(), "rbf (paper)") || !strings.Contains(out.String(), "4.58") {
		t.Errorf("table:\n%s", out.String())
	}
}
