package reproduce

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"runtime/debug"
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

// The memory limit of a full usps-table1 run: twice the core less 24 MiB, never below the
// core plus 48 MiB, restored afterwards; none in quick mode or when GOMEMLIMIT is set.
func TestUSPSMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	core := 77.4e6 // two USPS classifiers' M (d = 500) and the data
	limit, restore := uspsMemoryLimit(core, false)
	if want := 2*core - 24<<20; math.Abs(limit-want) > 1 {
		t.Errorf("limit %.0f, want %.0f", limit, want)
	}
	if got := debug.SetMemoryLimit(-1); float64(got) != limit {
		t.Errorf("runtime limit %d, want %.0f", got, limit)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after restore %d, want %d", got, before)
	}
	small := 48e6 // one classifier at a time
	if limit, restore := uspsMemoryLimit(small, false); limit != small+48<<20 {
		t.Errorf("one at a time: limit %.0f, want core + 48 MiB = %.0f", limit, small+48<<20)
	} else {
		restore()
	}
	if limit, _ := uspsMemoryLimit(core, true); limit != 0 {
		t.Errorf("quick run set a limit %.0f", limit)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	if limit, _ := uspsMemoryLimit(core, false); limit != 0 {
		t.Errorf("GOMEMLIMIT set, yet a limit %.0f", limit)
	}
	if runtime.GOOS == "linux" && peakRSS() < 1e6 {
		t.Errorf("peak RSS %.0f bytes", peakRSS())
	}
}
