package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/internal/fileformat"
	"github.com/ivmlab/ivm/multitask"
)

// defaultMaxMem is the default of -max-mem: the memory a command may plan to use.
const defaultMaxMem = 2 << 30

// bytesPerValue is what one input value costs: the matrix read, its scaled copy and the
// kernel's workspace over the inputs.
const bytesPerValue = 24

// maxWorkers caps -workers: more goroutines than this only cost memory.
const maxWorkers = 256

// maxGrid caps the -grid of figures: a 2-D map evaluates the model at grid² points.
const maxGrid = 500

// memLimit is the -max-mem flag, in bytes. Everything a command reads is checked against it before
// the memory is spent: the data matrix (bytesPerValue per value), a line (max-mem/128), the text of
// a file after gunzipping (4 × max-mem), a model file (max-mem/modelFileShare), and before
// training what training will allocate.
type memLimit int64

func (m *memLimit) String() string { return formatBytes(int64(*m)) }

// Set parses a size: a number of bytes with an optional K, M, G or T suffix (powers of
// 1024, an optional trailing B or iB).
func (m *memLimit) Set(s string) error {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult = float64(int64(1) << (10 * (i + 1)))
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v*mult >= 1<<20) || v*mult > 1<<50 {
		return errors.New("want a size from 1M to 1024T, such as 512M or 8G")
	}
	*m = memLimit(v * mult)
	return nil
}

// registerMaxMem adds -max-mem to a command's flags.
func registerMaxMem(fs *flag.FlagSet) *memLimit {
	m := memLimit(defaultMaxMem)
	fs.Var(&m, "max-mem",
		"the memory, a `SIZE` such as 512M or 8G, the command may plan to use (data, model file, "+
			"training);\nlarger inputs are refused before they are read")
	return &m
}

// softLimit sets the Go runtime's soft memory limit (unless GOMEMLIMIT sets one) to 80 %
// of the limit: the collector then works harder as the heap nears it instead of letting the
// heap grow to twice what is live, which on a large training put the peak RSS at twice the
// live heap (each class's selection matrix becomes garbage when the next is made). At the
// whole limit the RSS, which also counts memory not yet returned to the system, still
// overshot it.
func (m memLimit) softLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(m) / 5 * 4)
	}
}

// limitOptions sets the reading limits of opt from the memory limit.
func (m memLimit) limitOptions(opt *dataset.ReadOptions) {
	opt.MaxValues = int(min(int64(m)/bytesPerValue, int64(^uint(0)>>1)))
	opt.MaxLineBytes = int(min(int64(m)/128, int64(^uint(0)>>1)))
	opt.MaxBytes = 4 * int64(m)
}

// check refuses a plan that needs more than the limit (0: defaultMaxMem); what says what
// it is for.
func (m memLimit) check(need float64, what string) error {
	if m == 0 {
		m = defaultMaxMem
	}
	if need > float64(m) {
		return fmt.Errorf("%s needs about %s, more than -max-mem %s allows "+
			"(raise -max-mem to go ahead)", what, formatBytes(int64(min(need, 1<<62))), m.String())
	}
	return nil
}

// formatBytes writes a size as the -max-mem flag reads it.
func formatBytes(n int64) string {
	for i, unit := range []string{"T", "G", "M", "K"} {
		if s := int64(1) << (10 * (4 - i)); n >= s {
			return strconv.FormatFloat(float64(n)/float64(s), 'g', 3, 64) + unit
		}
	}
	return strconv.FormatInt(n, 10)
}

// maxIters caps the iteration flags (-iters, -kiters, -niters): each iteration is at least
// one pass over the data, so a count past this is a typo, not a training that ends.
const maxIters = 100_000

// checkIters refuses an iteration count n of flag name above maxIters.
func checkIters(name string, n int) error {
	if n > maxIters {
		return fmt.Errorf("%s %d: want at most %d iterations", name, n, maxIters)
	}
	return nil
}

// checkWorkers refuses a -workers value outside 0..maxWorkers.
func checkWorkers(n int) error {
	if n < 0 || n > maxWorkers {
		return fmt.Errorf("-workers %d: want 0 (all %d cores) to %d", n, runtime.NumCPU(),
			maxWorkers)
	}
	return nil
}

// checkGrid refuses a -grid outside lo..maxGrid (0 is allowed for "the default" when lo is 0).
func checkGrid(n, lo int) error {
	if n != 0 && (n < max(lo, 1) || n > maxGrid) || n < 0 {
		return fmt.Errorf("-grid %d: want %d to %d points per axis", n, max(lo, 1), maxGrid)
	}
	return nil
}

// modelFile is a model file read whole: a model of a registered family (package family),
// one of a single-task predictor, a multi-task model or another family's, or a part of a
// partitioned training (which only info and merge read).
type modelFile struct {
	single *ivm.Predictor
	multi  *multitask.Model
	family familyModel // a model of a family the command line registers (family.go)
	part   *ivm.Predictor
}

// readModel reads the model file at path, refusing before it reads much a file that is
// larger than max-mem/modelFileShare, a directory, or does not start as a JSON object (/dev/zero, a
// data file given as the model). A part file (ivm-part/1) is refused with family.Load's
// message (merge the parts first); allowPart reads it into modelFile.part instead.
func readModel(path string, limit memLimit) (*modelFile, error) {
	return readModelKind(path, limit, false)
}

func readModelKind(path string, limit memLimit, allowPart bool) (*modelFile, error) {
	b, err := readModelBytes(path, limit)
	if err != nil {
		return nil, err
	}
	return decodeModel(b, path, allowPart)
}

// decodeModel decodes the model file b, read from path, with the loader family.Load finds
// for its format (a part file with ivm.LoadPart when allowPart).
func decodeModel(b []byte, path string, allowPart bool) (*modelFile, error) {
	if allowPart && isPartFile(b) {
		part, err := ivm.LoadPart(bytes.NewBuffer(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &modelFile{part: part}, nil
	}
	m, err := family.Load(bytes.NewBuffer(b)) // decoded in place
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return openModel(m, path)
}

// isPartFile says whether the file b is a part of a partitioned training (ivm-part/1).
func isPartFile(b []byte) bool {
	format, _ := fileformat.Of(b) // a file that is not JSON is for family.Load to explain
	return format == ivm.PartFormat
}

// openModel returns what the commands use of a model family.Load read from path.
func openModel(m family.Model, path string) (*modelFile, error) {
	mf := &modelFile{}
	switch u := m.Unwrap().(type) {
	case *ivm.Predictor:
		mf.single = u
	case *multitask.Model:
		mf.multi = u
	default:
		if mf.family = openFamily(m); mf.family == nil {
			return nil, fmt.Errorf("%s: the command line does not apply %s model files", path,
				m.Format())
		}
	}
	return mf, nil
}

// modelFileShare is the share of -max-mem a model file may take: decoding holds its text
// and the numbers it decodes (8 bytes for each ~17 characters) at once, and predicting
// the model's d×D active inputs for a chunk of test rows (bench/RESULTS.md records the
// peak).
const modelFileShare = 4

// readModelBytes reads a model file whole ("-": standard input) after the checks readModel
// describes.
func readModelBytes(path string, limit memLimit) ([]byte, error) {
	if path == stdinPath {
		return readModelFrom(os.Stdin, path, limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readModelFrom(f, path, limit)
}

// readModelFrom reads the model file f, opened from path, as readModelBytes does.
func readModelFrom(f *os.File, path string, limit memLimit) ([]byte, error) {
	size := int64(0) // a regular file's size, to read it into one buffer without regrowing
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a model file", path)
	} else if err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	br := bufio.NewReader(f)
	if err := fileformat.SkipToObject(br); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	maxBytes := int64(limit) / modelFileShare
	buf := bytes.NewBuffer(make([]byte, 0, min(size, maxBytes)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(br, maxBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := buf.Bytes()
	if int64(len(b)) > maxBytes {
		return nil,
			fmt.Errorf(
				"%s: larger than %s, the limit for a model file "+
					"(-max-mem/%d; raise -max-mem to read it)", path,
				formatBytes(maxBytes), modelFileShare)
	}
	return b, nil
}
