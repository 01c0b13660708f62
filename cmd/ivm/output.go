package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/ivmlab/ivm/internal/atomicfile"
)

// stdoutPath is the OUTPUT or MODEL argument that means standard output.
const stdoutPath = "-"

// outputFile is where a command writes a result file:
//   - standard output for "-";
//   - the file itself when it is a device, a FIFO or another non-regular file, or reached
//     through a file descriptor (/dev/stdout, /dev/fd/N, /proc/self/fd/N): written to,
//     never replaced, as the shell's redirection that opened it expects;
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
	case err == nil && (!st.Mode().IsRegular() || isFDPath(path)):
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
	// The signal handler removes the temporary file (catchSignals).
	f, tmp, err := atomicfile.CreateTemp(target, perm, pending.create)
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

// isFDPath reports whether path, or a symbolic link on the way from it, names a file
// descriptor (/dev/stdout, /dev/fd/N, /proc/self/fd/N): a file the shell opened, to be
// written where its redirection put it. /dev/shm/x or /proc/self/cwd/x are plain files.
func isFDPath(path string) bool {
	for range 40 { // the kernel's limit on the links a path may pass through
		abs, err := filepath.Abs(path)
		if err != nil {
			return false
		}
		if fdPathPattern(abs) {
			return true
		}
		target, err := os.Readlink(abs)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		path = target
	}
	return false
}

// fdPathPattern matches the names of file descriptors: /dev/std{in,out,err}, /dev/fd/N
// and /proc/{self,thread-self,PID}/fd/N.
func fdPathPattern(abs string) bool {
	switch abs {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	if strings.HasPrefix(abs, "/dev/fd/") {
		return true
	}
	rest, ok := strings.CutPrefix(abs, "/proc/")
	if !ok {
		return false
	}
	proc, rest, _ := strings.Cut(rest, "/")
	return strings.HasPrefix(rest, "fd/") && (proc == "self" || proc == "thread-self" ||
		strings.Trim(proc, "0123456789") == "")
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
	if err := atomicfile.Commit(o.f, o.tmp, o.target); err != nil {
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
// the inputs, or that is given twice: writing it would destroy what the command reads, or
// lose a result. What a path is decides, not its name: links, /proc/self/cwd, /dev/fd/N
// and /dev/stdout are followed to the file (for "-", the file of standard output), and a
// regular file met as an input is never written, replaced or appended to. Devices and
// pipes may be both (/dev/null). Empty outputs are unset options.
func checkOutputs(inputs []string, outputs ...string) error {
	var written []string
	for _, out := range outputs {
		if out == "" {
			continue
		}
		if err := checkOutputDir(out); err != nil {
			return err
		}
		// Standard input counts as an input whether or not it is named: a shell's "<a.csv"
		// opened that file to be read, and /dev/stdin as an output would write into it.
		for _, in := range append(slices.Clip(inputs), stdinPath) {
			if in != "" && sameFile(in, os.Stdin, out) {
				if in == out && out != stdoutPath {
					return fmt.Errorf("%s is both an input and an output: "+
						"refusing to overwrite it", out)
				}
				return fmt.Errorf("%s is both an input and an output (it is %s): "+
					"refusing to write to it", outputName(out), inputName(in))
			}
		}
		for _, w := range written {
			if sameFile(w, os.Stdout, out) {
				return fmt.Errorf("%s is given as two outputs", out)
			}
		}
		written = append(written, out)
	}
	return nil
}

// outputName is how messages name an output: "-" is standard output.
func outputName(out string) string {
	if out == stdoutPath {
		return "standard output (-)"
	}
	return out
}

// inputName is how messages name an input: "-" is standard input.
func inputName(in string) string {
	if in == stdinPath {
		return "standard input"
	}
	return "the input " + in
}

// checkOutputDir refuses an output that is a directory or lies in a folder that is not.
func checkOutputDir(out string) error {
	if out == stdoutPath {
		return nil
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write %s: no such directory %s", out, filepath.Dir(out))
	}
	return nil
}

// sameFile reports whether the path in and the output out are the same regular file, or
// would be once created (the same absolute name). "-" is std for in and standard output
// for out: the file descriptor's file, whatever it leads to.
func sameFile(in string, std *os.File, out string) bool {
	ist, ierr := pathIdentity(in, std)
	ost, oerr := pathIdentity(out, os.Stdout)
	if ierr == nil && oerr == nil {
		return ist.Mode().IsRegular() && os.SameFile(ist, ost)
	}
	if in == stdoutPath || out == stdoutPath {
		return false
	}
	inAbs, err1 := filepath.Abs(in)
	outAbs, err2 := filepath.Abs(out)
	return err1 == nil && err2 == nil && inAbs == outAbs
}

// pathIdentity stats path, following links, or std for "-".
func pathIdentity(path string, std *os.File) (os.FileInfo, error) {
	if path == stdoutPath {
		return std.Stat()
	}
	return os.Stat(path)
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
	f, err := atomicfile.CreateExcl(name, perm)
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

// catchSignals removes the temporary files on SIGINT, SIGTERM, SIGHUP, SIGQUIT or SIGPIPE
// and exits with 128 + the signal's number, as a shell reports a process the signal killed.
// SIGQUIT (Ctrl-\) and SIGPIPE (ivm train ... 2>&1 | head) are caught too: Go's defaults
// for them, a goroutine dump or a silent exit, leave the temporary files behind.
func catchSignals(stderr io.Writer) {
	ch := make(chan os.Signal, 1)
	caught = ch
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGPIPE)
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
