package multitask

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/kern"
	"github.com/ivmlab/ivm/noise"
)

// fuzzModelFile writes a small multi-task model of two tasks (Gaussian or probit noise).
func fuzzModelFile(f *testing.F, probit bool) []byte {
	x := mat.NewDense(8, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 2, 1, 1, 2, 2, 2, 3, 1})
	y := []float64{0.1, 0.5, -0.3, 0.9, 1.2, -0.4, 0.7, 0.2}
	nm := func() (noise.Model, error) { return noise.NewGaussian(0), nil }
	if probit {
		for i := range y {
			y[i] = map[bool]float64{true: 1, false: -1}[y[i] > 0.3]
		}
		nm = func() (noise.Model, error) { return noise.NewProbit(), nil }
	}
	tasks, err := Split(x, y, []string{"a", "b", "a", "b", "a", "b", "a", "b"}, nm)
	if err != nil {
		f.Fatal(err)
	}
	k, err := kern.Parse("rbf(gamma=0.5)+bias+white(variance=0.1)", 2)
	if err != nil {
		f.Fatal(err)
	}
	s, err := NewSelector(tasks, k, engine.Options{})
	if err != nil {
		f.Fatal(err)
	}
	if err := s.Select(4); err != nil {
		f.Fatal(err)
	}
	m, err := s.Model()
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzLoad feeds arbitrary bytes to Load: it must never panic or allocate what
// a hand-edited size asks for, and whatever it accepts must predict every task at inputs
// of its dimension and write back to a file that reads again. Seeds: valid files and the
// hand edits that crashed ivm predict, info and plot (issue 30: input_dim 2^62 and 1e12, a
// kernel for another dimension, a negative probit site precision).
func FuzzLoad(f *testing.F) {
	gauss, probit := fuzzModelFile(f, false), fuzzModelFile(f, true)
	f.Add(gauss)
	f.Add(probit)
	for _, edit := range [][2]string{
		{`"input_dim": 2`, `"input_dim": 4611686018427387904`},
		{`"input_dim": 2`, `"input_dim": 1000000000000`},
		{`"input_dim": 2`, `"input_dim": 3`},
		{`"input_dim": 2`, `"input_dim": -1`},
		{`"site_precision": [`, `"site_precision": [-2.5, `},
		{`"row": 0`, `"row": -4`},
		{`"name": "b"`, `"name": "a"`},
	} {
		f.Add([]byte(strings.Replace(string(gauss), edit[0], edit[1], 1)))
		f.Add([]byte(strings.Replace(string(probit), edit[0], edit[1], 1)))
	}
	f.Add([]byte(`{"format":"ivm-mtmodel/1","kernel":{},"tasks":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m, err := Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		if m.InputDim > 1<<12 {
			// Test inputs of that width are the readers' to bound (dataset's MaxValues);
			// allocating them here would only measure the allocator.
			return
		}
		x := mat.NewDense(2, m.InputDim, nil)
		x.Set(1, 0, 0.5)
		for ti := range m.Tasks {
			if _, _, err := m.Latent(ti, x); err != nil {
				t.Fatalf("task %d of a model that loaded does not predict: %v", ti, err)
			}
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatalf("a model that loaded cannot be written: %v", err)
		}
		if _, err := Load(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatalf("a written model does not read back: %v\n%s", err, buf.Bytes())
		}
	})
}
