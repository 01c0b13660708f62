package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A /proc/self/fd path (what /dev/stdout leads to) is written in place, even when it leads
// to a regular file, and appended to, as a shell's redirection expects.
func TestOutputThroughProcFD(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "redirected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("before\n")
	writeVia(t, fmt.Sprintf("/proc/self/fd/%d", f.Fd()), "predictions\n")
	if b, _ := os.ReadFile(f.Name()); string(b) != "before\npredictions\n" {
		t.Errorf("the redirected file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the redirected one", len(entries))
	}
}
