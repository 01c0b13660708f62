package reproduce

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// The experiment is registered and reports a missing data folder as an error
// naming the file (the full table needs ../shared/data and runs for an hour;
// `ivm reproduce -quick archipelago` is the short version).
func TestArchipelagoRegistered(t *testing.T) {
	e, err := Lookup("archipelago")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = e.Run(&out, Config{DataDir: t.TempDir(), Quick: true, Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "pinwheel") {
		t.Errorf("missing data: error %v", err)
	}
}
