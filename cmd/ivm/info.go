package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/local"
	"github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/projected"
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
		cal := calibrationOf(pp)
		scaled := "not scaled"
		if cal.scaler != nil {
			scaled = fmt.Sprintf("inputs scaled (%v)", cal.scaler.Kind)
		}
		fmt.Fprintf(w, "             %s; sharpness a = %.4g, label noise ε = %.3g\n", scaled,
			cal.sharpness, cal.labelNoise)
		if lg := cal.logistic; lg != nil {
			fmt.Fprintf(w,
				"             p(%v) = σ(%.4g·μ %+.4g), "+
					"μ the regression of the labels coded ±1\n",
				pp.Classes[1], lg.Slope, lg.Offset)
		}
	}
	if m.Condition != 0 {
		fmt.Fprintf(w, "             the active-set matrix has condition number %.3g\n",
			m.Condition)
	}
	if m.Jitter != 0 {
		fmt.Fprintf(w, "             jitter %g was added to factorise the active-set matrix\n",
			m.Jitter)
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
			"             learnt in %d outer iterations; "+
				"final held-out log likelihood %.4f per point\n",
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
	writeKindInfo(w, p)
	cal := calibrationOf(p)
	if cal.scaler != nil && cal.scaler.Weight != nil {
		fmt.Fprintf(w, "relevance:   %s\n", relevanceLine(cal.scaler.Weight))
	}
	if k, ok := p.Kind.(*ivm.ProjectedKind); ok {
		pr := k.Projected
		m, _ := pr.Centres.Dims()
		if mat.Norm(pr.Weights, 1) == 0 {
			fmt.Fprintln(w, "model:       the constant predictor (its weights are 0): the same "+
				"prediction whatever the inputs")
		} else {
			fmt.Fprintf(w,
				"model:       %d centres (training rows drawn at random), kernel %s, λ %.4g (the "+
					"targets' noise variance, in the kernel's units)\n", m, pr.Kernel, pr.Lambda)
			if a := pr.Additive; a != nil {
				fmt.Fprintf(w, "additive:    + %.4g·Σ_j k_j(x_j), an rbf of each of inputs %s "+
					"alone through %d knots on their axes (a sum of one-input effects)\n",
					a.Variance, additiveInputs(a), a.Knots())
			}
			if l := pr.Linear; l != nil {
				lw := mat.Col(nil, 1, l.Weights)
				for i, v := range lw { // four digits each: the weights are for reading
					lw[i], _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
				}
				fmt.Fprintf(w, "linear:      class %g's probability tilted by a logistic "+
					"regression of the inputs, p ∝ p^%.4g·exp(x·w + b), w %s (on the scaled "+
					"inputs), b %.4g\n", p.Classes[1], l.Power, floats(lw), l.Bias[1])
			}
		}
		if q := pr.Query; q != nil {
			fmt.Fprintf(w, "query:       the posterior through %d of the centres and their "+
				"kernel values over the training rows (ivm query)\n", len(q.Centres))
		}
		if l := pr.Local; l != nil {
			n, _ := l.Rows.Dims()
			fmt.Fprintf(w, "local:       + the residuals of the %d nearest of the %d training "+
				"rows, a Gaussian process of them (input weights %s; γ %.4g; variance %.4g of "+
				"%.4g)\n", min(n, local.Neighbours), n, floats(l.Weights), l.Gamma, l.Signal,
				l.Signal+l.Noise)
			fmt.Fprintln(w, "calibration: predictive variance at each input, the local "+
				"process's, scaled to the held-out residuals and widened to cover 95 %")
		} else if p.Task == ivm.Regression {
			fmt.Fprintf(w,
				"calibration: predictive variance %.4g everywhere "+
					"(the held-out residuals', widened to cover 95 %%)\n", pr.NoiseVar)
		} else if pr.LogWeight != nil {
			fmt.Fprintf(w, "calibration: p_c ∝ exp((f·Mix)_c + b_c·ln q_c + Offset_c), "+
				"q = max((f + 1)/2, %.3g), a multinomial logistic map of the class latents f "+
				"and their log probabilities (fitted on held-out rows)\n", pr.LogFloor)
		} else {
			fmt.Fprintln(w,
				"calibration: p ∝ exp(f·Mix + Offset), "+
					"a multinomial logistic map of the class latents f (fitted on held-out rows)")
		}
	} else if cal.sharpness != 0 && cal.sharpness != 1 || cal.softmax {
		what := "class probabilities p_c ∝ q_c^a"
		switch {
		case p.Task == ivm.Regression:
			what = "predictive variance divided by a"
		case cal.softmax:
			what = "class probabilities p_c ∝ exp(a·μ_c/√(1+σ²_c)), " +
				"a softmax of the one-vs-rest latents"
		}
		fmt.Fprintf(w, "sharpness:   a = %.4g (%s, chosen on held-out rows)\n", cal.sharpness, what)
	}
	if cal.logistic != nil {
		fmt.Fprintf(w,
			"calibration: p(%v) = σ(%.4g·μ %+.4g), μ the model's regression of the labels "+
				"coded ±1 (fitted to its leave-one-out means)\n",
			p.Classes[1], cal.logistic.Slope, cal.logistic.Offset)
	}
	if cal.labelNoise != 0 {
		fmt.Fprintf(w,
			"label noise: ε = %.3g (p_c = (1−ε)·p_c + ε/%d, chosen on held-out rows)\n",
			cal.labelNoise, len(p.Classes))
	}
	if b := p.Baseline; b != nil {
		verdict := "better than the constant predictor"
		if !b.Beaten() {
			verdict = "NO BETTER than the constant predictor (predictions near the base rate)"
		}
		when := ""
		if n := len(p.Training.Updates); n > 0 {
			when = fmt.Sprintf(", the model as trained, before its %d update(s)", n)
		}
		fmt.Fprintf(w, "held out:    log loss %.4f per row against the constant predictor's %.4f "+
			"(± %.4f, %d rows%s): %s\n", b.Model, b.Prior, b.SE, b.Rows, when, verdict)
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
		parts = append(parts, fmt.Sprintf("%d more, at most %.3g", rest,
			weight[order[relevanceShown]]))
	}
	return "input weights (1: the most relevant) " + strings.Join(parts, ", ")
}

// writeKindInfo ends the task line with what kind of predictor p is, and writes the inputs
// line: their number and scaling.
func writeKindInfo(w io.Writer, p *ivm.Predictor) {
	scaling := ", not scaled"
	if sc := calibrationOf(p).scaler; sc != nil {
		scaling = fmt.Sprintf(", scaled (%v) as at training", sc)
	}
	switch k := p.Kind.(type) {
	case *ivm.OneVsOneKind:
		fmt.Fprintf(w, " (one-vs-one: %d pairs, probabilities coupled)", len(k.Pairs))
		scaling = ", scaled by each pair as at its training"
	case *ivm.BlendKind:
		fmt.Fprintf(w, " (a blend of %d models, probabilities averaged)", len(k.Members))
		scaling = ", scaled by each blended model as at its training"
	case *ivm.ProjectedKind:
		if p.Task == ivm.Regression {
			fmt.Fprint(w, " (projected: every row regressed through shared centres)")
		} else {
			fmt.Fprint(w, " (projected: every class's code regressed through shared centres)")
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "inputs:      %d%s\n", p.InputDim(), scaling)
}

// calibration is a predictor's input scaling and the calibration of its probabilities, as
// its model file holds them at the top level: none (sharpness 1) where its one-vs-one
// pairs or blended members hold their own, but for one-vs-one the label noise.
type calibration struct {
	scaler                *dataset.Scaler
	sharpness, labelNoise float64
	softmax               bool
	logistic              *calib.Logistic
}

// calibrationOf returns p's calibration, whatever its kind.
func calibrationOf(p *ivm.Predictor) calibration {
	switch k := p.Kind.(type) {
	case *ivm.SingleKind:
		return calibration{scaler: k.Scaler, sharpness: k.Sharpness, labelNoise: k.LabelNoise,
			logistic: k.Logistic}
	case *ivm.OneVsRestKind:
		return calibration{scaler: k.Scaler, sharpness: k.Sharpness, labelNoise: k.LabelNoise,
			softmax: k.Softmax}
	case *ivm.ProjectedKind:
		return calibration{scaler: k.Scaler, sharpness: k.Sharpness, labelNoise: k.LabelNoise,
			softmax: k.Softmax}
	case *ivm.OneVsOneKind:
		return calibration{sharpness: 1, labelNoise: k.LabelNoise}
	}
	return calibration{sharpness: 1}
}

// modelsOf returns the IVM models of a predictor of one model or one-vs-rest models, and
// their traces; none for other kinds.
func modelsOf(p *ivm.Predictor) ([]*engine.Model, [][]engine.IterTrace) {
	switch k := p.Kind.(type) {
	case *ivm.SingleKind:
		return []*engine.Model{k.Model}, [][]engine.IterTrace{k.Trace}
	case *ivm.OneVsRestKind:
		return k.Models, k.Traces
	}
	return nil, nil
}

// pairsOf returns a one-vs-one predictor's pairs, nil for other kinds.
func pairsOf(p *ivm.Predictor) []*ivm.Predictor {
	if k, ok := p.Kind.(*ivm.OneVsOneKind); ok {
		return k.Pairs
	}
	return nil
}

// membersOf returns a blend's members, nil for other kinds.
func membersOf(p *ivm.Predictor) []*ivm.Predictor {
	if k, ok := p.Kind.(*ivm.BlendKind); ok {
		return k.Members
	}
	return nil
}

// additiveInputs lists the 1-based inputs of an additive part, the first eight of them.
func additiveInputs(a *projected.Additive) string {
	var b strings.Builder
	for i, in := range a.Inputs {
		if i == 8 {
			fmt.Fprintf(&b, " and %d more", len(a.Inputs)-8)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, in.Input+1)
	}
	return b.String()
}
