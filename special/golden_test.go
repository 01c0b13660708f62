package special

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// goldenTol is the acceptance bound: relative error against the 50-digit values.
const goldenTol = 1e-12

// minNormal is the smallest normal double. Below it a double cannot hold 1e−12 relative
// accuracy, so errors are measured relative to max(|want|, minNormal).
const minNormal = 0x1p-1022

type goldenRow struct {
	kind string
	args []float64 // u; x; or a, b
	want []float64
	line int
}

func parseGoldenFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	var ne *strconv.NumError
	if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
		return v, nil // ±Inf on overflow, ±0 on underflow: what a double can hold
	}
	return v, err
}

func readGolden(t *testing.T) []goldenRow {
	t.Helper()
	f, err := os.Open("testdata/golden.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nargs := map[string]int{"phi": 1, "erfcx": 1, "diff": 2, "inv": 1}
	var rows []goldenRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		fields := strings.Split(text, ",")
		na, ok := nargs[fields[0]]
		if !ok {
			t.Fatalf("golden.csv:%d: unknown row kind %q", line, fields[0])
		}
		vals := make([]float64, len(fields)-1)
		for i, s := range fields[1:] {
			if vals[i], err = parseGoldenFloat(s); err != nil {
				t.Fatalf("golden.csv:%d: %v", line, err)
			}
		}
		rows = append(rows, goldenRow{kind: fields[0], args: vals[:na],
			want: vals[na:], line: line})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3000 {
		t.Fatalf("golden.csv has only %d rows", len(rows))
	}
	return rows
}

// relErr returns |got − want|/max(|want|, minNormal), and 0 when both are equal
// (including infinities).
func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	if math.IsNaN(got) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return math.Inf(1)
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), minNormal)
}

// TestGolden compares every function with the mpmath values and reports the worst
// relative error of each on u ∈ [−40, 40] (run with -v to see them).
func TestGolden(t *testing.T) {
	type stat struct {
		worst float64
		at    []float64
	}
	stats := map[string]*stat{}
	check := func(name string, inRange bool, args []float64, got, want float64, line int) {
		e := relErr(got, want)
		if e > goldenTol {
			t.Errorf("golden.csv:%d: %s%v = %.17g, want %.17g (rel err %.3g)",
				line, name, args, got, want, e)
		}
		if !inRange {
			name += " (far)"
		}
		s := stats[name]
		if s == nil {
			s = &stat{}
			stats[name] = s
		}
		if e > s.worst || s.at == nil {
			s.worst, s.at = e, args
		}
	}
	for _, r := range readGolden(t) {
		switch r.kind {
		case "phi":
			u := r.args[0]
			in := math.Abs(u) <= 40
			check("Phi", in, r.args, Phi(u), r.want[0], r.line)
			check("LogPhi", in, r.args, LogPhi(u), r.want[1], r.line)
			check("InvMills", in, r.args, InvMills(u), r.want[2], r.line)
			lp, rr, d := LogPhiMills(u)
			check("LogPhiMills.logPhi", in, r.args, lp, r.want[1], r.line)
			check("LogPhiMills.r", in, r.args, rr, r.want[2], r.line)
			check("LogPhiMills.d", in, r.args, d, r.want[3], r.line)
		case "erfcx":
			check("Erfcx", true, r.args, Erfcx(r.args[0]), r.want[0], r.line)
		case "inv":
			check("PhiInv", true, r.args, PhiInv(r.args[0]), r.want[0], r.line)
		case "diff":
			l, ra, rb := LogPhiDiffRatios(r.args[0], r.args[1])
			check("LogPhiDiff", true, r.args, l, r.want[0], r.line)
			check("LogPhiDiff", true, r.args, LogPhiDiff(r.args[0], r.args[1]), r.want[0], r.line)
			check("ratio a", true, r.args, ra, r.want[1], r.line)
			check("ratio b", true, r.args, rb, r.want[2], r.line)
		}
	}
	for name, s := range stats {
		t.Logf("%-22s max rel err %.3g at %v", name, s.worst, s.at)
	}
}
