//go:build linux

package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runRedirected runs ivm with args in dir under sh, after redir (such as "3>>a.csv"), and
// returns its exit status and standard error.
func runRedirected(t *testing.T, dir, redir string, args ...string) (int, string) {
	t.Helper()
	script := []string{"-c", `exec "$0" "$@" ` + redir, builtIVM(t)}
	cmd := exec.Command("sh", append(script, args...)...)
	cmd.Dir = dir
	var errOut strings.Builder
	cmd.Stderr = &errOut
	cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("ivm %v did not run", args)
	}
	return cmd.ProcessState.ExitCode(), errOut.String()
}

// identityFixtures writes a two-class training file, its model, and the three parts of a
// three-class training into dir.
func identityFixtures(t *testing.T, dir string) {
	t.Helper()
	var b, c strings.Builder
	for i := range 60 {
		x, y := float64(i%7)-3, float64(i%5)-2
		fmt.Fprintf(&b, "%g,%g,%d\n", x, y, 2*((i%7+i%5)%2)-1)
		fmt.Fprintf(&c, "%g,%g,%d\n", x+float64(3*(i%3)), y, 1+i%3)
	}
	writeTestFile(t, filepath.Join(dir, "a.csv"), b.String())
	writeTestFile(t, filepath.Join(dir, "mc.csv"), c.String())
	r := runBinary(t, dir, "", nil, "train", "-quiet", "-iters", "0", "a.csv", "m.json")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	for p := range 3 {
		part, out := fmt.Sprintf("%d/3", p), fmt.Sprintf("p%d.json", p)
		args := a("train", "-quiet", "-iters", "0", "-part", part, "mc.csv", out)
		if r := runBinary(t, dir, "", nil, args...); r.code != 0 {
			t.Fatal(r.stderr)
		}
	}
}

// An output is refused when it is an input, whatever name leads to it: a link through
// /proc, a file descriptor the shell opened on the input for appending, or standard output
// redirected onto the input. Nothing in the folder changes.
func TestOutputIsNeverAnInput(t *testing.T) {
	dir := t.TempDir()
	identityFixtures(t, dir)
	link := filepath.Join(t.TempDir(), "out-link") // outside dir: snapshot would read it
	if err := os.Symlink("/dev/stdout", link); err != nil {
		t.Fatal(err)
	}
	train := a("train", "-quiet", "-iters", "0")
	for _, c := range []struct {
		redir string
		args  []string
		msg   string
	}{
		{"", append(train, "a.csv", "/proc/self/cwd/a.csv"),
			"/proc/self/cwd/a.csv is both an input and an output (it is the input a.csv)"},
		{"3>>a.csv", append(train, "a.csv", "/dev/fd/3"),
			"/dev/fd/3 is both an input and an output"},
		{"3>>a.csv", append(train, "a.csv", "/proc/self/fd/3"), "/proc/self/fd/3 is both"},
		{">>a.csv", append(train, "a.csv", "/dev/stdout"), "/dev/stdout is both"},
		{">>a.csv", append(train, "a.csv", "-"),
			"standard output (-) is both an input and an output"},
		{">>a.csv", append(train, "a.csv", link), "out-link is both"},
		{"<a.csv >>a.csv", append(train, "-", "-"),
			"standard output (-) is both an input and an output (it is standard input)"},
		{"3>>m.json", a("predict", "a.csv", "m.json", "/proc/self/fd/3"), "it is the input m.json"},
		{">>a.csv", a("predict", "a.csv", "m.json", "/dev/stdout"), "it is the input a.csv"},
		{">>m.json", a("predict", "a.csv", "m.json", "-"), "it is the input m.json"},
		{">>p0.json", a("merge", "p0.json", "p1.json", "p2.json", "/dev/stdout"),
			"it is the input p0.json"},
		{"3>>p2.json", a("merge", "p0.json", "p1.json", "p2.json", "/dev/fd/3"),
			"it is the input p2.json"},
		{"", a("merge", "p0.json", "p1.json", "p2.json", "/proc/self/cwd/p1.json"),
			"it is the input p1.json"},
		{"<a.csv", a("merge", "p0.json", "p1.json", "p2.json", "/dev/stdin"),
			"it is standard input"},
		{"<mc.csv", a("predict", "a.csv", "m.json", "/proc/self/fd/0"), "it is standard input"},
	} {
		before := snapshot(t, dir)
		code, stderr := runRedirected(t, dir, c.redir, c.args...)
		cmdline := "ivm " + strings.Join(c.args, " ") + " " + c.redir
		if code != 1 || !strings.Contains(stderr, c.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", cmdline, code, stderr, c.msg)
		}
		if after := snapshot(t, dir); !sameFiles(before, after) {
			t.Errorf("%s changed the folder: %s", cmdline, diffFiles(before, after))
		}
	}
}

// A regular file under /dev or /proc that no file descriptor names (/dev/shm/x, a path
// through /proc/self/cwd) is replaced like any other file, never appended to; a file
// descriptor the shell opened for appending is still appended to.
func TestOutputUnderDevIsReplaced(t *testing.T) {
	dir := t.TempDir()
	identityFixtures(t, dir)
	shm, err := os.MkdirTemp("/dev/shm", "ivm-test-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	defer os.RemoveAll(shm)
	want, _ := os.ReadFile(filepath.Join(dir, "m.json"))
	for _, out := range []string{filepath.Join(shm, "x.json"), "/proc/self/cwd/y.json"} {
		for range 2 {
			code, stderr := runRedirected(t, dir, "", "train", "-quiet", "-iters", "0", "a.csv",
				out)
			if code != 0 {
				t.Fatalf("ivm train a.csv %s: %s", out, stderr)
			}
		}
		path := out
		if strings.HasPrefix(out, "/proc/") {
			path = filepath.Join(dir, "y.json")
		}
		got, _ := os.ReadFile(path)
		if len(got) > len(want)+len(want)/2 || strings.Count(string(got), `"format"`) != 1 {
			t.Errorf("%s written twice holds %d bytes, one model is about %d", out, len(got),
				len(want))
		}
	}
	writeTestFile(t, filepath.Join(dir, "log.txt"), "before\n")
	code, stderr := runRedirected(t, dir, "3>>log.txt", "predict", "-quiet", "a.csv", "m.json",
		"/dev/fd/3")
	b, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
	if code != 0 || !strings.HasPrefix(string(b), "before\n") || len(b) < 100 {
		t.Errorf("predicting to /dev/fd/3 3>>log.txt: exit %d %s, the file holds %q",
			code, stderr, b)
	}
}

// ivm serve refuses a FIFO or a device as a model before reading it; a reload after the
// model's path became a FIFO or a link to /dev/zero is refused at once, the model loaded
// before is kept, and SIGTERM still stops the server.
func TestServeRefusesFIFOAndDevice(t *testing.T) {
	bin := builtIVM(t)
	dir := t.TempDir()
	model, _, _ := trainedModel(t, dir, "digits", 30)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", fifo} {
		r := runBinary(t, dir, "", nil, "serve", "-addr", "127.0.0.1:0", path)
		if r.code != 1 || !strings.Contains(r.stderr, "not a regular file") ||
			r.elapsed > 10*time.Second {
			t.Errorf("ivm serve %s: exit %d after %v, stderr %q", path, r.code, r.elapsed, r.stderr)
		}
	}
	r := runBinary(t, dir, "", nil, "serve", "../x=m.json")
	if r.code != 1 || !strings.Contains(r.stderr, `NAME "../x" is not a model name`) {
		t.Errorf("ivm serve ../x=m.json: exit %d, stderr %q", r.code, r.stderr)
	}
	cmd := exec.Command(bin, "serve", "-addr", "127.0.0.1:0", model)
	logs := &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, func() bool { return strings.Contains(logs.String(), `"msg":"serving"`) })
	for i, replace := range []func() error{
		func() error { return os.Rename(fifo, model) },
		func() error { os.Remove(model); return os.Symlink("/dev/zero", model) },
	} {
		if err := replace(); err != nil {
			t.Fatal(err)
		}
		cmd.Process.Signal(syscall.SIGHUP)
		waitFor(t, func() bool { return strings.Count(logs.String(), "reload refused") == i+1 })
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("SIGTERM did not stop the server:\n%s", logs.String())
	}
}

// runPiped runs `from | ivm args...` under sh in dir, killed after a minute.
func runPiped(t *testing.T, dir, from string, args ...string) (int, string, time.Duration) {
	t.Helper()
	script := []string{"-c", from + ` | "$0" "$@"`, builtIVM(t)}
	cmd := exec.Command("sh", append(script, args...)...)
	cmd.Dir = dir
	var errOut strings.Builder
	cmd.Stderr = &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	cmd.Wait()
	return cmd.ProcessState.ExitCode(), errOut.String(), time.Since(start)
}

// Endless blank input on standard input ends with a clear error, and a model trained from
// a pipe or a FIFO records the SHA-256 of the data that came through it.
func TestPipedInputBoundedAndHashed(t *testing.T) {
	dir := t.TempDir()
	identityFixtures(t, dir)
	for _, c := range []struct{ from, cmd, want string }{
		{`yes ""`, "train /dev/stdin m.json", "bytes of blank or comment lines in a row"},
		{`yes " "`, "info /dev/stdin", "bytes of white space before its first '{'"},
		{`yes " "`, "info -", "bytes of white space before its first '{'"},
	} {
		code, stderr, took := runPiped(t, dir, c.from, strings.Fields(c.cmd)...)
		if code != 1 || !strings.Contains(stderr, c.want) || took > 30*time.Second {
			t.Errorf("%s | ivm %s: exit %d after %v, stderr %q", c.from, c.cmd, code, took, stderr)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "a.csv"))
	want := fmt.Sprintf("%x", sha256.Sum256(data))
	fifo := filepath.Join(dir, "fifo.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(data)
			f.Close()
		}
	}()
	for _, c := range []struct{ from, data, model string }{
		{"cat a.csv", "-", "pipe.json"},
		{"true", "fifo.csv", "fifo.json"},
	} {
		code, stderr, _ := runPiped(t, dir, c.from, "train", "-quiet", "-iters", "0",
			c.data, c.model)
		var m struct{ Training struct{ SHA256 string } }
		b, _ := os.ReadFile(filepath.Join(dir, c.model))
		json.Unmarshal(b, &m)
		if code != 0 || m.Training.SHA256 != want {
			t.Errorf("ivm train %s: exit %d %s, sha256 %q, want %q", c.data, code, stderr,
				m.Training.SHA256, want)
		}
	}
}

// A train whose progress goes to a pipe that closes (`2>&1 | head -c 1`) stops on SIGPIPE
// without leaving its temporary file.
func TestBrokenPipeLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	identityFixtures(t, dir)
	script := []string{"-c", `"$0" "$@" 2>&1 | head -c 1 >/dev/null`, builtIVM(t)}
	cmd := exec.Command("sh", append(script, "train", "-d", "20", "mc.csv", "x.json")...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".x.json.tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
