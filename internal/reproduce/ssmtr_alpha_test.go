package reproduce

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The quick graph-weight scan on the school data (the copy in testdata/ssmtr) prints one
// split and finds the evidence largest at the smallest weight, as the full run does.
func TestSSMTRAlphaQuick(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "ssmtr", "school_mtl.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dst := filepath.Join(dir, SchoolFile)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Lookup("ssmtr-alpha")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := e.Run(&out, Config{DataDir: dir, Quick: true, Workers: 2,
		Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if !strings.Contains(out.String(),
		"the evidence is largest at the smallest α (1e-8) on 1 of 1 splits") {
		t.Error("the evidence does not prefer the smallest weight on split 1")
	}
	if err := e.Run(io.Discard, Config{DataDir: t.TempDir(), Quick: true,
		Log: io.Discard}); err == nil {
		t.Error("missing data: no error")
	}
	if err := e.Run(io.Discard, Config{DataDir: dir, Quick: true, Only: "mnist",
		Log: io.Discard}); err == nil {
		t.Error("unknown data set: no error")
	}
}
