package ivm

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/calib"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/engine"
	"github.com/ivmlab/ivm/multiclass"
	"github.com/ivmlab/ivm/noise"
)

// Kind is what a Predictor's models are and how they make its predictions: SingleKind,
// OneVsRestKind, OneVsOneKind, BlendKind or ProjectedKind, each a kind of model file (a
// top-level model, "models", "pairs", "blend", "projected"). The Predictor holds what all
// kinds share (task, classes, provenance) and passes itself to its kind's methods.
type Kind interface {
	// InputDim is the number of inputs the models take (0 for a part that holds none).
	InputDim() int
	// predict predicts the checked rows x (Predictor.Predict).
	predict(p *Predictor, x mat.Matrix) ([]noise.Prediction, error)
	// predictLabels predicts the checked rows x without latent variances where the kind
	// can (Predictor.PredictLabels).
	predictLabels(p *Predictor, x mat.Matrix) ([]noise.Prediction, error)
	// check validates the kind against p's task and classes (after Load or MergeParts).
	check(p *Predictor) error
	// encode puts the kind's models, scaling and calibration into the model file f.
	encode(p *Predictor, f *fileJSON) error
	// submodels lists the kind's IVM models (Predictor.Submodels).
	submodels(p *Predictor) []Submodel
}

// SingleKind is one IVM model with its input scaling and calibration: a binary,
// regression, ordinal or semi-supervised task's, a binary task's regression of its labels,
// a one-vs-one pair's or a blend's member.
type SingleKind struct {
	// Model is the IVM model.
	Model *engine.Model
	// Trace is its learning trace (nil for a fixed or searched kernel).
	Trace []engine.IterTrace
	// Scaler is the input scaling (nil: none).
	Scaler *dataset.Scaler
	// Sharpness is the exponent a of the class probabilities p_c ∝ q_c^a of a binary
	// model, with q_c the model's probabilities: for two classes a temperature on the log
	// odds, as Platt scaling fits one for an SVM. For regression the predictive density is
	// tempered the same way, N(y; μ, v)^a ∝ N(y; μ, v/a): the predictive variance is divided
	// by a. Search chooses a by the held-out log loss or density; 1 otherwise.
	Sharpness float64
	// LabelNoise is the weight ε of a uniform distribution over the classes mixed into a
	// binary model's probabilities after the sharpening, p_c = (1−ε) p'_c + ε/2: the chance
	// that a label is noise. It bounds what one confident mistake costs (−ln(ε/2) instead
	// of up to 34 nats), which on data with a few mislabelled or atypical rows is most of
	// the log loss. Search chooses ε with the sharpness, at least 0.001; 0 otherwise.
	LabelNoise float64
	// Logistic, for a binary task whose model regresses the labels coded ±1 (Gaussian
	// noise; Fit does so where every row is active, labels.go), maps the model's predictive
	// mean μ to p(y = +1) = σ(Slope·μ + Offset); Sharpness is then 1 and LabelNoise mixes
	// in as for a probit model. nil otherwise.
	Logistic *calib.Logistic
}

// InputDim is the number of inputs the model takes.
func (k *SingleKind) InputDim() int {
	if k.Model == nil {
		return 0
	}
	_, dim := k.Model.XActive.Dims()
	return dim
}

// latentsAt scales the checked rows x and returns the models' latent means there and, with
// variances, their variances (see latents).
func latentsAt(
	sc *dataset.Scaler,
	models []*engine.Model,
	x mat.Matrix,
	variances bool,
) (mus, vss [][]float64,
	err error) {
	xs, err := sc.Apply(x)
	if err != nil {
		return nil, nil, err
	}
	mus, vss = latents(models, xs, variances)
	return mus, vss, nil
}

// predict predicts the rows: regression the predictive mean and variance (divided by the
// sharpness); classification the noise model's probabilities (a label regression's through
// its logistic map), sharpened with the label noise mixed in for a binary task.
func (k *SingleKind) predict(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	mus, vss, err := latentsAt(k.Scaler, []*engine.Model{k.Model}, x, true)
	if err != nil {
		return nil, err
	}
	mu, vs := mus[0], vss[0]
	out := make([]noise.Prediction, len(mu))
	var np noise.Prediction
	for i := range out {
		k.Model.Noise.Predict(&np, mu[i], vs[i])
		q := &out[i]
		switch {
		case p.Task == Regression:
			q.Label, q.Mean, q.Var = np.Mean, np.Mean, np.Var
			if k.Sharpness > 0 {
				q.Var /= k.Sharpness
			}
			continue
		case p.Task == Ordinal:
			q.Prob = slices.Clone(np.Prob)
			q.Label = p.Classes[int(np.Label)]
		case k.Logistic != nil: // binary, the labels regressed
			pos := k.Logistic.Prob(np.Mean)
			q.Prob = []float64{1 - pos, pos}
			q.Label = k.binaryLabel(p.Classes, &np)
		default: // binary, semi-supervised: classes ±1 in the model
			q.Prob = slices.Clone(np.Prob)
			q.Label = k.binaryLabel(p.Classes, &np)
		}
		// Classification reports the latent mean (with the bias) and the latent variance,
		// not the variance of y.
		q.Mean, q.Var = np.Mean, vs[i]
		q.Latent, q.LatentVar = []float64{np.Mean}, []float64{vs[i]}
		if p.Task == Binary {
			calib.Sharpen(q.Prob, k.Sharpness)
			calib.MixUniform(q.Prob, k.LabelNoise)
		}
	}
	return out, nil
}

// predictLabels is predict without the latent variance for a binary or regression task:
// the sign of the latent mean (a label regression: its logistic map's side of ½), the
// predictive mean. Ordinal and semi-supervised labels need the variances: predict's.
func (k *SingleKind) predictLabels(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	if p.Task == Ordinal || p.Task == SemiSupervised {
		return k.predict(p, x)
	}
	mus, _, err := latentsAt(k.Scaler, []*engine.Model{k.Model}, x, false)
	if err != nil {
		return nil, err
	}
	out := make([]noise.Prediction, len(mus[0]))
	var np noise.Prediction
	for i, mu := range mus[0] {
		k.Model.Noise.Predict(&np, mu, 0)
		out[i].Mean = np.Mean
		if p.Task == Regression {
			out[i].Label = np.Mean
			continue
		}
		out[i].Label, out[i].Latent = k.binaryLabel(p.Classes, &np), []float64{np.Mean}
	}
	return out, nil
}

// binaryLabel is the class a binary (or semi-supervised) model's prediction np gives: the
// positive one where p(+1) > ½, which for a label regression is where its logistic map says
// so, and otherwise where the noise model's label is +1.
func (k *SingleKind) binaryLabel(classes []float64, np *noise.Prediction) float64 {
	if k.Logistic != nil && k.Logistic.Prob(np.Mean) > 0.5 || k.Logistic == nil && np.Label > 0 {
		return classes[1]
	}
	return classes[0]
}

// check validates a single model read from a file.
func (k *SingleKind) check(p *Predictor) error {
	return checkModels(p, []*engine.Model{k.Model}, k.calibration())
}

// calibration is the model's scaling and calibration.
func (k *SingleKind) calibration() calibration {
	return calibration{Scaler: k.Scaler, Sharpness: k.Sharpness, LabelNoise: k.LabelNoise,
		Logistic: k.Logistic}
}

// encode writes the model's fields at the file's top level.
func (k *SingleKind) encode(_ *Predictor, f *fileJSON) error {
	f.setCalibration(k.calibration())
	mj, err := encodeModel(k.Model)
	if err != nil {
		return err
	}
	f.setModel(mj)
	f.Trace = k.Trace
	return nil
}

func (k *SingleKind) submodels(*Predictor) []Submodel {
	if k.Model == nil {
		return nil
	}
	return []Submodel{{Model: k.Model, Trace: k.Trace}}
}

// OneVsRestKind is a multi-class task's one-vs-rest models, one per class, with their
// shared input scaling and calibration (multiclass.OneVsRest).
type OneVsRestKind struct {
	// Models holds class c's model, which tells Classes[c] from the rest; a part's models
	// outside its slice are nil.
	Models []*engine.Model
	// Traces holds each model's learning trace (nil entries for a fixed or searched kernel).
	Traces [][]engine.IterTrace
	// Scaler is the input scaling (nil: none).
	Scaler *dataset.Scaler
	// Sharpness is the exponent a of the class probabilities p_c ∝ q_c^a, with q_c the
	// class models' p(y=+1). Normalising the q_c alone (a = 1) gives probabilities that are
	// too flat, because each one-vs-rest model is unsure wherever any class is near. With
	// Softmax, a is instead the temperature of p_c ∝ exp(a·z_c). Search chooses a by the
	// held-out log loss; 1 otherwise.
	Sharpness float64
	// Softmax reports p_c ∝ exp(a·z_c) with z_c = μ_c/√(1+σ²_c), the latent mean of class
	// c's model (bias included) over its standard deviation with a unit probit slope added,
	// instead of p_c ∝ q_c^a; a is Sharpness. Where a row lies between two classes their q_c
	// are both near ½ and the power a moves them little, while z_c keeps telling them
	// apart, so the softmax can be confident about the pair where the power cannot. Search
	// sets it unless the power family fits the held-out rows clearly better (see package
	// search); false otherwise, and in files written before it.
	Softmax bool
	// LabelNoise is the weight ε of a uniform distribution over the K classes mixed into
	// the probabilities after the sharpening, p_c = (1−ε) p'_c + ε/K: the chance that a label
	// is noise. Search chooses it with the sharpness; 0 otherwise.
	LabelNoise float64
}

// InputDim is the number of inputs the models take.
func (k *OneVsRestKind) InputDim() int {
	for _, m := range k.Models { // a part's first models may be nil
		if m != nil {
			_, dim := m.XActive.Dims()
			return dim
		}
	}
	return 0
}

// combination is the rule that turns the class models' outputs into a prediction.
func (k *OneVsRestKind) combination(classes []float64) *multiclass.OneVsRest {
	return &multiclass.OneVsRest{Classes: classes, Sharpness: k.Sharpness, Softmax: k.Softmax,
		LabelNoise: k.LabelNoise}
}

// predict predicts the rows: each class model's p(y=+1) and latent, combined.
func (k *OneVsRestKind) predict(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	mus, vss, err := latentsAt(k.Scaler, k.Models, x, true)
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	out := newLatentRows(n, len(k.Models), true)
	var np noise.Prediction
	for c, m := range k.Models {
		mu, vs := mus[c], vss[c]
		for i := range out {
			m.Noise.Predict(&np, mu[i], vs[i])
			out[i].Latent[c], out[i].LatentVar[c] = np.Mean, vs[i]
			out[i].Prob[c] = np.Prob[1]
		}
	}
	comb := k.combination(p.Classes)
	for i := range out {
		comb.Combine(&out[i])
	}
	return out, nil
}

// newLatentRows returns n predictions with room for the latents of models binary models,
// and with probs their p(y=+1) and variances.
func newLatentRows(n, models int, probs bool) []noise.Prediction {
	out := make([]noise.Prediction, n)
	for i := range out {
		out[i].Latent = make([]float64, models)
		if probs {
			out[i].LatentVar, out[i].Prob = make([]float64, models), make([]float64, models)
		}
	}
	return out
}

// predictLabels labels the rows by the class of the largest latent mean (bias included),
// which can differ from predict's where classes are nearly tied.
func (k *OneVsRestKind) predictLabels(p *Predictor, x mat.Matrix) ([]noise.Prediction, error) {
	mus, _, err := latentsAt(k.Scaler, k.Models, x, false)
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	out := newLatentRows(n, len(k.Models), false)
	var np noise.Prediction
	for c, m := range k.Models {
		for i := range out {
			m.Noise.Predict(&np, mus[c][i], 0)
			out[i].Latent[c] = np.Mean
		}
	}
	comb := k.combination(p.Classes)
	for i := range out {
		comb.Label(&out[i])
	}
	return out, nil
}

// calibration is the models' shared scaling and calibration.
func (k *OneVsRestKind) calibration() calibration {
	return calibration{Scaler: k.Scaler, Sharpness: k.Sharpness, LabelNoise: k.LabelNoise,
		Softmax: k.Softmax}
}

// check validates one-vs-rest models read from a file or merged from parts.
func (k *OneVsRestKind) check(p *Predictor) error {
	return checkModels(p, k.Models, k.calibration())
}

// encode writes the models under "models", each with its class and trace.
func (k *OneVsRestKind) encode(p *Predictor, f *fileJSON) error {
	f.setCalibration(k.calibration())
	for c, m := range k.Models {
		mj, err := encodeModel(m)
		if err != nil {
			return err
		}
		cl := p.Classes[c]
		mj.Class, mj.Trace = &cl, traceOf(k.Traces, c)
		f.Models = append(f.Models, *mj)
	}
	return nil
}

func (k *OneVsRestKind) submodels(p *Predictor) []Submodel {
	var out []Submodel
	for c, m := range k.Models {
		if m == nil {
			continue
		}
		s := Submodel{Model: m, Trace: traceOf(k.Traces, c)}
		if len(k.Models) > 1 && c < len(p.Classes) {
			s.Name = fmt.Sprintf("class %g", p.Classes[c])
		}
		out = append(out, s)
	}
	return out
}

// calibration is a predictor's input scaling and the calibration of its probabilities as a
// model file holds them at its top level; each kind keeps what it has of them.
type calibration struct {
	Scaler                *dataset.Scaler
	Sharpness, LabelNoise float64
	Softmax               bool
	Logistic              *calib.Logistic
}

// newModelsKind is the kind of IVM models of the task: one-vs-rest for a multi-class task,
// else its one model.
func newModelsKind(
	task Task,
	models []*engine.Model,
	traces [][]engine.IterTrace,
	cal calibration,
) Kind {
	if task == MultiClass {
		return &OneVsRestKind{Models: models, Traces: traces, Scaler: cal.Scaler,
			Sharpness: cal.Sharpness, Softmax: cal.Softmax, LabelNoise: cal.LabelNoise}
	}
	return &SingleKind{Model: models[0], Trace: traceOf(traces, 0), Scaler: cal.Scaler,
		Sharpness: cal.Sharpness, LabelNoise: cal.LabelNoise, Logistic: cal.Logistic}
}
