package optimize

import (
	gopt "gonum.org/v1/gonum/optimize"
)

var (
	_ gopt.Method   = (*SCG)(nil)
	_ gopt.Statuser = (*SCG)(nil)
)

// Init implements gonum's optimize.Method. SCG is sequential: it uses one
// task whatever the number offered.
func (s *SCG) Init(dim, tasks int) int {
	s.status, s.err = gopt.NotTerminated, nil
	return 1
}

// Uses implements gonum's optimize.Method: SCG needs the gradient.
func (*SCG) Uses(has gopt.Available) (gopt.Available, error) {
	if !has.Grad {
		return gopt.Available{}, gopt.ErrMissingGrad
	}
	return gopt.Available{Grad: true}, nil
}

// Status implements gonum's optimize.Statuser. It reports how the last run
// ended when SCG itself ended it (see the SCG type); gonum's Minimize asks for
// it after SCG sends MethodDone.
func (s *SCG) Status() (gopt.Status, error) {
	return s.status, s.err
}

// Run implements gonum's optimize.Method.
//
// Each successful step is sent as a MajorIteration carrying the new X, F and
// Gradient; function values and gradients are requested separately
// (FuncEvaluation at trial points, GradEvaluation at the curvature probe and
// at accepted points). When SCG's own stopping rules fire it sends MethodDone.
// If a run ends before any successful step (the start is already stationary,
// or a gonum limit is hit first), the evaluated starting point is sent as a
// MajorIteration after the result channel closes, so that gonum's Result
// holds the start rather than an empty location.
func (s *SCG) Run(operation chan<- gopt.Task, result <-chan gopt.Task, tasks []gopt.Task) {
	s.status, s.err = s.run(operation, result, tasks[0])
	close(operation)
}

func (s *SCG) run(operation chan<- gopt.Task, result <-chan gopt.Task, task gopt.Task) (gopt.Status,
	error) {
	loc := task.Location
	n := len(loc.X)

	// Complete the starting location.
	var need gopt.Operation
	if task.Op&gopt.FuncEvaluation == 0 {
		need |= gopt.FuncEvaluation
	}
	if task.Op&gopt.GradEvaluation == 0 {
		need |= gopt.GradEvaluation
	}
	if need != 0 {
		task.Op = need
		operation <- task
		if r := <-result; r.Op == gopt.PostIteration {
			drain(result)
			return gopt.NotTerminated, nil
		}
	}

	cfg, err := s.resolve(n)
	var c core
	if err == nil {
		err = c.init(cfg, loc.X, loc.F, loc.Gradient)
	}
	if err != nil {
		task.Op = gopt.MethodDone
		operation <- task
		drain(result)
		return gopt.Failure, err
	}

	reported := false
	// fallback reports the starting point if no step succeeded; it must be
	// called after result is closed.
	fallback := func() {
		if !reported {
			setLocation(loc, c.x, c.f, c.g)
			task.Op = gopt.MajorIteration
			operation <- task
		}
	}
	for {
		req := c.next()
		switch req {
		case needFunc, needGrad:
			copy(loc.X, c.xe)
			task.Op = gopt.FuncEvaluation
			if req == needGrad {
				task.Op = gopt.GradEvaluation
			}
		case report:
			setLocation(loc, c.x, c.f, c.g)
			task.Op = gopt.MajorIteration
			reported = true
		case finished:
			task.Op = gopt.MethodDone
			operation <- task
			drain(result) // a PostIteration, then close
			fallback()
			return c.status, c.err
		}
		operation <- task
		if r := <-result; r.Op == gopt.PostIteration {
			// gonum ended the run (a limit, its Converger, the Recorder).
			drain(result)
			fallback()
			return gopt.NotTerminated, nil
		}
		switch req {
		case needFunc:
			c.setFunc(loc.F)
		case needGrad:
			c.setGrad(loc.Gradient)
		}
	}
}

// drain reads result until it is closed, as the Method contract requires
// before operation may be closed.
func drain(result <-chan gopt.Task) {
	for range result {
	}
}

// setLocation stores x, f and g in loc, reusing its memory.
func setLocation(loc *gopt.Location, x []float64, f float64, g []float64) {
	copy(loc.X, x)
	loc.F = f
	loc.Gradient = resize(loc.Gradient, len(g))
	copy(loc.Gradient, g)
}
