//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ivmlab/ivm/internal/pool"
)

// The hostile-input suite runs the ivm binary, built once, as a user (or an attacker)
// would: every command with bad, huge, mixed-up or dangerous arguments. Each case states
// the exit status and a part of the one line on stderr; every case is also checked for
// what it must not do: leave a temporary file, replace or change a file it was not asked
// to write, or replace a device.

var ivmBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// builtIVM returns the path of the ivm binary, built on first use.
func builtIVM(t *testing.T) string {
	t.Helper()
	ivmBinary.once.Do(func() {
		ivmBinary.dir, ivmBinary.err = os.MkdirTemp("", "ivm-bin-")
		if ivmBinary.err != nil {
			return
		}
		ivmBinary.path = filepath.Join(ivmBinary.dir, "ivm")
		out, err := exec.Command("go", "build", "-o", ivmBinary.path, ".").CombinedOutput()
		if err != nil {
			ivmBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if ivmBinary.err != nil {
		t.Fatal(ivmBinary.err)
	}
	return ivmBinary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if ivmBinary.dir != "" {
		os.RemoveAll(ivmBinary.dir)
	}
	os.Exit(code)
}

// runResult is what one run of the binary gave.
type runResult struct {
	code           int
	stdout, stderr string
	maxRSSKB       int64
	elapsed        time.Duration
}

// runBinary runs ivm with args in dir; shell, when not "", wraps it ("ulimit -v N; exec").
func runBinary(t *testing.T, dir, shell string, env []string, args ...string) runResult {
	t.Helper()
	bin := builtIVM(t)
	var cmd *exec.Cmd
	if shell != "" {
		cmd = exec.Command("sh",
			append([]string{"-c", shell + `; exec "$0" "$@"`, bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := runResult{stdout: out.String(), stderr: errOut.String(), elapsed: time.Since(start)}
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("ivm %v: %v", args, err)
	}
	r.code = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSKB = int64(ru.Maxrss)
	}
	return r
}

// hostileFixtures writes the files the cases use into dir and trains the models they
// need; names maps a placeholder to a path outside dir (devices).
func hostileFixtures(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(30, 1))
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	rows := func(n int, scale float64, f func(i int, a, c float64) string) string {
		b.Reset()
		for i := 0; i < n; i++ {
			a, c := rng.NormFloat64(), rng.NormFloat64()
			b.WriteString(f(i, a*scale, c*scale))
		}
		return b.String()
	}
	sign := func(v float64) int {
		if v > 0 {
			return 1
		}
		return -1
	}
	write("ok.csv", rows(60, 1, func(_ int, a, c float64) string {
		return fmt.Sprintf("%.4f,%.4f,%d\n", a, c, sign(a+c))
	}))
	write("big.csv", rows(60, 1e300, func(_ int, a, c float64) string {
		return fmt.Sprintf("%.6g,%.6g,%d\n", a, c, sign(a+c))
	}))
	write("edge.csv", rows(40, 1, func(i int, a, c float64) string {
		return fmt.Sprintf("%.6g,%.6g,%d\n", 1.7e308*float64(1-2*(i%2)), a, sign(a+c))
	}))
	write("reg.csv", rows(60, 1, func(_ int, a, c float64) string {
		return fmt.Sprintf("%.4f,%.4f,%.4f\n", a, c, math.Sin(a)+c)
	}))
	write("ok.libsvm", rows(60, 1, func(_ int, a, c float64) string {
		return fmt.Sprintf("%d 1:%.4f 2:%.4f\n", sign(a+c), a, c)
	}))
	write("mt.csv", rows(80, 1, func(i int, a, _ float64) string {
		return fmt.Sprintf("%d,%.4f,%.4f\n", 1+i%2, a, math.Sin(a)+0.3*float64(i%2))
	}))
	write("mtreg.csv", rows(60, 1, func(i int, a, _ float64) string {
		y := fmt.Sprintf("%.4f", math.Sin(2*a)+0.2*float64(i%3)+0.1*rng.NormFloat64())
		if i%4 == 0 {
			y = "?"
		}
		return fmt.Sprintf("%d,%.6g,%s\n", 1+i%3, a, y)
	}))
	write("mtreg1e200.csv", rows(60, 1e200, func(i int, a, _ float64) string {
		y := fmt.Sprintf("%.4f", math.Sin(2*a/1e200)+0.2*float64(i%3)+0.1*rng.NormFloat64())
		if i%4 == 0 {
			y = "?"
		}
		return fmt.Sprintf("%d,%.6g,%s\n", 1+i%3, a, y)
	}))
	write("rows5k.csv", rows(5000, 1, func(i int, a, c float64) string {
		return fmt.Sprintf("%d,%.3f,%.3f\n", 1+i%2, a, c)
	}))
	write("ybig.csv", rows(60, 1, func(_ int, a, c float64) string {
		return fmt.Sprintf("%.4f,%.6g\n", a, (a+0.1*c)*1e300)
	}))
	write("mtybig.csv", rows(60, 1, func(i int, a, c float64) string {
		y := fmt.Sprintf("%.6g", (math.Sin(2*a)+0.2*float64(i%3)+0.1*c)*1e200)
		if i%4 == 0 {
			y = "?"
		}
		return fmt.Sprintf("%d,%.4f,%s\n", 1+i%3, a, y)
	}))
	write("mtcls.csv", rows(60, 1, func(i int, a, _ float64) string {
		return fmt.Sprintf("%d,%.4f,%d\n", 1+i%2, a, 5*(1+sign(a)))
	}))
	write("mtreg-nolabel.csv", "1,0.1,?\n1,0.2,?\n2,0.3,1\n2,0.5,2\n")
	write("pinwheel.csv", rows(40, 1, func(i int, a, c float64) string {
		cls := i % 2
		y := fmt.Sprint(cls + 1)
		if i >= 8 {
			y = "?"
		}
		return fmt.Sprintf("%.4f,%.4f,%s\n", a*0.3+3*float64(cls), c*0.3, y)
	}))
	write("pintest.csv", "0.1,0.1,1\n3,0.2,2\n")
	write("pin3d.csv", "0,0,0,1\n1,1,1,2\n0,1,0,?\n")
	write("pintest-new.csv", "0.1,0.1,7\n")
	write("pintest-unl.csv", "0.1,0.1,?\n")
	write("oneclass-arch.csv", "0,0,1\n1,1,1\n0,1,?\n")
	// Sixty-four inputs and ten classes, for a thirty-input binary model.
	b.Reset()
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%d", 10+i%10)
		for j := 1; j <= 64; j++ {
			fmt.Fprintf(&b, " %d:%.3f", j, rng.Float64())
		}
		b.WriteString("\n")
	}
	write("digits64.libsvm", b.String())
	b.Reset()
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%d", 2*(i%2)-1)
		for j := 1; j <= 30; j++ {
			fmt.Fprintf(&b, " %d:%.3f", j, rng.Float64()+float64(i%2))
		}
		b.WriteString("\n")
	}
	write("bin30.libsvm", b.String())
	b.Reset()
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "%d 1:0.5 2000000:1\n", 2*(i%2)-1)
	}
	write("index2m.libsvm", b.String())
	write("index2g.libsvm", "1 1:0.5 2147483648:1\n")
	b.Reset()
	b.WriteString("1 1:0.5 300000:1\n")
	for i := 0; i < 202; i++ {
		fmt.Fprintf(&b, "%d 1:%.3f 2:%.3f\n", 2*(i%2)-1, rng.Float64(), rng.Float64())
	}
	write("index300k.libsvm", b.String())
	write("cr.csv", "1,2,1\r3,4,-1\r5,6,1\r")
	write("utf16.csv", "\xff\xfe1\x00,\x002\x00,\x001\x00\n\x00")
	write("utf16nobom.csv", "1\x00,\x002\x00,\x001\x00\n\x00")
	write("binary.dat", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	write("empty.csv", "")
	write("comments.csv", "# nothing\n\n# here\n")
	write("header.csv", "a,b,y\n")
	write("ragged.csv", "1,2,1\n3,-1\n")
	write("onerow.csv", "1,2,1\n")
	write("nonnum.csv", "1,2,1\n3,x,-1\n")
	write("nan.csv", "1,NaN,1\n2,3,-1\n")
	write("hugeval.csv", "1,1e999,1\n2,3,-1\n")
	write("wide.csv", "1,2,3,1\n")
	write("longline.csv", strings.Repeat("1", 3<<20)+",1\n")
	write("pairs-bad.csv", "1,2\n")
	write("pairs-range.csv", "1,999,0.5\n")
	write("pairs-task.csv", "1,2,0.5\n")
	write("underscore.csv", "3,4,-1\n1_000,2,1\n5,6,-1\n")
	write("blank.csv", strings.Repeat("\n", 2<<20)+"1,2,1\n3,4,-1\n")
	write("comment-run.csv", strings.Repeat("# a comment line\n", 1<<17)+"1,2,1\n")
	write("spaces.json", strings.Repeat(" ", 2<<20)+"{}")
	write("ytiny.csv", rows(60, 1, func(_ int, a, c float64) string {
		return fmt.Sprintf("%.4f,%.6g\n", a, (a+0.1*c)*1e-200)
	}))
	write("model.txt", "this is not a model\n")
	write("array.json", "[1,2,3]\n")
	write("trunc.json", `{"format":"ivm-model/1","task":"bin`)
	write("future.json", `{"format":"ivm-model/2"}`)
	write("mtbad-task.json", `{"format":"ivm-mtmodel/1","kernel":{},"tasks":[{}]}`)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	gzipped := func(name string, n int, chunk string) {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		block := []byte(strings.Repeat(chunk, 1<<16/len(chunk)))
		for w := 0; w < n; w += len(block) {
			zw.Write(block)
		}
		zw.Close()
		write(name, buf.String())
	}
	gzipped("bomb.csv.gz", 80<<20, "1")         // one 80 MB line
	gzipped("bombrows.csv.gz", 16<<20, "1,2\n") // four million short rows
	if err := os.Link(filepath.Join(dir, "ok.csv"), filepath.Join(dir, "ok-link.csv")); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{
		{"train", "-quiet", "-iters", "0", "ok.csv", "ok.json"},
		{"train", "-quiet", "-iters", "0", "ok.libsvm", "oklibsvm.json"},
		{"train", "-quiet", "-iters", "0", "bin30.libsvm", "bin30.json"},
		{"train", "-quiet", "-iters", "0", "-noise", "gaussian", "reg.csv", "reg.json"},
		{"train", "-quiet", "-iters", "0", "-tasks", "-task-col", "first", "mt.csv", "mt.json"},
		{"train", "-quiet", "-iters", "0", "-tasks", "-task-col", "first",
			"mtcls.csv", "mtcls.json"},
		{"train", "-quiet", "big.csv", "big.json"},
		{"train", "-quiet", "-iters", "0", "ybig.csv", "ybig.json"},
	} {
		if r := runBinary(t, dir, "", nil, args...); r.code != 0 {
			t.Fatalf("fixture: ivm %v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	edit := func(from, name string, f func(m map[string]any)) {
		raw, err := os.ReadFile(filepath.Join(dir, from))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		out, _ := json.Marshal(m)
		write(name, string(out))
	}
	firstTask := func(m map[string]any) map[string]any {
		return m["tasks"].([]any)[0].(map[string]any)
	}
	edit("ok.json", "neg-site.json", func(m map[string]any) {
		m["site_precision"].([]any)[0] = -2.5
	})
	edit("ok.json", "zero-site.json", func(m map[string]any) {
		m["site_precision"].([]any)[1] = 0.0
	})
	edit("ok.json", "dim-huge.json", func(m map[string]any) {
		m["input_dim"] = 4611686018427387904.0
	})
	edit("ok.json", "dim-3.json", func(m map[string]any) { m["input_dim"] = 3.0 })
	edit("ok.json", "short-sites.json", func(m map[string]any) { m["site_mean"] = []any{1.0} })
	edit("mt.json", "mt-dim62.json", func(m map[string]any) {
		m["input_dim"] = 4611686018427387904.0
	})
	edit("mt.json", "mt-dim1e12.json", func(m map[string]any) { m["input_dim"] = 1e12 })
	edit("mt.json", "mt-dim2.json", func(m map[string]any) { m["input_dim"] = 2.0 })
	edit("mt.json", "mt-negsite.json", func(m map[string]any) {
		firstTask(m)["site_precision"].([]any)[0] = -2.5
	})
	edit("mt.json", "mt-row.json", func(m map[string]any) {
		m["active"].([]any)[0].(map[string]any)["row"] = -3.0
	})
	edit("mt.json", "mt-dup.json", func(m map[string]any) {
		m["tasks"].([]any)[1].(map[string]any)["name"] = firstTask(m)["name"]
	})
	edit("mt.json", "mt-labels.json", func(m map[string]any) { m["labels"] = []any{3.0, 1.0} })
	edit("mt.json", "mt-format.json", func(m map[string]any) { m["format"] = "ivm-mtmodel/9" })
}

// hostileCase is one command line and what it must give.
type hostileCase struct {
	args []string
	// code is the exit status; msg a part of the first line of stderr (for status 0, of
	// stderr as a whole; "" checks nothing), out a part of stdout ("" checks nothing).
	code     int
	msg, out string
	// creates lists the files of the fixture folder the case may create (removed after).
	creates []string
}

// hostileCases are the cases, by command. "{d}" stands for the fixture folder.
var hostileCases = map[string][]hostileCase{
	"train": {
		{args: a("train", "/dev/zero", "m.json"), code: 1,
			msg: "line 1 is longer than 16777216 bytes"},
		{args: a("train", "bomb.csv.gz", "m.json"), code: 1,
			msg: "line 1 is longer than 16777216 bytes"},
		{args: a("train", "-max-mem", "16M", "bombrows.csv.gz", "m.json"), code: 1,
			msg: "the input matrix passes the limit of 699050 values"},
		{args: a("train", "index2m.libsvm", "m.json"), code: 1,
			msg: "line 45: 45 rows × 2000000 features exceeds the limit of 89478485 values"},
		{args: a("train", "index2g.libsvm", "m.json"), code: 1, msg: "bad feature index"},
		{args: a("train", "-max-mem", "256M", "index300k.libsvm", "m.json"), code: 1,
			msg: "rows × 300000 features exceeds the limit"},
		{args: a("train", "longline.csv", "m.json"), code: 1, msg: "is not finite"},
		{args: a("train", "-max-mem", "64M", "longline.csv", "m.json"), code: 1,
			msg: "line 1 is longer than 524288 bytes"},
		{args: a("train", "cr.csv", "m.json"), code: 1,
			msg: "line 1: holds a carriage return inside the line"},
		{args: a("train", "utf16.csv", "m.json"), code: 1, msg: "UTF-16 text"},
		{args: a("train", "utf16nobom.csv", "m.json"), code: 1, msg: "holds a NUL byte"},
		{args: a("train", "binary.dat", "m.json"), code: 1, msg: "holds a NUL byte"},
		{args: a("train", "empty.csv", "m.json"), code: 1, msg: "no data rows"},
		{args: a("train", "comments.csv", "m.json"), code: 1, msg: "no data rows"},
		{args: a("train", "header.csv", "m.json"), code: 1, msg: "no data rows"},
		{args: a("train", "ragged.csv", "m.json"), code: 1, msg: "row has 2 fields, expected 3"},
		{args: a("train", "onerow.csv", "m.json"), code: 1, msg: "a single class cannot be learnt"},
		{args: a("train", "nonnum.csv", "m.json"), code: 1, msg: `feature "x" is not a number`},
		{args: a("train", "nan.csv", "m.json"), code: 1, msg: "is not finite"},
		{args: a("train", "hugeval.csv", "m.json"), code: 1, msg: "is not finite"},
		{args: a("train", "missing.csv", "m.json"), code: 1, msg: "no such file or directory"},
		{args: a("train", "sub", "m.json"), code: 1, msg: "sub: is a directory, not a data file"},
		{args: a("train", "ok.csv", "ok.csv"), code: 1,
			msg: "ok.csv is both an input and an output"},
		{args: a("train", "ok.csv", "ok-link.csv"), code: 1,
			msg: "ok-link.csv is both an input and an output"},
		{args: a("train", "ok.csv", "./ok.csv"), code: 1, msg: "is both an input and an output"},
		{args: a("train", "ok.csv", "sub"), code: 1, msg: "cannot write sub: it is a directory"},
		{args: a("train", "ok.csv", "nodir/m.json"), code: 1, msg: "no such directory nodir"},
		{args: a("train", "-quiet", "-iters", "0", "ok.csv", "/dev/null"), code: 0},
		{args: a("train", "-quiet", "-iters", "0", "ok.csv", "-"), code: 0,
			out: `"format": "ivm-model/1"`},
		{args: a("train", "-quiet", "-iters", "0", "ok.csv", "/dev/stdout"), code: 0,
			out: `"format": "ivm-model/1"`},
		{args: a("train", "-iters", "0", "ok.csv", "-"), code: 0, msg: "-: binary",
			out: `"format": "ivm-model/1"`},
		{args: a("train", "-quiet", "-iters", "0", "ok.csv", "m.json"), code: 0,
			creates: a("m.json")},
		{args: a("train", "-quiet", "big.csv", "m.json"), code: 0, creates: a("m.json")},
		{args: a("train", "-quiet", "-scale", "minmax", "big.csv", "m.json"), code: 0,
			creates: a("m.json")},
		{args: a("train", "-quiet", "-iters", "0", "edge.csv", "m.json"), code: 0,
			creates: a("m.json")},
		{args: a("train", "ybig.csv", "m.json"), code: 1,
			msg: "and their squares overflow: rescale the target column"},
		{args: a("train", "-quiet", "-iters", "0", "ybig.csv", "m.json"), code: 0,
			creates: a("m.json")},
		{args: a("train", "-workers", "-1", "ok.csv", "m.json"), code: 1,
			msg: "-workers -1: want 0"},
		{args: a("train", "-workers", "100000", "ok.csv", "m.json"), code: 1,
			msg: "-workers 100000: want 0"},
		{args: a("train", "-max-mem", "1K", "ok.csv", "m.json"), code: 2,
			msg: `invalid value "1K" for flag -max-mem`},
		{args: a("train", "-max-mem", "lots", "ok.csv", "m.json"), code: 2,
			msg: `invalid value "lots" for flag -max-mem`},
		{args: a("train", "-max-mem", "8M", "rows5k.csv", "m.json"), code: 1,
			msg: "training on 5000 rows of 2 inputs needs about"},
		{args: a("train", "-tasks", "-task-col", "first", "-max-mem", "16M",
			"rows5k.csv", "m.json"), code: 1, msg: "training on 5000 rows of 1 inputs needs about"},
		{args: a("train", "-tasks", "ok.csv", "m.json"), code: 1,
			msg: "multi-task training needs a task label on every row"},
		{args: a("train", "-tasks", "-task-col", "first", "-quiet", "-iters", "0",
			"mt.csv", "m.json"), code: 0, creates: a("m.json")},
		{args: a("train", "-tasks", "-task-col", "first", "-quiet", "-iters", "1", "-kiters", "5",
			"-optimizer", "lbfgs", "mt.csv", "m.json"), code: 0, creates: a("m.json")},
		{args: a("train", "-tasks", "-task-col", "first", "-seed", "3", "mt.csv", "m.json"),
			code: 1, msg: "-seed is not available with -tasks"},
		{args: a("train", "-tasks", "-task-col", "first", "-heldout", "10", "mt.csv", "m.json"),
			code: 1, msg: "-heldout is not available with -tasks"},
		{args: a("train", "-tasks", "-task-col", "first", "-refine", "mt.csv", "m.json"), code: 1,
			msg: "-refine is not available with -tasks"},
		{args: a("train", "-tasks", "-task-col", "first", "-gamma", "split", "mt.csv", "m.json"),
			code: 1, msg: "-gamma is not available with -tasks"},
		{args: a("train", "-tasks", "-task-col", "first", "-objective", "full", "mt.csv", "m.json"),
			code: 1, msg: "-objective full is not available with -tasks"},
		{args: a("train", "-tasks", "-task-col", "first", "-quiet", "-iters", "1", "-kiters", "3",
			"-objective", "fixed", "mt.csv", "m.json"), code: 0, creates: a("m.json")},
		{args: a("train", "-tasks", "-task-col", "first", "-quiet", "-iters", "0", "mt.csv", "-"),
			code: 0, out: `"ivm-mtmodel/1"`},
		{args: a("train", "-tasks", "-task-col", "first", "mt.csv", "mt.csv"), code: 1,
			msg: "is both an input and an output"},
		{args: a("train", "-kernel", "bias(1)", "ok.csv", "m.json"), code: 1,
			msg: "bias: arguments are named, e.g. bias(variance=1)"},
		{args: a("train", "-kernel", "rbf(gamma=1e400)", "ok.csv", "m.json"), code: 1,
			msg: "rbf: gamma"},
		{args: a("train", "-kernel", "rbf(", "ok.csv", "m.json"), code: 1, msg: "spec"},
		{args: a("train", "-d", "-3", "ok.csv", "m.json"), code: 1, msg: "-d -3"},
		{args: a("train", "-iters", "-5", "ok.csv", "m.json"), code: 1, msg: "-iters must be"},
		{args: a("train", "-label-col", "0", "ok.csv", "m.json"), code: 1, msg: "bad label column"},
		{args: a("train", "-label-col", "9", "ok.csv", "m.json"), code: 1,
			msg: "label column 9 out of range"},
		{args: a("train", "-task-col", "0", "ok.csv", "m.json"), code: 1, msg: "bad task column"},
		{args: a("train", "-format", "xml", "ok.csv", "m.json"), code: 1, msg: "unknown format"},
		{args: a("train", "-noise", "magic", "ok.csv", "m.json"), code: 1, msg: `-noise "magic"`},
		{args: a("train", "-optimizer", "newton", "ok.csv", "m.json"), code: 1,
			msg: `-optimizer "newton"`},
		{args: a("train", "ok.csv"), code: 2, msg: "Usage: ivm train"},
		{args: a("train", "ok.csv", "m.json", "extra"), code: 2, msg: "Usage: ivm train"},
		{args: a("train", "-bogus", "ok.csv", "m.json"), code: 2,
			msg: "flag provided but not defined: -bogus"},
		// Issue 48: digit separators, endless blank lines, iteration caps, standard input,
		// target scales, outputs that are inputs under another name.
		{args: a("train", "underscore.csv", "m.json"), code: 1,
			msg: `feature "1_000" is not a number`},
		{args: a("train", "blank.csv", "m.json"), code: 1,
			msg: "line 1048577: more than 1048576 bytes of blank or comment lines"},
		{args: a("train", "comment-run.csv", "m.json"), code: 1,
			msg: "bytes of blank or comment lines in a row"},
		{args: a("train", "-iters", "1000000000", "ok.csv", "m.json"), code: 1,
			msg: "-iters 1000000000: want at most 100000"},
		{args: a("train", "-kiters", "1000000000", "ok.csv", "m.json"), code: 1,
			msg: "-kiters 1000000000: want at most"},
		{args: a("train", "-method", "sstr", "-iters", "1000000000", "reg.csv", "m.json"), code: 1,
			msg: "-iters 1000000000: want at most"},
		{args: a("train", "-", "m.json"), code: 1, msg: "-: no data rows"},
		{args: a("train", "-quiet", "ytiny.csv", "m.json"), code: 1,
			msg: "in magnitude and their squares underflow: rescale the target column"},
		{args: a("train", "-method", "sstr", "ybig.csv", "m.json"), code: 1,
			msg: "and their squares overflow: rescale the target column"},
		{args: a("train", "-quiet", "-method", "ssmtr", "-task-col", "first",
			"mtybig.csv", "m.json"), code: 1, msg: "squares overflow"},
		{args: a("train", "ok.csv", "/proc/self/cwd/ok.csv"), code: 1,
			msg: "it is the input ok.csv"},
		{args: a("train", "ok-link.csv", "/proc/self/cwd/ok.csv"), code: 1,
			msg: "it is the input ok-link.csv"},
		{args: a("train", "-quiet", "-iters", "0", "ok.csv", "/proc/self/cwd/m.json"), code: 0,
			creates: a("m.json")},
		{args: a("train", "-quiet", "-iters", "0", "ok.csv", "/dev/full"), code: 1,
			msg: "write /dev/full: no space left on device"},
		{args: a("train", "/dev/urandom", "m.json"), code: 1, msg: "ivm train: /dev/urandom: "},
		{args: a("train", "-quiet", "-iters", "0", "ok.csv", "/dev/stdin"),
			code: 0}, // /dev/null here: written in place
	},
	"predict": {
		{args: a("predict", "ok.csv", "/dev/zero"), code: 1,
			msg: "/dev/zero: not a readable model file: it starts with a NUL byte (binary data), " +
				"not an object"},
		{args: a("predict", "/dev/zero", "ok.json"), code: 1, msg: "line 1 is longer than"},
		{args: a("predict", "ok.csv", "sub"), code: 1,
			msg: "sub: is a directory, not a model file"},
		{args: a("predict", "ok.csv", "ok.csv"), code: 1,
			msg: "it starts with a number (a data file?)"},
		{args: a("predict", "ok.csv", "model.txt"), code: 1, msg: `it starts with 't'`},
		{args: a("predict", "ok.csv", "array.json"), code: 1, msg: "a JSON array, not an object"},
		{args: a("predict", "ok.csv", "empty.csv"), code: 1, msg: "it is empty"},
		{args: a("predict", "ok.csv", "trunc.json"), code: 1, msg: "it ends early (truncated?)"},
		{args: a("predict", "ok.csv", "future.json"), code: 1,
			msg: "not supported by this version"},
		{args: a("predict", "ok.csv", "missing.json"), code: 1, msg: "no such file or directory"},
		{args: a("predict", "ok.csv", "neg-site.json"), code: 1,
			msg: "active point 0 has site precision -2.5, which the probit noise model " +
				"(log-concave) cannot give"},
		{args: a("predict", "ok.csv", "zero-site.json"), code: 1,
			msg: "active point 1 has site precision 0"},
		{args: a("predict", "ok.csv", "dim-huge.json"), code: 1, msg: "input dimension"},
		{args: a("predict", "ok.csv", "dim-3.json"), code: 1,
			msg: "kernel is for 2 inputs, the model has 3"},
		{args: a("predict", "ok.csv", "short-sites.json"), code: 1, msg: "site means"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-dim62.json"), code: 1,
			msg: "input_dim 46116860184273880"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-dim1e12.json"), code: 1,
			msg: "input_dim 1000000000000"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-dim2.json"), code: 1,
			msg: "the kernel is for 1 inputs, input_dim says 2"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-negsite.json"), code: 1,
			msg: "site precision -2.5"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-row.json"), code: 1, msg: "row -3"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-dup.json"), code: 1,
			msg: "appears twice"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-labels.json"), code: 1,
			msg: "want two labels, the smaller first"},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt-format.json"), code: 1,
			msg: `model format "ivm-mtmodel/9" is not supported by this version ` +
				`(it reads "ivm-mtmodel/1")`},
		{args: a("predict", "-task-col", "first", "mt.csv", "mtbad-task.json"), code: 1,
			msg: "field input_dim: missing"},
		{args: a("predict", "mt.csv", "mt.json"), code: 1,
			msg: "multi-task model: name the task column with -task-col"},
		{args: a("predict", "-task-col", "first", "mtreg.csv", "mt.json"), code: 1,
			msg: `task "3" is not in the model`},
		{args: a("predict", "-task-col", "first", "mt.csv", "mt.json"), code: 0,
			out: "Mean squared error"},
		{args: a("predict", "-task-col", "first", "mtcls.csv", "mtcls.json"), code: 0,
			out: "Accuracy = "},
		{args: a("predict", "-task-col", "first", "mt.csv", "mtcls.json"), code: 0,
			msg: "no label of mt.csv is one of the model's classes (0 10)"},
		{args: a("predict", "digits64.libsvm", "bin30.json"), code: 0,
			msg: "has features up to index 64, the model takes 30 inputs: 34 dropped",
			out: "Accuracy = 0% (0/40)"},
		{args: a("predict", "digits64.libsvm", "bin30.json"), code: 0,
			msg: "no label of digits64.libsvm is one of the model's classes (-1 1)"},
		{args: a("predict", "wide.csv", "ok.json"), code: 1,
			msg: "3 input columns besides the label, expected 2"},
		{args: a("predict", "ok.csv", "ok.json", "ok.json"), code: 1,
			msg: "ok.json is both an input and an output"},
		{args: a("predict", "ok.csv", "ok.json", "ok.csv"), code: 1,
			msg: "ok.csv is both an input and an output"},
		{args: a("predict", "ok.csv", "ok.json", "ok-link.csv"), code: 1,
			msg: "ok-link.csv is both an input and an output"},
		{args: a("predict", "ok.csv", "ok.json", "sub"), code: 1,
			msg: "cannot write sub: it is a directory"},
		{args: a("predict", "ok.csv", "ok.json", "nodir/p.txt"), code: 1,
			msg: "no such directory nodir"},
		{args: a("predict", "ok.csv", "ok.json", "/dev/null"), code: 0, out: "Accuracy"},
		{args: a("predict", "ok.csv", "ok.json", "-"), code: 0, msg: "Accuracy", out: "\n-1\n"},
		{args: a("predict", "ok.csv", "ok.json", "/dev/stdout"), code: 0, out: "\n-1\n"},
		{args: a("predict", "-quiet", "ok.csv", "ok.json", "/dev/stderr"), code: 0, msg: "\n-1\n"},
		{args: a("predict", "ok.csv", "ok.json", "p.txt"), code: 0, out: "Accuracy",
			creates: a("p.txt")},
		{args: a("predict", "-prob", "-task-col", "first", "mt.csv", "mt.json", "p.txt"), code: 0,
			creates: a("p.txt")},
		{args: a("predict", "-max-mem", "1M", "ok.csv", "ok.json"), code: 0, out: "Accuracy"},
		{args: a("predict", "big.csv", "big.json"), code: 0, out: "Accuracy = "},
		{args: a("predict", "ybig.csv", "ybig.json"), code: 0,
			out: "Squared correlation coefficient = 0.9"},
		{args: a("predict", "ok.csv", "ok.json", "a", "b"), code: 2, msg: "Usage: ivm predict"},
		{args: a("predict", "ok.csv", "ok.json", "/proc/self/cwd/ok.json"), code: 1,
			msg: "it is the input ok.json"},
		{args: a("predict", "ok.csv", "ok.json", "/proc/self/cwd/ok-link.csv"), code: 1,
			msg: "it is the input ok.csv"},
		{args: a("predict", "-", "ok.json"), code: 1, msg: "-: no data rows"},
		{args: a("predict", "ok.csv", "ok.json", "/dev/full"), code: 1,
			msg: "no space left on device"},
		{args: a("predict", "ok.csv", "spaces.json"), code: 1,
			msg: "more than 1048576 bytes of white space before its first '{'"},
	},
	"info": {
		{args: a("info", "/dev/zero"), code: 1, msg: "it starts with a NUL byte"},
		{args: a("info", "spaces.json"), code: 1, msg: "white space before its first '{'"},
		{args: a("info", "/dev/urandom"), code: 1, msg: "/dev/urandom: not a readable model file"},
		{args: a("info", "/dev/full"), code: 1, msg: "/dev/full: not a readable model file"},
		{args: a("info", "-"), code: 1, msg: "-: not a readable model file: it is empty"},
		{args: a("info", "sub"), code: 1, msg: "is a directory"},
		{args: a("info", "empty.csv"), code: 1, msg: "it is empty"},
		{args: a("info", "trunc.json"), code: 1, msg: "truncated"},
		{args: a("info", "ok.csv"), code: 1, msg: "a data file?"},
		{args: a("info", "missing.json"), code: 1, msg: "no such file"},
		{args: a("info", "neg-site.json"), code: 1, msg: "site precision -2.5"},
		{args: a("info", "dim-huge.json"), code: 1, msg: "input dimension"},
		{args: a("info", "mt-dim62.json"), code: 1, msg: "input_dim"},
		{args: a("info", "mt-dim1e12.json"), code: 1, msg: "input_dim"},
		{args: a("info", "mt-dim2.json"), code: 1, msg: "the kernel is for 1 inputs"},
		{args: a("info", "mt-negsite.json"), code: 1, msg: "site precision -2.5"},
		{args: a("info", "-max-mem", "1M", "ok.json"), code: 0, out: "model file:"},
		{args: a("info", "ok.json"), code: 0, out: "task:        binary"},
		{args: a("info", "mt.json"), code: 0, out: "multi-task"},
		{args: a("info", "big.json"), code: 0, out: "scaled ("},
		{args: a("info"), code: 2, msg: "Usage: ivm info"},
		{args: a("info", "ok.json", "mt.json"), code: 2, msg: "Usage: ivm info"},
	},
	"plot": {
		{args: a("plot", "-grid", "1000000", "-o", "f.png", "ok.json"), code: 1,
			msg: "-grid 1000000: want 3 to 500"},
		{args: a("plot", "-grid", "-1", "-o", "f.png", "ok.json"), code: 1, msg: "-grid -1"},
		{args: a("plot", "-grid", "1", "-o", "f.png", "ok.json"), code: 1,
			msg: "-grid 1: want 3 to 500"},
		{args: a("plot", "-h", "0.001mm", "-o", "f.png", "ok.json"), code: 1,
			msg: "-h 0.0001cm: a figure needs at least 1cm a side"},
		{args: a("plot", "-w", "0.5cm", "-o", "f.png", "ok.json"), code: 1, msg: "-w 0.5cm"},
		{args: a("plot", "-w", "100000cm", "-o", "f.png", "ok.json"), code: 1,
			msg: "larger than 100 inches"},
		{args: a("plot", "-h", "200cm", "-o", "f.png", "ok.json"), code: 1,
			msg: "at most 100cm a side"},
		{args: a("plot", "-o", "f.txt", "ok.json"), code: 1,
			msg: "the figure's format comes from its extension"},
		{args: a("plot", "-o", "sub", "ok.json"), code: 1, msg: "extension"},
		{args: a("plot", "-o", "ok.json.png", "ok.json"), code: 0, creates: a("ok.json.png")},
		{args: a("plot", "-o", "/dev/null", "ok.json"), code: 1, msg: "extension"},
		{args: a("plot", "-quiet", "-o", "-", "ok.json"), code: 0, out: "\x89PNG"},
		{args: a("plot", "-quiet", "-o", "f.png", "ok.json", "ok.csv"), code: 0,
			creates: a("f.png")},
		{args: a("plot", "-quiet", "ok.json"), code: 0, creates: a("ok.png")},
		{args: a("plot", "-o", "f.png", "/dev/zero"), code: 1, msg: "NUL byte"},
		{args: a("plot", "-o", "f.png", "mt-dim62.json"), code: 1, msg: "input_dim"},
		{args: a("plot", "-o", "f.png", "mt-dim2.json"), code: 1,
			msg: "the kernel is for 1 inputs"},
		{args: a("plot", "-trace", "-o", "f.png", "mt.json"), code: 1,
			msg: "mt.json is a multi-task model: -trace and -model are for single-task models"},
		{args: a("plot", "-model", "2", "-o", "f.png", "mt.json"), code: 1,
			msg: "-trace and -model are for single-task models"},
		{args: a("plot", "-o", "f.png", "bin30.json"), code: 1,
			msg: "has 30 inputs; ivm plot draws models of 1 or 2 inputs"},
		{args: a("plot", "-trace", "-o", "f.png", "ok.json"), code: 1,
			msg: "holds no learning trace"},
		{args: a("plot", "-grid", "500", "-max-mem", "64M", "-o", "f.png", "ok.json"), code: 1,
			msg: "drawing ok.json needs about"},
		{args: a("plot", "-model", "5", "-o", "f.png", "ok.json"), code: 1, msg: "ok.json"},
		{args: a("plot", "-o", "f.png", "ok.json", "wide.csv"), code: 1,
			msg: "wide.csv has 3 inputs, the model 2"},
		{args: a("plot", "-o", "f.png", "ok.json", "/dev/zero"), code: 1,
			msg: "line 1 is longer than"},
		{args: a("plot", "-o", "ok.csv.png", "-task-col", "first", "mt.json", "mt.csv"), code: 0,
			creates: a("ok.csv.png")},
		{args: a("plot", "-o", "f.png", "missing.json"), code: 1, msg: "no such file"},
		{args: a("plot"), code: 2, msg: "Usage: ivm plot"},
	},
	"mtreg": {
		{args: a("mtreg", "-quiet", "mtreg1e200.csv", "mtreg1e200.csv"), code: 0,
			out: "nMSE (per task, averaged) = 0.0"},
		{args: a("mtreg", "-quiet", "mtreg.csv", "mtreg.csv"), code: 0,
			out: "nMSE (per task, averaged) = 0.0"},
		{args: a("mtreg", "-quiet", "mtybig.csv", "mtybig.csv"), code: 0, out: "e+39"},
		{args: a("mtreg", "-quiet", "mtybig.csv", "mtybig.csv"), code: 0,
			out: "nMSE (per task, averaged) = 0.0"},
		{args: a("mtreg", "-quiet", "-method", "sstr", "mtreg.csv"), code: 0,
			out: "SSTR on 3 tasks"},
		{args: a("mtreg", "-quiet", "-out", "-", "mtreg.csv"), code: 0, msg: "SSMTR on 3 tasks",
			out: "1,"},
		{args: a("mtreg", "-quiet", "-out", "/dev/null", "mtreg.csv"), code: 0},
		{args: a("mtreg", "-quiet", "-out", "p.csv", "mtreg.csv"), code: 0, creates: a("p.csv")},
		{args: a("mtreg", "-out", "mtreg.csv", "mtreg.csv"), code: 1,
			msg: "mtreg.csv is both an input and an output"},
		{args: a("mtreg", "-pairs", "ok.csv", "-out", "ok.csv", "mtreg.csv"), code: 1,
			msg: "ok.csv is both an input and an output"},
		{args: a("mtreg", "-out", "sub", "mtreg.csv"), code: 1, msg: "it is a directory"},
		{args: a("mtreg", "-out", "nodir/p.csv", "mtreg.csv"), code: 1, msg: "no such directory"},
		{args: a("mtreg", "-quiet", "mtreg-nolabel.csv"), code: 1,
			msg: `task "1" has no labelled rows; every task needs at least one`},
		{args: a("mtreg", "-task-col", "0", "mtreg.csv"), code: 1, msg: `bad task column "0"`},
		{args: a("mtreg", "-task-col", "9", "mtreg.csv"), code: 1,
			msg: "task column 9 out of range"},
		{args: a("mtreg", "-workers", "1000", "mtreg.csv"), code: 1, msg: "-workers 1000"},
		{args: a("mtreg", "-iters", "-1", "mtreg.csv"), code: 1,
			msg: "-iters -1, -kiters 100, -k 7: want 0 (the default) or more"},
		{args: a("mtreg", "-k", "-3", "mtreg.csv"), code: 1, msg: "-k -3"},
		{args: a("mtreg", "-method", "magic", "mtreg.csv"), code: 1, msg: "magic"},
		{args: a("mtreg", "-laplacian", "odd", "mtreg.csv"), code: 1, msg: "odd"},
		{args: a("mtreg", "-scale", "log", "mtreg.csv"), code: 1, msg: `unknown -scale "log"`},
		{args: a("mtreg", "-targets", "all", "mtreg.csv"), code: 1, msg: "all"},
		{args: a("mtreg", "/dev/zero"), code: 1, msg: "line 1 is longer than"},
		{args: a("mtreg", "bomb.csv.gz"), code: 1, msg: "line 1 is longer than"},
		{args: a("mtreg", "empty.csv"), code: 1, msg: "no data rows"},
		{args: a("mtreg", "sub"), code: 1, msg: "is a directory"},
		{args: a("mtreg", "-quiet", "mtreg.csv", "ok.csv"), code: 1,
			msg: "is not one of the model's 3 tasks"},
		{args: a("mtreg", "-quiet", "mtreg.csv", "wide.csv"), code: 1,
			msg: "2 input columns besides the label and the task, expected 1"},
		{args: a("mtreg", "-quiet", "-pairs", "missing.csv", "mtreg.csv"), code: 1,
			msg: "no such file"},
		{args: a("mtreg", "-quiet", "-pairs", "pairs-bad.csv", "mtreg.csv"), code: 1,
			msg: "want 3 fields, got 2"},
		{args: a("mtreg", "-quiet", "-pairs", "pairs-range.csv", "mtreg.csv"), code: 1,
			msg: "row 999 is not a data row"},
		{args: a("mtreg", "-quiet", "-pairs", "pairs-task.csv", "mtreg.csv"), code: 1,
			msg: "rows belong to different tasks"},
		{args: a("mtreg", "-max-mem", "16M", "rows5k.csv"), code: 1,
			msg: "fitting 2 tasks needs about"},
		{args: a("mtreg"), code: 2, msg: "Usage: ivm mtreg"},
	},
	"archipelago": {
		{args: a("archipelago", "-grid", "1000000", "-o", "f.png", "pinwheel.csv", "pintest.csv"),
			code: 1, msg: "-grid 1000000: want 3 to 500"},
		{args: a("archipelago", "-grid", "2", "-o", "f.png", "pinwheel.csv", "pintest.csv"),
			code: 1, msg: "-grid 2: want 3 to 500"},
		{args: a("archipelago", "-sweeps", "0", "pinwheel.csv", "pintest.csv"), code: 1,
			msg: "-sweeps 0: want 1 to"},
		{args: a("archipelago", "-sweeps", "1000000000", "pinwheel.csv", "pintest.csv"), code: 1,
			msg: "-sweeps 1000000000"},
		{args: a("archipelago", "-sweeps", "10", "-burn", "20", "pinwheel.csv", "pintest.csv"),
			code: 1, msg: "-burn 20"},
		{args: a("archipelago", "-amp-moves", "-2", "pinwheel.csv", "pintest.csv"), code: 1,
			msg: "-amp-moves -2"},
		{args: a("archipelago", "-anneal", "-7", "pinwheel.csv", "pintest.csv"), code: 1,
			msg: "annealing over -7 sweeps"},
		{args: a("archipelago", "oneclass-arch.csv", "pintest.csv"), code: 1,
			msg: "need labelled rows of at least two classes"},
		{args: a("archipelago", "pinwheel.csv", "pintest-new.csv"), code: 1,
			msg: "row 1 has label 7, not a training class"},
		{args: a("archipelago", "pinwheel.csv", "pintest-unl.csv"), code: 1,
			msg: "row 1 is unlabelled"},
		{args: a("archipelago", "pinwheel.csv", "wide.csv"), code: 1, msg: "expected 2"},
		{args: a("archipelago", "-o", "f.txt", "pinwheel.csv", "pintest.csv"), code: 1,
			msg: "extension"},
		{args: a("archipelago", "-o", "pinwheel.csv.png", "pinwheel.csv.png", "pintest.csv"),
			code: 1, msg: "is both an input and an output"},
		{args: a("archipelago", "-o", "nodir/f.png", "pinwheel.csv", "pintest.csv"), code: 1,
			msg: "no such directory"},
		{args: a("archipelago", "-o", "f.png", "pin3d.csv", "pintest.csv"), code: 1,
			msg: "the maps need 2-D inputs"},
		{args: a("archipelago", "-max-mem", "1M", "-o", "f.png", "pinwheel.csv", "pintest.csv"),
			code: 1, msg: "-grid 50 maps over 40 training rows needs about"},
		{args: a("archipelago", "/dev/zero", "pintest.csv"), code: 1, msg: "line 1 is longer than"},
		{args: a("archipelago", "-max-mem", "16M", "rows5k.csv", "pintest.csv"), code: 1,
			msg: "sampling over 5000 training rows needs about"},
		{args: a("archipelago", "pinwheel.csv", "/dev/zero"), code: 1,
			msg: "line 1 is longer than"},
		{args: a("archipelago", "cr.csv", "pintest.csv"), code: 1, msg: "carriage return"},
		{args: a("archipelago", "-sweeps", "12", "pinwheel.csv", "pintest.csv"), code: 0,
			out: "archipelago: error"},
		{args: a("archipelago", "-sweeps", "12", "-grid", "5", "-o", "f.png",
			"pinwheel.csv", "pintest.csv"), code: 0, out: "maps: f.png", creates: a("f.png")},
		{args: a("archipelago", "-sweeps", "12", "-grid", "5", "-o", "-",
			"pinwheel.csv", "pintest.csv"), code: 0, msg: "archipelago: error", out: "\x89PNG"},
		{args: a("archipelago", "pinwheel.csv"), code: 2, msg: "Usage: ivm archipelago"},
	},
	"demo": {
		{args: a("demo", "extra"), code: 2, msg: "Usage: ivm demo"},
		{args: a("demo", "-digit", "11"), code: 1, msg: "-digit 11: USPS digits are 0 to 9"},
		{args: a("demo", "-d", "-1"), code: 1, msg: "-d -1"},
		{args: a("demo", "-iters", "-2"), code: 1, msg: "-iters -2"},
		{args: a("demo", "-iters", "1000000000"), code: 1, msg: "-iters 1000000000: want at most"},
		{args: a("demo", "-figure", "f.txt"), code: 1, msg: "extension"},
		{args: a("demo", "-figure", "nodir/f.png"), code: 1, msg: "no such directory"},
		{args: a("demo", "-figure", "sub.png/"), code: 1, msg: "extension"},
	},
	"reproduce": {
		{args: a("reproduce"), code: 2, msg: "Usage"},
		{args: a("reproduce", "no-such-experiment"), code: 1, msg: "no-such-experiment"},
		{args: a("reproduce", "-workers", "-1", "ref-opt"), code: 1, msg: "-workers -1"},
		{args: a("reproduce", "-runs", "-1", "ref-opt"), code: 1, msg: "-runs -1"},
		{args: a("reproduce", "-out", "ok.csv", "ref-opt"), code: 1,
			msg: "-out ok.csv: not a folder"},
		{args: a("reproduce", "-out", "nodir", "ref-opt"), code: 1,
			msg: "-out nodir: no such folder"},
		{args: a("reproduce", "ref-opt", "extra"), code: 2, msg: "Usage"},
	},
	"main": {
		{args: a(), code: 2, msg: "ivm — sparse Gaussian-process learning"},
		{args: a("frobnicate"), code: 2, msg: `ivm: unknown command "frobnicate"`},
		{args: a("help", "train"), code: 0, out: "Usage: ivm train"},
		{args: a("help", "nothing"), code: 0, out: "Usage:"},
		{args: a("-h"), code: 0, out: "Usage:"},
	},
}

func a(args ...string) []string { return args }

// snapshot is the content hash and mode of every file in a folder (one level down too).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		b, _ := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = fmt.Sprintf("%x %v", sha256.Sum256(b), info.Mode())
		return nil
	})
	return out
}

// TestHostileInputs runs every case of hostileCases through the binary.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	hostileFixtures(t, dir)
	before := snapshot(t, dir)
	var worst, slowest runResult
	var worstArgs, slowestArgs []string
	total := 0
	for _, name := range []string{
		"train", "predict", "info", "plot", "mtreg", "archipelago", "demo", "reproduce", "main",
	} {
		clear, ok := 0, 0
		for _, c := range hostileCases[name] {
			total++
			r := runBinary(t, dir, "", nil, c.args...)
			if r.maxRSSKB > worst.maxRSSKB {
				worst, worstArgs = r, c.args
			}
			if r.elapsed > slowest.elapsed {
				slowest, slowestArgs = r, c.args
			}
			checkHostile(t, c, r)
			for _, f := range c.creates {
				os.Remove(filepath.Join(dir, f))
			}
			if after := snapshot(t, dir); !sameFiles(before, after) {
				t.Errorf("ivm %s changed the folder: %s", strings.Join(c.args, " "),
					diffFiles(before, after))
				before = after
			}
			if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("ivm %s replaced /dev/null", strings.Join(c.args, " "))
			}
			if c.code == 0 {
				ok++
			} else {
				clear++
			}
		}
		t.Logf("%-12s %3d cases: %3d clear errors, %3d OK",
			name, len(hostileCases[name]), clear, ok)
	}
	t.Logf("%d cases; the largest peak RSS: %d MB in %.2f s (ivm %s)",
		total, worst.maxRSSKB>>10, worst.elapsed.Seconds(), strings.Join(worstArgs, " "))
	t.Logf("the slowest: %.2f s, peak RSS %d MB (ivm %s)",
		slowest.elapsed.Seconds(), slowest.maxRSSKB>>10, strings.Join(slowestArgs, " "))

	// The inputs that crashed ivm by exhausting memory fail as cleanly in a process of
	// 1 GiB of address space (ulimit -v) with a soft heap limit of 256 MiB. The binary links
	// libc (net/http's resolver, for serve), and glibc reserves 64 MiB of address space
	// per thread for its malloc arenas, which Go never uses: MALLOC_ARENA_MAX=1 keeps that
	// out of what the limit measures.
	t.Run("under a memory limit", func(t *testing.T) {
		for _, c := range memoryLimitCases {
			r := runBinary(t, dir, "ulimit -v 1048576",
				[]string{"GOMEMLIMIT=256MiB", "MALLOC_ARENA_MAX=1"}, c.args...)
			checkHostile(t, c, r)
		}
		if after := snapshot(t, dir); !sameFiles(before, after) {
			t.Errorf("the memory-limited runs changed the folder: %s", diffFiles(before, after))
		}
	})
}

// memoryLimitCases are the inputs that made ivm run out of memory (issue 30).
var memoryLimitCases = []hostileCase{
	{args: a("train", "/dev/zero", "m.json"), code: 1, msg: "line 1 is longer than 16777216 bytes"},
	{args: a("train", "bomb.csv.gz", "m.json"), code: 1,
		msg: "line 1 is longer than 16777216 bytes"},
	{args: a("train", "index2m.libsvm", "m.json"), code: 1,
		msg: "45 rows × 2000000 features exceeds the limit"},
	{args: a("predict", "ok.csv", "/dev/zero"), code: 1, msg: "NUL byte"},
	{args: a("predict", "-task-col", "first", "mt.csv", "mt-dim1e12.json"), code: 1,
		msg: "input_dim 1000000000000"},
	{args: a("info", "mt-dim62.json"), code: 1, msg: "input_dim"},
	{args: a("plot", "-o", "f.png", "mt-dim1e12.json"), code: 1, msg: "input_dim"},
	{args: a("archipelago", "-grid", "1000000", "-o", "f.png", "pinwheel.csv", "pintest.csv"),
		code: 1, msg: "-grid 1000000"},
	{args: a("mtreg", "/dev/zero"), code: 1, msg: "line 1 is longer than"},
}

// An interrupted, terminated, hung-up, quit (Ctrl-\) or broken-pipe train removes its
// temporary file, leaves the model it would have replaced as it was, and exits with 128 +
// the signal's number, without a goroutine dump. The training file is a FIFO nobody writes
// to, so that train is caught reading it.
func TestSignalsLeaveNothing(t *testing.T) {
	bin := builtIVM(t)
	signals := []syscall.Signal{
		syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE,
	}
	for _, sig := range signals {
		dir := t.TempDir()
		fifo, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "m.json")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, model, "the old model")
		cmd := exec.Command(bin, "train", fifo, model)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool {
			m, _ := filepath.Glob(filepath.Join(dir, ".m.json.tmp-*"))
			return len(m) == 1
		})
		cmd.Process.Signal(sig)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
			t.Errorf("%v: exit %d, want %d; stderr %q", sig, code, 128+int(sig), errOut.String())
		}
		if !strings.HasPrefix(errOut.String(), "ivm: ") ||
			strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line", sig, errOut.String())
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			t.Errorf("%v: the folder holds %d files, want the FIFO and the old model",
				sig, len(entries))
		}
		if b, _ := os.ReadFile(model); string(b) != "the old model" {
			t.Errorf("%v: the model was replaced by %q", sig, b)
		}
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out")
}

// checkHostile checks one run against its case.
func checkHostile(t *testing.T, c hostileCase, r runResult) {
	t.Helper()
	cmdline := "ivm " + strings.Join(c.args, " ")
	first, _, _ := strings.Cut(r.stderr, "\n")
	switch {
	case r.code != c.code:
		t.Errorf("%s: exit %d, want %d; stderr:\n%s", cmdline, r.code, c.code, r.stderr)
		return
	case c.code == 0 && !strings.Contains(r.stderr, c.msg):
		t.Errorf("%s: stderr %q lacks %q", cmdline, r.stderr, c.msg)
	case c.code != 0 && !strings.Contains(first, c.msg):
		t.Errorf("%s: stderr line %q lacks %q", cmdline, first, c.msg)
	case c.code == 1 && strings.Count(r.stderr, "\n") != 1:
		t.Errorf("%s: %d lines on stderr, want one:\n%s",
			cmdline, strings.Count(r.stderr, "\n"), r.stderr)
	case !strings.Contains(r.stdout, c.out):
		t.Errorf("%s: stdout lacks %q:\n%.300s", cmdline, c.out, r.stdout)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Errorf("%s: a crash:\n%s", cmdline, r.stderr)
	}
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diffFiles(a, b map[string]string) string {
	var d []string
	for k, v := range b {
		if w, ok := a[k]; !ok {
			d = append(d, "new "+k)
		} else if w != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		}
	}
	return strings.Join(d, ", ")
}

// A bug that panics, in a worker goroutine too, gives one line asking for a report and exit
// status 3, not a goroutine dump.
func TestInternalErrorIsOneLine(t *testing.T) {
	register("panic-test", command{Synopsis: "ivm panic-test",
		Run: func([]string, io.Writer, io.Writer) error {
			var panics pool.Catcher
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer panics.Catch()
				var m map[string]int
				//lint:ignore SA5000 the runtime panic is what the test is for
				m["x"] = 1
			}()
			wg.Wait()
			panics.Rethrow()
			return nil
		}})
	defer delete(commands, "panic-test")
	var out, errOut bytes.Buffer
	code := run([]string{"panic-test"}, &out, &errOut)
	if code != exitInternal || strings.Count(errOut.String(), "\n") != 1 ||
		!strings.Contains(errOut.String(), "ivm panic-test: internal error: "+
			"assignment to entry in nil map; please report this bug") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// Trainings that write the same model file at once each replace it whole: the file left is
// one of theirs, complete, and no temporary file remains.
func TestConcurrentWritersOneOutput(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%7, i%5, 2*(i%2)-1)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for w := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[w] = runBinary(t, dir, "", nil,
				"train", "-quiet", "-iters", "0", "-d", fmt.Sprint(5+w), "d.csv", "m.json").code
		}()
	}
	wg.Wait()
	for w, c := range codes {
		if c != 0 {
			t.Errorf("writer %d: exit %d", w, c)
		}
	}
	r := runBinary(t, dir, "", nil, "info", "m.json")
	if r.code != 0 || !strings.Contains(r.stdout, "active points") {
		t.Errorf("the model left does not load: %s", r.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the folder, want the data and the model", len(entries))
	}
}
