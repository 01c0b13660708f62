package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// readBoth reads in line by line, each CSV line split before its fields are parsed, and in
// batches of a few lines on four workers, plain CSV rows parsed as they are split
// (plainRow), and fails unless both give the same data or the same error.
func readBoth(t *testing.T, in []byte, opt ReadOptions) {
	t.Helper()
	rows, size, workers, part := serialRows, batchBytes, readers, partValues
	defer func() {
		serialRows, batchBytes, readers, partValues, plainRows = rows, size, workers, part, true
	}()
	readers, plainRows = func(int) int { return 1 }, false
	want, wantErr := Read(bytes.NewReader(in), opt)
	readers, plainRows = func(int) int { return 4 }, true
	serialRows, batchBytes, partValues = 1, 7, 5
	got, err := Read(bytes.NewReader(in), opt)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Fatalf("batches: error %v, line by line: %v", err, wantErr)
	case err != nil && err.Error() != wantErr.Error():
		t.Fatalf("batches: error %q, line by line: %q", err, wantErr)
	case err != nil:
		return
	}
	sameData(t, "batches", want, got, true, false)
	if got.MaxIndex != want.MaxIndex || got.Format != want.Format {
		t.Fatalf("batches: max index %d, format %v; line by line %d, %v", got.MaxIndex,
			got.Format, want.MaxIndex, want.Format)
	}
}

// TestParallelSameAsSerial reads generated libsvm files, with errors, comments, tasks and
// limits placed anywhere, both ways.
func TestParallelSameAsSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	faults := []string{"1 2:1 1:1", "1 0:1", "1 1:", "x 1:1", "1 1:nan", "1 task:b 1:1",
		"1,2,3", "# comment", "", "1 qid:2 3:1 # end", "?", "1 999:1", "1 1:1e999"}
	for trial := range 400 {
		var b strings.Builder
		n := 1 + rng.IntN(40)
		tasks := trial%5 == 0
		for i := range n {
			switch {
			case rng.IntN(25) == 0:
				b.WriteString(faults[rng.IntN(len(faults))])
			case trial%7 == 0 && i < 3:
				fmt.Fprintf(&b, "%d", rng.IntN(3)) // lone labels first
			default:
				fmt.Fprintf(&b, "%d", rng.IntN(3)-1)
				if tasks {
					fmt.Fprintf(&b, " task:t%d", rng.IntN(2))
				}
				for j := 1; j <= 6; j++ {
					if rng.IntN(2) == 0 {
						fmt.Fprintf(&b, " %d:%.3g", j+rng.IntN(2)*j, rng.NormFloat64())
						j += rng.IntN(2) * j
					}
				}
			}
			b.WriteString("\n")
		}
		opt := ReadOptions{MaxValues: 40 + rng.IntN(200), LabelOptional: trial%3 == 0,
			Dim: rng.IntN(2) * 8, IgnoreExtra: trial%2 == 0}
		if trial%4 == 0 {
			opt.Format = LibSVM
		}
		readBoth(t, []byte(b.String()), opt)
	}
}

// TestParallelSameAsSerialCSV is TestParallelSameAsSerial for CSV files: headers, task
// columns, quoted fields, unlabelled rows and faults anywhere.
func TestParallelSameAsSerialCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	faults := []string{"1,2", "1,,3,4", "1,x,3,4", "1,2,3,nan", "\"1,2,3,4", "# comment", "",
		"1,2,3,\"4\"", "?,1,2,3", "1,2,3,1e999", "1,2,3,4,5"}
	for trial := range 400 {
		var b strings.Builder
		if trial%3 == 0 {
			b.WriteString("a,b,c,y\n")
		}
		for range 1 + rng.IntN(40) {
			if rng.IntN(25) == 0 {
				b.WriteString(faults[rng.IntN(len(faults))])
			} else {
				task := "t" // a task label where column 3 is the task's, else a number
				if trial%2 == 1 {
					task = ""
				}
				fmt.Fprintf(&b, "%.3g,%.3g,%s%d,%d", rng.NormFloat64(), rng.NormFloat64(), task,
					rng.IntN(3), rng.IntN(2))
			}
			b.WriteString("\n")
		}
		opt := ReadOptions{MaxValues: 20 + rng.IntN(100), LabelOptional: trial%4 == 0}
		if trial%2 == 0 {
			opt.TaskCol = 3
		}
		if trial%5 == 0 {
			opt.Format = CSV
		}
		readBoth(t, []byte(b.String()), opt)
	}
}

func FuzzReadParallel(f *testing.F) {
	for i, s := range seeds {
		f.Add([]byte(s+s+s), uint16(i%4), i%2 == 0, uint8(i))
	}
	f.Fuzz(func(t *testing.T, in []byte, dim uint16, ignore bool, csv uint8) {
		opt := ReadOptions{Dim: int(dim % 20), IgnoreExtra: ignore,
			MaxValues: 64 + int(dim%512), LabelOptional: csv&64 != 0}
		if csv&128 != 0 { // CSV's own options, as FuzzReadCSV draws them
			opt = ReadOptions{Format: CSV, LabelCol: LabelCol(csv % 5),
				Header: Header(csv / 5 % 3), Dim: int(dim % 5),
				TaskCol: TaskCol(int(csv/15%5) - 1), MaxValues: 64 + int(dim%512)}
		}
		readBoth(t, in, opt)
	})
}
