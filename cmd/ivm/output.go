package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// stdoutPath is the OUTPUT or MODEL argument that means standard output.
const stdoutPath = "-"

// outputFile is where a command writes a result file:
//   - standard output for "-";
//   - the file itself when it is a device, a FIFO or another non-regular file, or under
//     /dev or /proc (/dev/null, /dev/stdout, a named pipe): written to, never replaced;
//   - otherwise a temporary file beside the path (beside the file a symbolic link leads
//     to), created with the umask's permissions (or those of the file it replaces), synced
//     and renamed into place by commit, so that a failure, an interrupt or a crash never
//     leaves a half-written or missing file. The temporary file is removed by discard and
//     by the signal handler (catchSignals).
type outputFile struct {
	w      io.Writer
	f      *os.File // nil for standard output
	path   string   // as given
	target string   // the file the temporary file replaces: path, its symbolic links resolved
	tmp    string   // the temporary file's name, "" when writing directly
	done   bool
}

// createOutput opens path for writing as outputFile describes; stdout is standard output.
func createOutput(path string, stdout io.Writer) (*outputFile, error) {
	if path == stdoutPath {
		return &outputFile{w: stdout, path: path}, nil
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return nil, fmt.Errorf("cannot write %s: it is a directory", path)
	case err == nil && (!st.Mode().IsRegular() || isSystemPath(path)):
		return openInPlace(path)
	}
	target := path
	perm := fs.FileMode(0o666) // less the umask, as the OS applies it on creation
	replaces := err == nil
	if replaces {
		perm = st.Mode().Perm()
		// A symbolic link stays: the file it leads to is replaced.
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
	}
	f, tmp, err := createTemp(target, perm)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	if replaces {
		f.Chmod(perm) // the umask may have cleared bits the replaced file had
	}
	return &outputFile{w: f, f: f, path: path, target: target, tmp: tmp}, nil
}

// openInPlace opens path to write to it directly. Appending leaves what a shell's ">>" put
// there and writes from the start of what its ">" truncated, when /dev/stdout leads to a
// regular file.
func openInPlace(path string) (*outputFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
	}
	return &outputFile{w: f, f: f, path: path}, nil
}

// isSystemPath reports whether path names a file of /dev or /proc (/dev/stdout, a
// /proc/self/fd entry), which is written to, never replaced, whatever it leads to.
func isSystemPath(path string) bool {
	abs, err := filepath.Abs(path)
	return err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/"))
}

// createTemp creates a new hidden file ".BASE.tmp-RANDOM" beside path with permissions perm
// (less the umask) and registers it for removal on a signal.
func createTemp(path string, perm fs.FileMode) (*os.File, string, error) {
	for {
		var b [6]byte
		rand.Read(b[:])
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(b[:]))
		f, err := pending.create(name, perm)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
}

func (o *outputFile) Write(p []byte) (int, error) { return o.w.Write(p) }

// commit finishes the output: a temporary file is synced, closed and renamed into place.
func (o *outputFile) commit() error {
	o.done = true
	if o.f == nil {
		return nil
	}
	if o.tmp == "" {
		return o.f.Close()
	}
	defer pending.remove(o.tmp)
	err := o.f.Sync()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.tmp, o.target)
	}
	if err != nil {
		os.Remove(o.tmp)
		return fmt.Errorf("cannot write %s: %w", o.path, err)
	}
	return nil
}

// discard abandons the output unless commit finished it: the temporary file is removed,
// the file it would have replaced is left as it was.
func (o *outputFile) discard() {
	if o == nil || o.done {
		return
	}
	o.done = true
	if o.f != nil {
		o.f.Close()
	}
	if o.tmp != "" {
		os.Remove(o.tmp)
		pending.remove(o.tmp)
	}
}

// writeOutput writes data to path as an outputFile.
func writeOutput(path string, data []byte, stdout io.Writer) error {
	out, err := createOutput(path, stdout)
	if err != nil {
		return err
	}
	defer out.discard()
	if _, err := out.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return out.commit()
}

// checkOutputs refuses, before any work, an output that is a directory, that is one of
// the inputs (the same file under any name), or that is given twice: writing it would
// destroy what the command reads, or lose a result. Empty outputs are unset options.
func checkOutputs(inputs []string, outputs ...string) error {
	seen := map[string]bool{}
	for _, out := range outputs {
		if out == "" || out == stdoutPath {
			continue
		}
		ost, err := os.Stat(out)
		if err == nil && ost.IsDir() {
			return fmt.Errorf("cannot write %s: it is a directory", out)
		}
		if st, derr := os.Stat(filepath.Dir(out)); derr != nil || !st.IsDir() {
			return fmt.Errorf("cannot write %s: no such directory %s", out, filepath.Dir(out))
		}
		if err == nil && (!ost.Mode().IsRegular() || isSystemPath(out)) {
			continue // a device or pipe is written to, not replaced
		}
		abs, _ := filepath.Abs(out)
		if seen[abs] {
			return fmt.Errorf("%s is given as two outputs", out)
		}
		seen[abs] = true
		for _, in := range inputs {
			if in == "" {
				continue
			}
			inAbs, _ := filepath.Abs(in)
			ist, ierr := os.Stat(in)
			if inAbs == abs || (err == nil && ierr == nil && os.SameFile(ist, ost)) {
				return fmt.Errorf("%s is both an input and an output: refusing to overwrite it", out)
			}
		}
	}
	return nil
}

// pendingFiles are the temporary files that exist now, for the signal handler.
type pendingFiles struct {
	mu    sync.Mutex
	names map[string]bool
}

var pending = &pendingFiles{names: map[string]bool{}}

// create creates the new file name and records it, under the lock: the signal handler
// either sees the file or stops its creation.
func (p *pendingFiles) create(name string, perm fs.FileMode) (*os.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err == nil {
		p.names[name] = true
	}
	return f, err
}

func (p *pendingFiles) remove(name string) {
	p.mu.Lock()
	delete(p.names, name)
	p.mu.Unlock()
}

// removeAll removes every pending temporary file; the lock stays held, so that none is
// created or renamed after it (the process is about to exit).
func (p *pendingFiles) removeAll() {
	p.mu.Lock()
	for name := range p.names {
		os.Remove(name)
	}
}

// caught is catchSignals' channel.
var caught chan os.Signal

// releaseSignals stops catchSignals' handling, for a command that handles the signals
// itself (serve: SIGTERM stops it gracefully, SIGHUP reloads its models).
func releaseSignals() {
	if caught != nil {
		signal.Stop(caught)
	}
}

// catchSignals removes the temporary files on SIGINT, SIGTERM or SIGHUP and exits with
// 128 + the signal's number, as a shell reports a process the signal killed.
func catchSignals(stderr io.Writer) {
	ch := make(chan os.Signal, 1)
	caught = ch
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-ch
		pending.removeAll()
		fmt.Fprintf(stderr, "ivm: %v: stopped, no output written\n", sig)
		code := 1
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}
