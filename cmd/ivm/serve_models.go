package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/multitask"
)

// modelSource is a model as named on serve's command line: NAME=FILE, or FILE served under
// its base name without ".json".
type modelSource struct {
	name, path string
}

// modelName is what a served model's name may hold: it is a URL path segment.
var modelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// parseModelArgs reads serve's MODEL arguments; names must be distinct.
func parseModelArgs(args []string) ([]modelSource, error) {
	var out []modelSource
	seen := map[string]string{}
	for _, a := range args {
		src := modelSource{path: a, name: strings.TrimSuffix(filepath.Base(a), ".json")}
		if name, path, ok := strings.Cut(a, "="); ok && modelName.MatchString(name) {
			src = modelSource{name: name, path: path}
		} else if _, err := os.Stat(a); ok && err != nil {
			// NAME=FILE with a bad NAME, not a file whose name holds '='.
			return nil,
				fmt.Errorf("%s: NAME %q is not a model name: use letters, digits, '.', '_' and '-', "+
					"starting with a letter or digit", a, name)
		}
		if !modelName.MatchString(src.name) {
			return nil,
				fmt.Errorf(
					"%s: %q cannot be a model's name in a URL (letters, digits, '.', '_', '-'); name it with "+
						"NAME=FILE", a, src.name)
		}
		if prev, dup := seen[src.name]; dup {
			return nil, fmt.Errorf("%s and %s would both be served as %q; name one with NAME=FILE", prev, a,
				src.name)
		}
		seen[src.name] = a
		out = append(out, src)
	}
	return out, nil
}

// servedModel is one model file as the server holds it: a single-task predictor (binary,
// multi-class, regression, ordinal, semi-supervised) or a multi-task model.
type servedModel struct {
	modelSource
	single *ivm.Predictor
	tasks  *multitask.Model
	// dim is the input dimension; classes the class labels as in the training data (nil
	// for regression), the order of each prediction's "prob".
	dim     int
	classes []float64
	// sha256 identifies the file's version, info is what `ivm info` prints about it.
	sha256 string
	info   []string
	loaded time.Time
}

// loadServedModel reads a model file of any kind.
func loadServedModel(src modelSource) (*servedModel, error) {
	b, sum, err := readServedFile(src.path)
	if err != nil {
		return nil, err
	}
	return decodeServedModel(src, b, sum)
}

// decodeServedModel decodes the model file b, whose SHA-256 is sum.
func decodeServedModel(src modelSource, b []byte, sum string) (*servedModel, error) {
	m := &servedModel{modelSource: src, loaded: time.Now().UTC(), sha256: sum}
	var info bytes.Buffer
	mf, err := decodeModel(b, src.path, false)
	if err != nil {
		return nil, err
	}
	if mf.family != nil {
		return nil,
			fmt.Errorf(
				"%s: ivm serve serves IVM models (single- or multi-task); this model family is applied with "+
					"ivm predict", src.path)
	}
	if tm := mf.multi; tm != nil {
		m.tasks, m.dim, m.classes = tm, tm.Dim(), tm.Classes()
		writeTaskInfo(&info, src.path, tm)
	} else {
		m.single = mf.single
		m.dim, m.classes = m.single.InputDim(), m.single.Classes
		writeInfo(&info, src.path, m.single)
	}
	m.info = strings.Split(strings.TrimRight(info.String(), "\n"), "\n")
	return m, nil
}

// readServedFile reads the model file path whole, and its SHA-256. Only a regular file is
// read: it is opened without blocking and checked before a byte is read, so that a path
// replaced by a FIFO or a link to /dev/zero neither hangs a reload (and SIGTERM with it)
// nor is read for ever.
func readServedFile(path string) ([]byte, string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	if !st.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s: not a regular file (%s): ivm serve reads model files only",
			path, fileKind(st.Mode()))
	}
	b, err := readModelFrom(f, path, defaultMaxMem)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(mode os.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&os.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&os.ModeCharDevice != 0:
		return "a character device"
	case mode&os.ModeDevice != 0:
		return "a device"
	case mode&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// predictionJSON is one row's prediction: the numbers `ivm predict -prob` writes.
type predictionJSON struct {
	Label float64 `json:"label"`
	// Prob is the probability of each class, in the order of the response's "classes".
	Prob []float64 `json:"prob,omitempty"`
	// Mean and Variance are the predictive mean and variance of a regression.
	Mean     *float64 `json:"mean,omitempty"`
	Variance *float64 `json:"variance,omitempty"`
	// LatentMean and LatentVariance are a classifier's latent mean and variance, one per
	// model (multi-class: per one-vs-rest model, in the order of "classes").
	LatentMean     []float64 `json:"latent_mean,omitempty"`
	LatentVariance []float64 `json:"latent_variance,omitempty"`
}

// predict predicts the rows of x (tasks names each row's task for a multi-task model).
func (m *servedModel) predict(x *mat.Dense, tasks []string) ([]predictionJSON, error) {
	out := make([]predictionJSON, x.RawMatrix().Rows)
	if m.single != nil {
		preds, err := m.single.Predict(x)
		if err != nil {
			return nil, err
		}
		for i, q := range preds {
			out[i] = predictionJSON{Label: q.Label, Prob: q.Prob, LatentMean: q.Mean, LatentVariance: q.Var}
			if m.single.Task == ivm.Regression {
				out[i] = predictionJSON{Label: q.Label, Mean: &q.Mean[0], Variance: &q.Var[0]}
			}
		}
		return out, nil
	}
	preds, mu, vs, err := m.tasks.PredictLatent(x, tasks)
	if err != nil {
		return nil, err
	}
	for i, q := range preds {
		out[i] = predictionJSON{Label: q.Label, Prob: q.Prob, LatentMean: mu[i : i+1],
			LatentVariance: vs[i : i+1]}
		if m.classes == nil {
			out[i] = predictionJSON{Label: q.Label, Mean: &preds[i].Mean, Variance: &preds[i].Var}
		}
	}
	return out, nil
}

// modelInfoJSON describes a served model (GET /v1/models).
type modelInfoJSON struct {
	Name     string    `json:"name"`
	File     string    `json:"file"`
	Format   string    `json:"format"`
	Task     string    `json:"task"`
	Classes  []float64 `json:"classes,omitempty"`
	Tasks    []string  `json:"tasks,omitempty"`
	InputDim int       `json:"input_dim"`
	SHA256   string    `json:"sha256"`
	Loaded   string    `json:"loaded"`
	Info     []string  `json:"info"`
}

func (m *servedModel) describe() modelInfoJSON {
	d := modelInfoJSON{Name: m.name, File: m.path, Classes: m.classes, InputDim: m.dim,
		SHA256: m.sha256,
		Loaded: m.loaded.Format(time.RFC3339), Info: m.info}
	if m.single != nil {
		d.Format, d.Task = ivm.ModelFormat, m.single.Task.String()
		return d
	}
	d.Format, d.Task = multitask.ModelFormat, "multitask"
	for _, t := range m.tasks.Tasks {
		d.Tasks = append(d.Tasks, t.Name)
	}
	return d
}

// registry holds the served models. Requests read the current set without locking; a
// reload builds a new set and swaps it in, so a request in flight finishes with the model
// it started with and none waits for a reload.
type registry struct {
	sources []modelSource
	reload  sync.Mutex // one reload at a time
	current atomic.Pointer[map[string]*servedModel]
}

// loadRegistry reads every model; any that cannot be read is an error.
func loadRegistry(sources []modelSource) (*registry, error) {
	models := map[string]*servedModel{}
	for _, src := range sources {
		m, err := loadServedModel(src)
		if err != nil {
			return nil, err
		}
		models[src.name] = m
	}
	r := &registry{sources: sources}
	r.current.Store(&models)
	return r, nil
}

func (r *registry) get(name string) *servedModel { return (*r.current.Load())[name] }

// list returns the models in command-line order.
func (r *registry) list() []*servedModel {
	cur := *r.current.Load()
	out := make([]*servedModel, 0, len(r.sources))
	for _, src := range r.sources {
		out = append(out, cur[src.name])
	}
	return out
}

// reloadAll rereads every model file whose content changed. A file that cannot be read
// keeps the model already loaded, and the log says why. It returns the number of models
// replaced and of files refused.
func (r *registry) reloadAll(log *slog.Logger) (replaced, refused int) {
	r.reload.Lock()
	defer r.reload.Unlock()
	old := *r.current.Load()
	next := make(map[string]*servedModel, len(old))
	for _, src := range r.sources {
		next[src.name] = old[src.name]
		b, sum, err := readServedFile(src.path)
		if err == nil && sum == old[src.name].sha256 {
			continue
		}
		var m *servedModel
		if err == nil {
			m, err = decodeServedModel(src, b, sum)
		}
		if err != nil {
			refused++
			log.Error("reload refused: keeping the model loaded before", "model", src.name, "file", src.path,
				"error", err.Error())
			continue
		}
		replaced++
		next[src.name] = m
		log.Info("model reloaded", "model", src.name, "file", src.path, "sha256", m.sha256)
	}
	r.current.Store(&next)
	return replaced, refused
}
