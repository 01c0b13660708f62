// Package atomicfile replaces a file at once: what is to be its content goes to a temporary
// file beside it, which is synced and renamed over it, so that a crash, an interrupt or a
// reader never finds it half written. The command-line tool writes its outputs so, and the
// server the model files its updates save.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Creator creates the new file name with permissions perm (less the umask), failing with
// fs.ErrExist if it exists: CreateExcl, or one that also records the name (to remove the
// file on a signal).
type Creator func(name string, perm fs.FileMode) (*os.File, error)

// CreateExcl is the Creator that creates the file alone.
func CreateExcl(name string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// CreateTemp creates, by create, a new hidden file ".BASE.tmp-RANDOM" beside target with
// permissions perm, and returns it and its name.
func CreateTemp(target string, perm fs.FileMode, create Creator) (*os.File, string, error) {
	for {
		var b [6]byte
		rand.Read(b[:])
		name := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".tmp-"+
			hex.EncodeToString(b[:]))
		f, err := create(name, perm)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
}

// Commit syncs and closes f, the temporary file named tmp, and renames it over target. On
// failure it removes tmp and target is left as it was.
func Commit(f *os.File, tmp, target string) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// WriteFile replaces the existing file at path (the file its symbolic links lead to) by
// data, with the permissions it had.
func WriteFile(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	st, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f, tmp, err := CreateTemp(target, st.Mode().Perm(), CreateExcl)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(st.Mode().Perm()) // the umask may have cleared bits the file had
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := Commit(f, tmp, target); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
