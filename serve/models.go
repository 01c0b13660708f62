package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/internal/atomicfile"
	"github.com/ivmlab/ivm/internal/fileformat"
	"github.com/ivmlab/ivm/noise"
)

// Source is a model to serve: its file, served under Name, a URL path segment
// (ValidName).
type Source struct {
	Name, Path string
}

// modelName is what a served model's name may hold: it is a URL path segment.
var modelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidName says whether name can name a served model: letters, digits, '.', '_' and '-',
// starting with a letter or digit.
func ValidName(name string) bool { return modelName.MatchString(name) }

// servedModel is one model file as the server holds it: a model of any registered family.
type servedModel struct {
	Source
	model family.Model
	// dim is the input dimension; classes the class labels as in the training data (nil
	// for regression), the order of each prediction's "prob"; tasks the names a row's task
	// may have (nil when rows name none).
	dim     int
	classes []float64
	tasks   map[string]bool
	// sha256 identifies the file's version, info describes it (the Describe of
	// LoadModels).
	sha256 string
	info   []string
	loaded time.Time
	// unsaved counts the updates made since the file was read that it does not hold.
	unsaved int
}

// loadServedModel reads a model file of any registered family.
func loadServedModel(src Source, describe Describe) (*servedModel, error) {
	b, sum, err := readServedFile(src.Path)
	if err != nil {
		return nil, err
	}
	return decodeServedModel(src, b, sum, describe)
}

// decodeServedModel decodes the model file b, whose SHA-256 is sum.
func decodeServedModel(src Source, b []byte, sum string, describe Describe) (*servedModel,
	error) {
	fm, err := family.Load(bytes.NewBuffer(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Path, err)
	}
	m := &servedModel{Source: src, model: fm, dim: fm.InputDim(), classes: fm.Classes(),
		loaded: time.Now().UTC(), sha256: sum, info: []string{}}
	if names := fm.Tasks(); names != nil {
		m.tasks = make(map[string]bool, len(names))
		for _, t := range names {
			m.tasks[t] = true
		}
	}
	if describe != nil {
		m.info = describe(src.Path, fm)
	}
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
		return nil, "", fmt.Errorf(
			"%s: not a regular file (%s): models are served from regular files only", path,
			fileKind(st.Mode()))
	}
	b, err := readBounded(f, path, st.Size())
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// MaxFileBytes is the largest model file served: decoding holds its text and the numbers
// it decodes at once.
const MaxFileBytes = 512 << 20

// readBounded reads the model file f, opened from path, whose size is size: from the '{'
// that starts it (fileformat.SkipToObject) to its end, at most MaxFileBytes.
func readBounded(f *os.File, path string, size int64) ([]byte, error) {
	br := bufio.NewReader(f)
	if err := fileformat.SkipToObject(br); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(size, MaxFileBytes)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(br, MaxFileBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if buf.Len() > MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, the largest model file served", path,
			MaxFileBytes>>20)
	}
	return buf.Bytes(), nil
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

// Prediction is one row's prediction: the numbers `ivm predict -prob` writes.
type Prediction struct {
	Label float64 `json:"label"`
	// Prob is the probability of each class, in the order of the response's "classes".
	Prob []float64 `json:"prob,omitempty"`
	// Mean and Variance are the predictive mean and variance of a regression.
	Mean     *float64 `json:"mean,omitempty"`
	Variance *float64 `json:"variance,omitempty"`
	// LatentMean and LatentVariance are a classifier's latent mean and variance, one per
	// model (multi-class: per one-vs-rest model, in the order of "classes"), for the
	// families whose models have them (noise.Prediction's Latent and LatentVar).
	LatentMean     []float64 `json:"latent_mean,omitempty"`
	LatentVariance []float64 `json:"latent_variance,omitempty"`
}

// predict predicts the rows of x (tasks names each row's task for a model whose rows need
// one).
func (m *servedModel) predict(x *mat.Dense, tasks []string) ([]Prediction, error) {
	preds, err := m.model.Predict(x, tasks)
	if err != nil {
		return nil, err
	}
	out := make([]Prediction, len(preds))
	for i := range preds {
		out[i] = m.served(&preds[i])
	}
	return out, nil
}

// served is the answer's form of a prediction q of the model.
func (m *servedModel) served(q *noise.Prediction) Prediction {
	if m.classes == nil {
		return Prediction{Label: q.Label, Mean: &q.Mean, Variance: &q.Var}
	}
	return Prediction{Label: q.Label, Prob: q.Prob, LatentMean: q.Latent,
		LatentVariance: q.LatentVar}
}

// ModelInfo describes a served model (GET /v1/models).
type ModelInfo struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	Format string `json:"format"`
	// Task is family.Model's Kind: binary, multiclass, regression, ordinal,
	// semisupervised, or multitask for a model whose rows name their task.
	Task     string    `json:"task"`
	Classes  []float64 `json:"classes,omitempty"`
	Tasks    []string  `json:"tasks,omitempty"`
	InputDim int       `json:"input_dim"`
	SHA256   string    `json:"sha256"`
	Loaded   string    `json:"loaded"`
	Info     []string  `json:"info"`
	// UnsavedUpdates counts the updates served that the model file does not hold (POST
	// /v1/models/{name}/update under -updates memory): a restart would lose them.
	UnsavedUpdates int `json:"unsaved_updates,omitempty"`
}

func (m *servedModel) describe() ModelInfo {
	return ModelInfo{Name: m.Name, File: m.Path, Format: m.model.Format(), Task: m.model.Kind(),
		Classes: m.classes, Tasks: m.model.Tasks(), InputDim: m.dim, SHA256: m.sha256,
		Loaded: m.loaded.Format(time.RFC3339), Info: m.info, UnsavedUpdates: m.unsaved}
}

// Describe returns the lines that describe a served model read from path, which GET
// /v1/models shows as its "info" (ivm serve gives what ivm info prints).
type Describe func(path string, m family.Model) []string

// Models is the set of models a Handler serves. Requests read the current set without
// locking; a reload builds a new set and swaps it in, so a request in flight finishes with
// the model it started with and none waits for a reload.
type Models struct {
	sources  []Source
	describe Describe
	reload   sync.Mutex // one reload, or one update's commit, at a time
	current  atomic.Pointer[map[string]*servedModel]
	// updating holds a model's update lock (a channel of one slot, so that a request can
	// stop waiting for it); updates is the UpdateMode.
	updating map[string]chan struct{}
	updates  atomic.Int32
}

// LoadModels reads every model file, of any registered family; any that cannot be read,
// or a name that is not ValidName or is given twice, is an error. describe, when not nil,
// gives each model's description.
func LoadModels(sources []Source, describe Describe) (*Models, error) {
	models := map[string]*servedModel{}
	for _, src := range sources {
		if !ValidName(src.Name) {
			return nil, fmt.Errorf("%s: %q cannot be a model's name in a URL", src.Path, src.Name)
		}
		if models[src.Name] != nil {
			return nil, fmt.Errorf("%s: the name %q is given twice", src.Path, src.Name)
		}
		m, err := loadServedModel(src, describe)
		if err != nil {
			return nil, err
		}
		models[src.Name] = m
	}
	ms := &Models{sources: sources, describe: describe, updating: map[string]chan struct{}{}}
	for name := range models {
		ms.updating[name] = make(chan struct{}, 1)
	}
	ms.current.Store(&models)
	return ms, nil
}

func (ms *Models) get(name string) *servedModel { return (*ms.current.Load())[name] }

// list returns the models in the order of the sources.
func (ms *Models) list() []*servedModel {
	cur := *ms.current.Load()
	out := make([]*servedModel, 0, len(ms.sources))
	for _, src := range ms.sources {
		out = append(out, cur[src.Name])
	}
	return out
}

// Names returns the served models' names, in the order of the sources.
func (ms *Models) Names() []string {
	names := make([]string, len(ms.sources))
	for i, src := range ms.sources {
		names[i] = src.Name
	}
	return names
}

// reloadAll rereads every model file whose content changed. A file that cannot be read
// keeps the model already loaded, and the log says why. It returns the number of models
// replaced and of files refused.
func (ms *Models) reloadAll(log *slog.Logger) (replaced, refused int) {
	ms.reload.Lock()
	defer ms.reload.Unlock()
	old := *ms.current.Load()
	next := make(map[string]*servedModel, len(old))
	for _, src := range ms.sources {
		next[src.Name] = old[src.Name]
		b, sum, err := readServedFile(src.Path)
		if err == nil && sum == old[src.Name].sha256 {
			continue
		}
		var m *servedModel
		if err == nil {
			m, err = decodeServedModel(src, b, sum, ms.describe)
		}
		if err != nil {
			refused++
			log.Error("reload refused: keeping the model loaded before", "model", src.Name, "file",
				src.Path, "error", err.Error())
			continue
		}
		replaced++
		if lost := old[src.Name].unsaved; lost > 0 {
			log.Warn("reload discards the updates held in memory only", "model", src.Name,
				"updates", lost)
		}
		next[src.Name] = m
		log.Info("model reloaded", "model", src.Name, "file", src.Path, "sha256", m.sha256)
	}
	ms.current.Store(&next)
	return replaced, refused
}

// UpdateMode is what becomes of an update (POST /v1/models/{name}/update).
type UpdateMode int32

const (
	// UpdatesOff refuses updates (403), the default: a server that answered predictions
	// does not start accepting changes to its models unasked.
	UpdatesOff UpdateMode = iota
	// UpdatesInMemory serves an update until a restart, or a reload of a changed file.
	UpdatesInMemory
	// UpdatesSaved writes an update to the model's file before serving it.
	UpdatesSaved
)

// AcceptUpdates sets what becomes of updates.
func (ms *Models) AcceptUpdates(mode UpdateMode) { ms.updates.Store(int32(mode)) }

func (ms *Models) updateMode() UpdateMode { return UpdateMode(ms.updates.Load()) }

// lockUpdates waits for the update lock of model name; it returns false if ctx ends first.
func (ms *Models) lockUpdates(ctx context.Context, name string) bool {
	select {
	case ms.updating[name] <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (ms *Models) unlockUpdates(name string) { <-ms.updating[name] }

// commitUpdate serves updated in place of base, first writing it to base's file when
// updates are saved; a reload in between, or a file changed since it was read, refuses the
// update rather than lose the reloaded model or the file's new content. It holds the reload
// lock throughout, so that a reload finds the file and the served model agreeing.
func (ms *Models) commitUpdate(base *servedModel, updated family.Model) (*servedModel,
	*httpError) {
	ms.reload.Lock()
	defer ms.reload.Unlock()
	old := *ms.current.Load()
	if old[base.Name] != base {
		return nil, &httpError{http.StatusConflict, fmt.Sprintf("model %q was reloaded from its "+
			"file during the update, which was not applied: send it again", base.Name)}
	}
	next := *base
	next.model, next.unsaved = updated, base.unsaved+1
	if ms.updateMode() == UpdatesSaved {
		sum, herr := saveUpdated(base, updated)
		if herr != nil {
			return nil, herr
		}
		next.sha256, next.unsaved = sum, 0
	}
	if ms.describe != nil {
		next.info = ms.describe(next.Path, updated)
	}
	models := make(map[string]*servedModel, len(old))
	for name, m := range old {
		models[name] = m
	}
	models[base.Name] = &next
	ms.current.Store(&models)
	return &next, nil
}

// saveUpdated writes the model updated from base to base's file, unless the file no longer
// holds base (changed since read: a reload would serve it), and returns the file's SHA-256.
func saveUpdated(base *servedModel, updated family.Model) (string, *httpError) {
	if _, sum, err := readServedFile(base.Path); err != nil || sum != base.sha256 {
		why := "it changed since it was read"
		if err != nil {
			why = err.Error()
		}
		return "", &httpError{http.StatusConflict, fmt.Sprintf("model %q: %s: %s; the update was "+
			"not applied (reload the file, SIGHUP, and send it again)", base.Name, base.Path, why)}
	}
	var buf bytes.Buffer
	if err := updated.Save(&buf); err != nil {
		return "", &httpError{http.StatusInternalServerError, fmt.Sprintf(
			"model %q: the updated model cannot be written (%v); the update was not applied",
			base.Name, err)}
	}
	if err := atomicfile.WriteFile(base.Path, buf.Bytes()); err != nil {
		return "", &httpError{http.StatusInternalServerError, fmt.Sprintf(
			"model %q: %v; the update was not applied", base.Name, err)}
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}
