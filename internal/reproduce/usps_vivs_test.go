package reproduce

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// The quick virtual-informative-vector run: learn, augment the active images with their
// translations, reselect, and print the table beside the paper's.
func TestUSPSTable3Quick(t *testing.T) {
	runs, err := USPSTable3(Config{Quick: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	for k, e := range runs[0] {
		if e < 0 || e > 25 {
			t.Errorf("column %d: %.2f %%", k, e)
		}
	}
	t.Logf("quick: %.3v", runs[0])
	var out bytes.Buffer
	writeUSPSTable3(&out, runs, true)
	if !strings.Contains(out.String(), "3.300") || !strings.Contains(out.String(), "± 0.00") {
		t.Errorf("table:\n%s", out.String())
	}
}
