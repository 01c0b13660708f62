package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile replaces the file a symbolic link leads to, keeps its permissions and the link,
// and leaves no temporary file; a file that does not exist is refused, nothing created.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	file, link := filepath.Join(dir, "m.json"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(file, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("m.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("the file holds %q", b)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o640 {
		t.Errorf("permissions %v, want 0640", st.Mode().Perm())
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced")
	}
	if err := WriteFile(filepath.Join(dir, "none.json"), []byte("x")); err == nil {
		t.Error("a missing file was written")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*")); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// A failed rename removes the temporary file and leaves the target as it was.
func TestCommitFailureRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "d")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, tmp, err := CreateTemp(target, 0o644, CreateExcl)
	if err != nil {
		t.Fatal(err)
	}
	if err := Commit(f, tmp, target); err == nil { // a file cannot replace a full directory
		t.Fatal("the rename over a directory succeeded")
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary file %s left: %v", tmp, err)
	}
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		t.Errorf("the target changed: %v", err)
	}
}
