package engine

import (
	"encoding/json"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/kern"
)

// Relearn is Extend with the kernel's parameters learnt again by Algorithm 2 (RunLearn with
// lo): each outer iteration holds the model's sites under the current kernel, adds the best
// new rows up to opt.ActiveSize, and optimises the kernel on that active set. The old
// points' sites stay as the file holds them (their targets are not in it), so the active
// term is always the FixedSites objective; with lo's default FullData objective the
// predictive likelihood of the new rows left out of the active set is added to it, and
// guards each iteration as in Learn. Every new row is a candidate and no point is swapped.
// The model returned has the learnt kernel; m is unchanged.
func Relearn(m *Model, x *mat.Dense, y []float64, opt ExtendOptions,
	lo LoopOptions) (*Model, *LearnResult, error) {
	if m == nil {
		return nil, nil, errors.New("ivm: Relearn needs a model")
	}
	sum, ok := m.Kernel.(*kern.Sum)
	if !ok {
		return nil, nil, fmt.Errorf("ivm: a kernel of type %T cannot be relearnt", m.Kernel)
	}
	k, err := cloneSum(sum)
	if err != nil {
		return nil, nil, err
	}
	held := *m
	held.Kernel, held.upper = k, blas64.Triangular{} // the factor is recomputed per kernel
	opt.MaxSwaps, opt.Candidates, opt.Columns = -1, -1, nil
	sel, err := newExtendSelector(&held, x, y, opt) // RunLearn's first selection holds the sites
	if err != nil {
		return nil, nil, err
	}
	target, err := extendedSize(m.Size(), opt.ActiveSize, sel.n)
	if err != nil {
		return nil, nil, err
	}
	task := &extendTask{model: &held, sel: sel, added: target - m.Size()}
	res, err := RunLearn(task, k, lo)
	if err != nil {
		return nil, nil, err
	}
	out, err := sel.Model()
	if err != nil {
		return nil, nil, err
	}
	out.Active = extendedRows(m.Active, sel.Active(), nil, m.Size(), opt.FirstRow)
	return out, res, nil
}

// cloneSum returns a copy of k through its JSON form, which holds every parameter exactly.
func cloneSum(k *kern.Sum) (*kern.Sum, error) {
	b, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	var c kern.Sum
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// extendTask is Algorithm 2's Tasks for Relearn: a selector over a model's active inputs,
// holding its sites, and the new rows, of which it selects added.
type extendTask struct {
	model *Model
	sel   *Selector
	added int
}

func (e *extendTask) Selectors() []*Selector { return []*Selector{e.sel} }

func (e *extendTask) Select() error {
	if err := e.sel.Reset(); err != nil {
		return err
	}
	if err := e.sel.holdSites(e.model); err != nil {
		return err
	}
	return e.sel.Select(e.added)
}

func (e *extendTask) HeldOutLogLik() float64 { return e.sel.HeldOutLogLik() }
