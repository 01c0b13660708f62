package main

import (
	"bytes"
	"math"
	"testing"

	"github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/ssmtr"
)

// fuzzRows bounds the rows and inputs a fuzz input may have: the targets below fit models,
// and what they look for is a panic or a silent failure, not a slow fit.
const fuzzRows, fuzzDim = 40, 4

// fuzzRead reads a fuzz input as the commands read files, with small limits; ok is false
// for an input that is refused (the reader's own fuzz tests cover those) or too large.
func fuzzRead(data []byte, opt dataset.ReadOptions) (*dataset.Data, bool) {
	opt.MaxValues, opt.MaxLineBytes, opt.MaxBytes = 1<<12, 1<<12, 1<<16
	d, err := dataset.Read(bytes.NewReader(data), opt)
	if err != nil {
		return nil, false
	}
	n, dim := d.X.Dims()
	return d, n <= fuzzRows && dim <= fuzzDim
}

// FuzzTaskTraining feeds arbitrary CSV or libsvm text to the path of `ivm train -tasks`
// with a fixed kernel: reading with a task column, choosing the noise model, splitting by
// task, selecting, and writing and reading back the model file. Nothing may panic, and a
// model that was trained must read back and predict.
func FuzzTaskTraining(f *testing.F) {
	for _, s := range []string{
		"a,0.1,0.2,1\na,0.5,0.1,-1\nb,0.3,0.9,1\nb,0.2,0.2,-1\n",
		"t,x,y\n1,0.5,1.5\n1,1,2.5\n2,0.1,0.7\n2,2,3.1\n",
		"1 task:a 1:0.5\n-1 task:b 2:1\n1 task:a 1:2 2:1\n",
		"a,1e300,1\na,-1e300,2.5\nb,1e300,1.5\n",
		"a,0,5\na,0,7\n",
		"a,1,?\nb,2,?\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ok := fuzzRead(data, dataset.ReadOptions{TaskCol: dataset.TaskFirst})
		if !ok || d.Task == nil {
			return
		}
		n, _ := d.X.Dims()
		m, err := multitask.Fit(d.X, d.Y, d.Task, multitask.Config{
			Kernel:      "rbf(gamma=0.5)+bias+white(variance=0.1)",
			FixedKernel: true, ActiveSize: min(n, 3)})
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			return // a model with non-finite values is refused, not written
		}
		back, err := multitask.Load(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("a trained model does not read back: %v\n%s", err, buf.Bytes())
		}
		if _, err := back.Predict(d.X, d.Task); err != nil {
			t.Fatalf("a trained model does not predict its training rows: %v", err)
		}
		for ti := range back.Tasks {
			if _, _, err := back.Latent(ti, d.X); err != nil {
				t.Fatalf("task %d of a trained model does not predict: %v", ti, err)
			}
		}
	})
}

// FuzzMtregInput feeds arbitrary CSV text to the path of `ivm mtreg`: the task column,
// the standardisation, the grouping into tasks and a short SSMTR fit, then predictions
// of every row. Nothing may panic (ssmtr's Cholesky solves included); a fit that succeeds
// must predict finite means.
func FuzzMtregInput(f *testing.F) {
	for _, s := range []string{
		"1,0.1,0.5\n1,0.9,1.5\n1,0.4,?\n2,0.2,0.3\n2,0.8,1.1\n2,0.5,?\n",
		"task,x1,x2,y\n1,1e200,2e200,1\n1,3e200,1e200,2\n2,2e200,2e200,1.5\n2,1e200,3e200,?\n",
		"1,5,1\n1,5,2\n1,5,?\n",
		"1,0,?\n2,1,1\n",
		"3,1,1\n3,2,1\n3,3,1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ok := fuzzRead(data,
			dataset.ReadOptions{Format: dataset.CSV, TaskCol: dataset.TaskFirst})
		if !ok {
			return
		}
		if d.Task == nil {
			return
		}
		m, err := ssmtr.Fit(d.X, d.Y, d.Task,
			ssmtr.Config{Method: ssmtr.SSMTR, OuterIters: 1, InnerIters: 3, Workers: 1})
		if err != nil {
			return
		}
		preds, err := predictSSMTR(m, d)
		if err != nil {
			t.Fatalf("a fitted model does not predict its own rows: %v", err)
		}
		for r, p := range preds {
			if math.IsNaN(p.Mean) || math.IsInf(p.Mean, 0) ||
				math.IsNaN(p.Var) || math.IsInf(p.Var, 0) {
				t.Fatalf("row %d: prediction %+v from a fit that reported success", r+1, p)
			}
		}
	})
}

// FuzzArchipelagoInput feeds arbitrary training and test text to the path of `ivm
// archipelago`: labels to classes, a short fit and the model's predictions of the test
// rows. Nothing may panic; a chain that ran must give a probability vector per row.
func FuzzArchipelagoInput(f *testing.F) {
	f.Add([]byte("0,0,1\n0.2,0.1,1\n2,2,2\n2.1,1.9,2\n1,1,?\n"), []byte("0,0.1,1\n2,2.2,2\n"))
	f.Add([]byte("0,1\n1,2\n0.5,?\n"), []byte("0.2,1\n"))
	f.Add([]byte("0,0,1\n0,0,2\n"), []byte("0,0,3\n"))
	f.Add([]byte("1e300,1\n-1e300,2\n"), []byte("0,1\n"))
	f.Fuzz(func(t *testing.T, trainText, testText []byte) {
		train, ok := fuzzRead(trainText, dataset.ReadOptions{})
		if !ok {
			return
		}
		_, dim := train.X.Dims()
		test, ok := fuzzRead(testText, dataset.ReadOptions{Dim: dim})
		if !ok {
			return
		}
		classes, _, err := archLabels(train.Y, nil, true)
		if err != nil {
			return
		}
		_, testLab, err := archLabels(test.Y, classes, false)
		if err != nil {
			return
		}
		m, err := archipelago.Fit(train.X, train.Y, archipelago.Config{Sweeps: 4, Burn: 1, Seed: 1})
		if err != nil {
			return
		}
		probs, err := classProbs(m)(test.X)
		if err != nil {
			return
		}
		n, _ := test.X.Dims()
		if len(probs) != n {
			t.Fatalf("%d probability rows for %d test rows", len(probs), n)
		}
		if _, _, err := archipelago.Evaluate(probs, testLab); err != nil {
			t.Fatalf("the predictions of a chain that ran cannot be scored: %v", err)
		}
	})
}
