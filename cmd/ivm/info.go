package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
)

func init() {
	register("info", command{Synopsis: "ivm info MODEL", Short: "summarise a model file", Order: 25,
		Run: cmdInfo})
}

func cmdInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", "ivm info MODEL", stderr)
	maxMem := registerMaxMem(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	mf, err := readModelKind(fs.Arg(0), *maxMem, true)
	if err != nil {
		return err
	}
	writeModelInfo(stdout, fs.Arg(0), mf)
	return nil
}

// writeModelInfo describes the model file mf read from path, as ivm info prints it.
func writeModelInfo(w io.Writer, path string, mf *modelFile) {
	switch {
	case mf.part != nil:
		writePartInfo(w, path, mf.part)
	case mf.family != nil:
		mf.family.WriteInfo(w, path)
	case mf.multi != nil:
		writeTaskInfo(w, path, mf.multi)
	default:
		writeInfo(w, path, mf.single)
	}
}

// writeTaskInfo describes a multi-task model: the shared kernel, and per task its noise
// model and the number of active points it gave.
func writeTaskInfo(w io.Writer, path string, m *multitask.Model) {
	fmt.Fprintf(w, "model file:  %s (multi-task, ivm-mtmodel/1)\n", path)
	fmt.Fprintf(w, "kernel:      %s (shared by the %d tasks), %d active points in all\n", m.Kernel,
		len(m.Tasks), len(m.Steps))
	if m.Scaler != nil {
		fmt.Fprintf(w, "inputs:      scaled (%v) as at training\n", m.Scaler.Kind)
	}
	for _, t := range m.Tasks {
		fmt.Fprintf(w, "task %-7s %s noise%s; %d active points\n", t.Name, t.Noise.Name(),
			noiseParams(t.Noise), len(t.Rows))
	}
	writeProvenance(w, m.Training)
}

// writeSubmodel describes one of a predictor's models: its noise model, active set and
// kernel, a one-vs-one pair's scaling and calibration, and its learning.
func writeSubmodel(w io.Writer, sm ivm.Submodel) {
	m, lead := sm.Model, "model:      "
	if sm.Name != "" {
		lead = fmt.Sprintf("%-12s", sm.Name)
	}
	fmt.Fprintf(w, "%s %s noise%s; %d active points; kernel %s\n", lead, m.Noise.Name(),
		noiseParams(m.Noise), m.Size(), m.Kernel)
	if pp := sm.Pair; pp != nil {
		scaled := "not scaled"
		if pp.Scaler != nil {
			scaled = fmt.Sprintf("inputs scaled (%v)", pp.Scaler.Kind)
		}
		fmt.Fprintf(w, "             %s; sharpness a = %.4g, label noise ε = %.3g\n", scaled,
			pp.Sharpness, pp.LabelNoise)
		if lg := pp.Logistic; lg != nil {
			fmt.Fprintf(w,
				"             p(%v) = σ(%.4g·μ %+.4g), μ the regression of the labels coded ±1\n",
				pp.Classes[1], lg.Slope, lg.Offset)
		}
	}
	if m.Condition != 0 {
		fmt.Fprintf(w, "             the active-set matrix has condition number %.3g\n", m.Condition)
	}
	if m.Jitter != 0 {
		fmt.Fprintf(w, "             jitter %g was added to factorise the active-set matrix\n", m.Jitter)
	}
	if tr := sm.Trace; len(tr) > 0 {
		iters := 0
		for _, t := range tr {
			if !t.Final {
				iters++
			}
		}
		last := tr[len(tr)-1]
		fmt.Fprintf(w,
			"             learnt in %d outer iterations; final held-out log likelihood %.4f per point\n",
			iters, last.HeldOut)
	}
}

// writeInfo describes a predictor: task, classes, inputs and scaling, each model's noise
// model, kernel, active set and learning, and the training provenance.
func writeInfo(w io.Writer, path string, p *ivm.Predictor) {
	fmt.Fprintf(w, "model file:  %s (%s)\n", path, ivm.ModelFormat)
	fmt.Fprintf(w, "task:        %v", p.Task)
	if len(p.Classes) > 0 {
		fmt.Fprintf(w, ", classes %s", floats(p.Classes))
	}
	if len(p.Pairs) > 0 {
		fmt.Fprintf(w, " (one-vs-one: %d pairs, probabilities coupled)", len(p.Pairs))
	}
	if len(p.Blend) > 0 {
		fmt.Fprintf(w, " (a blend of %d models, probabilities averaged)", len(p.Blend))
	}
	switch {
	case p.Projected != nil && p.Task == ivm.Regression:
		fmt.Fprint(w, " (projected: every row regressed through shared centres)")
	case p.Projected != nil:
		fmt.Fprint(w, " (projected: every class's code regressed through shared centres)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "inputs:      %d", p.InputDim())
	switch {
	case len(p.Pairs) > 0:
		fmt.Fprint(w, ", scaled by each pair as at its training")
	case len(p.Blend) > 0:
		fmt.Fprint(w, ", scaled by each blended model as at its training")
	case p.Scaler != nil:
		fmt.Fprintf(w, ", scaled (%v) as at training", p.Scaler.Kind)
	default:
		fmt.Fprint(w, ", not scaled")
	}
	fmt.Fprintln(w)
	if p.Scaler != nil && p.Scaler.Weight != nil {
		fmt.Fprintf(w, "relevance:   %s\n", relevanceLine(p.Scaler.Weight))
	}
	if pr := p.Projected; pr != nil {
		m, _ := pr.Centres.Dims()
		if mat.Norm(pr.Weights, 1) == 0 {
			fmt.Fprintln(w, "model:       the constant predictor (its weights are 0): the same "+
				"prediction whatever the inputs")
		} else {
			fmt.Fprintf(w,
				"model:       %d centres (training rows drawn at random), kernel %s, λ %.4g (the "+
					"targets' noise variance, in the kernel's units)\n", m, pr.Kernel, pr.Lambda)
		}
		if p.Task == ivm.Regression {
			fmt.Fprintf(w,
				"calibration: predictive variance %.4g everywhere (the held-out residuals', widened to cover "+
					"95 %%)\n", pr.NoiseVar)
		} else {
			fmt.Fprintln(w,
				"calibration: p ∝ exp(f·Mix + Offset), a multinomial logistic map of the class latents f "+
					"(fitted on held-out rows)")
		}
	} else if p.Sharpness != 0 && p.Sharpness != 1 || p.Softmax {
		what := "class probabilities p_c ∝ q_c^a"
		switch {
		case p.Task == ivm.Regression:
			what = "predictive variance divided by a"
		case p.Softmax:
			what = "class probabilities p_c ∝ exp(a·μ_c/√(1+σ²_c)), a softmax of the one-vs-rest " +
				"latents"
		}
		fmt.Fprintf(w, "sharpness:   a = %.4g (%s, chosen on held-out rows)\n", p.Sharpness, what)
	}
	if p.Logistic != nil {
		fmt.Fprintf(w,
			"calibration: p(%v) = σ(%.4g·μ %+.4g), μ the model's regression of the labels coded ±1 "+
				"(fitted to its leave-one-out means)\n",
			p.Classes[1], p.Logistic.Slope, p.Logistic.Offset)
	}
	if p.LabelNoise != 0 {
		fmt.Fprintf(w, "label noise: ε = %.3g (p_c = (1−ε)·p_c + ε/%d, chosen on held-out rows)\n",
			p.LabelNoise, len(p.Classes))
	}
	if b := p.Baseline; b != nil {
		verdict := "better than the constant predictor"
		if !b.Beaten() {
			verdict = "NO BETTER than the constant predictor (predictions near the base rate)"
		}
		fmt.Fprintf(w, "held out:    log loss %.4f per row against the constant predictor's %.4f "+
			"(± %.4f, %d rows): %s\n", b.Model, b.Prior, b.SE, b.Rows, verdict)
	}
	for _, sm := range p.Submodels() {
		writeSubmodel(w, sm)
	}
	writeProvenance(w, p.Training)
}

func noiseParams(nm noise.Model) string {
	vals := make([]float64, nm.NumParams())
	nm.Params(vals)
	var b strings.Builder
	for i, n := range nm.ParamNames() {
		sep := ", "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(&b, "%s%s %.4g", sep, n, vals[i])
	}
	if b.Len() > 0 {
		b.WriteString(")")
	}
	return b.String()
}

func floats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// relevanceShown is how many inputs relevanceLine names.
const relevanceShown = 8

// relevanceLine lists the inputs by relevance weight, the most relevant first (1-based
// column numbers as in the data file), the first relevanceShown of them.
func relevanceLine(weight []float64) string {
	order := make([]int, len(weight))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weight[b], weight[a]) })
	parts := make([]string, 0, relevanceShown+1)
	for _, j := range order[:min(len(order), relevanceShown)] {
		parts = append(parts, fmt.Sprintf("%d: %.3g", j+1, weight[j]))
	}
	if rest := len(order) - relevanceShown; rest > 0 {
		parts = append(parts, fmt.Sprintf("%d more, at most %.3g", rest, weight[order[relevanceShown]]))
	}
	return "input weights (1: the most relevant) " + strings.Join(parts, ", ")
}
