//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// writeVia writes text to path through an outputFile and commits it.
func writeVia(t *testing.T, path, text string) {
	t.Helper()
	out, err := createOutput(path, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	defer out.discard()
	if _, err := out.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := out.commit(); err != nil {
		t.Fatal(err)
	}
}

// A new output gets the umask's permissions (not 0600), a replaced file keeps its own, and
// an output reached through a symbolic link replaces the file, not the link.
func TestOutputPermissionsAndLinks(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.txt")
	writeVia(t, fresh, "a")
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644 under umask 022", st.Mode().Perm())
	}
	private := filepath.Join(dir, "private.txt")
	os.WriteFile(private, []byte("old"), 0o640)
	os.Chmod(private, 0o640)
	writeVia(t, private, "new")
	if st, _ := os.Stat(private); st.Mode().Perm() != 0o640 {
		t.Errorf("replaced file mode %v, want its own 0640", st.Mode().Perm())
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("private.txt", link); err != nil {
		t.Fatal(err)
	}
	writeVia(t, link, "through the link")
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced by a file")
	}
	if b, _ := os.ReadFile(private); string(b) != "through the link" {
		t.Errorf("the link's target holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files in the folder, want fresh, private and the link", len(entries))
	}
}
