package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/family"
)

// updater is a served model that new labelled rows can update: the single-task IVM's
// (ivm.Predictor.Update), through the model family.Load returns. source names where the
// rows came from in the update's provenance record, as ivm update names its file.
type updater interface {
	Update(x *mat.Dense, y []float64, activeSize, maxSwaps int,
		source dataset.Update) (family.Model, error)
}

// activeSizer is a served model that reports its IVM models' active set sizes.
type activeSizer interface {
	ActiveSizes() (names []string, sizes []int)
}

// UpdateRequest is the body of POST /v1/models/{name}/update.
type UpdateRequest struct {
	// Rows are the new rows, each as in a PredictRequest; Labels their labels, one per row:
	// a class of the model's for a classifier, the target for a regression, null for an
	// unlabelled row of a semi-supervised model.
	Rows   []json.RawMessage `json:"rows"`
	Labels []*float64        `json:"labels"`
	// D and Swaps are ivm update's -d and -swaps: each model's active set size after the
	// update (0 or absent: ivm update's default) and the most swaps of an active point for a
	// new row (0 or absent: the default; negative: none).
	D     *int `json:"d"`
	Swaps *int `json:"swaps"`
}

// UpdateResponse is the answer to an update: the rows added, each IVM model's active set
// size before and after, and whether the updated model was written to its file.
type UpdateResponse struct {
	Model   string       `json:"model"`
	Rows    int          `json:"rows"`
	Seconds float64      `json:"seconds"`
	Active  []ActiveSize `json:"active"`
	// Saved says whether the model file now holds the update (ivm serve -updates save);
	// File is then the file written. Note says what becomes of an update not saved.
	Saved bool   `json:"saved"`
	File  string `json:"file,omitempty"`
	Note  string `json:"note,omitempty"`
}

// ActiveSize is one IVM model's active set size before and after an update; Name is ""
// for a predictor's single model, else as ivm info names it ("class 3", "classes 1 and 3").
type ActiveSize struct {
	Name   string `json:"name,omitempty"`
	Before int    `json:"before"`
	After  int    `json:"after"`
}

// heldInMemory is the note of an update that was not written to the model file.
const heldInMemory = "held in memory only: a restart, or a reload after the model file " +
	"changes, serves the file's model without this update (ivm serve -updates save writes " +
	"updates to the file)"

// updateInput is a checked update request: the rows, their labels, the options and the
// arguments ivm update would have been given for them, for the model's provenance.
type updateInput struct {
	x        *mat.Dense
	y        []float64
	d, swaps int
	args     []string
}

func (h *Handler) handleUpdate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, &httpError{http.StatusMethodNotAllowed,
			"update takes POST with a JSON body {\"rows\": [...], \"labels\": [...]}"})
		return
	}
	if h.models.updateMode() == UpdatesOff {
		fail(w, &httpError{http.StatusForbidden, "updates are off: start ivm serve with " +
			"-updates memory (held until a restart) or -updates save (written to the model " +
			"file); in Go, Models.AcceptUpdates"})
		return
	}
	m := h.namedModel(w, r)
	if m == nil {
		return
	}
	if herr := checkUpdatable(m); herr != nil {
		fail(w, herr)
		return
	}
	body, herr := readBody(w, r, h.limits.MaxBody)
	if herr != nil {
		fail(w, herr)
		return
	}
	in, herr := parseUpdateRequest(body, m, h.limits.MaxRows)
	if herr != nil {
		fail(w, herr)
		return
	}
	// One update of a model at a time, each starting from the model the one before left.
	if !h.models.lockUpdates(r.Context(), m.Name) {
		fail(w, &httpError{http.StatusServiceUnavailable,
			"the request ended while waiting for an earlier update of the model"})
		return
	}
	defer h.models.unlockUpdates(m.Name)
	h.updateLocked(w, r, in, body)
}

// checkUpdatable answers 501 for a model that new rows cannot update.
func checkUpdatable(m *servedModel) *httpError {
	if _, ok := m.model.(updater); ok {
		return nil
	}
	return &httpError{http.StatusNotImplemented, fmt.Sprintf("model %q (%s) cannot be updated: "+
		"update is for the single-task IVM's models", m.Name, m.model.Format())}
}

// updateLocked updates the model the request names, as it is now, with in on a worker, and
// commits the updated model (writing it to its file when updates are saved); the caller
// holds the model's update lock.
func (h *Handler) updateLocked(w http.ResponseWriter, r *http.Request, in *updateInput,
	body []byte) {
	base := h.models.get(r.PathValue("name"))
	if herr := checkUpdatable(base); herr != nil { // reloaded from another family's file
		fail(w, herr)
		return
	}
	rows, _ := in.x.Dims()
	if !h.acquire(w, r, base, rows) {
		return
	}
	start := time.Now()
	updated, err := base.model.(updater).Update(in.x, in.y, in.d, in.swaps,
		updateSource(base.Name, in.args, body))
	seconds := time.Since(start).Seconds()
	<-h.compute
	if err != nil { // the model's refusal: a projected model, say
		fail(w, badRequest("%v", err))
		return
	}
	next, herr := h.models.commitUpdate(base, updated)
	if herr != nil {
		fail(w, herr)
		return
	}
	out := UpdateResponse{Model: base.Name, Rows: rows, Seconds: seconds,
		Active: activeSizes(base.model, next.model), Saved: next.unsaved == 0}
	h.stats.updatedRows.Add(int64(rows))
	if out.Saved {
		h.stats.saved.Add(1)
		out.File = next.Path
	} else {
		h.stats.inMemory.Add(1)
		out.Note = heldInMemory
	}
	writeJSON(w, http.StatusOK, out)
}

// updateSource is where a served update's rows came from, for the model's provenance as
// ivm update records a file: the request's path, the body's SHA-256 and the arguments ivm
// update would have been given for the request's options.
func updateSource(name string, args []string, body []byte) dataset.Update {
	sum := sha256.Sum256(body)
	return dataset.Update{File: "POST /v1/models/" + name + "/update",
		SHA256: hex.EncodeToString(sum[:]), Args: args}
}

// activeSizes pairs the IVM models' active set sizes before and after an update.
func activeSizes(before, after family.Model) []ActiveSize {
	b, okB := before.(activeSizer)
	a, okA := after.(activeSizer)
	if !okB || !okA {
		return []ActiveSize{}
	}
	names, was := b.ActiveSizes()
	newNames, now := a.ActiveSizes()
	if !slices.Equal(names, newNames) {
		return []ActiveSize{}
	}
	out := make([]ActiveSize, len(names))
	for i := range names {
		out[i] = ActiveSize{Name: names[i], Before: was[i], After: now[i]}
	}
	return out
}

// parseUpdateRequest decodes and checks an update body against model m.
func parseUpdateRequest(body []byte, m *servedModel, maxRows int) (*updateInput, *httpError) {
	var req UpdateRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, badRequest("%s", describeUpdateJSONError(err, body))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest("data after the JSON object")
	}
	if herr := checkRowCount(len(req.Rows), maxRows); herr != nil {
		return nil, herr
	}
	in := &updateInput{args: []string{"update"}}
	if req.D != nil {
		if *req.D < 0 {
			return nil, badRequest(`"d": %d: an active set size is at least 0 (0: the default)`,
				*req.D)
		}
		in.d, in.args = *req.D, append(in.args, "-d", strconv.Itoa(*req.D))
	}
	if req.Swaps != nil {
		in.swaps, in.args = *req.Swaps, append(in.args, "-swaps", strconv.Itoa(*req.Swaps))
	}
	x, herr := parseRows(req.Rows, m.dim)
	if herr != nil {
		return nil, herr
	}
	y, herr := parseLabels(req.Labels, len(req.Rows), m)
	if herr != nil {
		return nil, herr
	}
	in.x, in.y = x, y
	return in, nil
}

// parseLabels checks "labels" against model m: one per row, each a class of a classifier's
// (null, unlabelled, only for a semi-supervised model's rows).
func parseLabels(labels []*float64, rows int, m *servedModel) ([]float64, *httpError) {
	if len(labels) != rows {
		return nil, badRequest(`%d labels for %d rows: "labels" holds each row's label, in order`,
			len(labels), rows)
	}
	semi := m.model.Kind() == "semisupervised"
	y := make([]float64, rows)
	for i, v := range labels {
		switch {
		case v == nil && semi:
			y[i] = math.NaN()
			continue
		case v == nil:
			return nil, badRequest("label %d is null: model %q is updated with labelled rows",
				i+1, m.Name)
		case m.classes != nil && !slices.Contains(m.classes, *v):
			return nil, badRequest("label %d: %v is not one of model %q's classes %v; a new "+
				"class needs a model trained on it", i+1, *v, m.Name, m.classes)
		}
		y[i] = *v
	}
	return y, nil
}

// describeUpdateJSONError says what is wrong with an update body in a client's terms: its
// own fields, else as for a predict body.
func describeUpdateJSONError(err error, body []byte) string {
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ) && strings.HasPrefix(typ.Field, "labels") &&
		strings.HasPrefix(typ.Value, "number"):
		return fmt.Sprintf("%s is out of range: labels must be finite", typ.Value)
	case errors.As(err, &typ) && strings.HasPrefix(typ.Field, "labels"):
		return fmt.Sprintf(`"labels" holds a JSON %s: it must be an array of numbers, one `+
			`label per row`, typ.Value)
	case errors.As(err, &typ) && (typ.Field == "d" || typ.Field == "swaps"):
		return fmt.Sprintf(`%q holds a JSON %s: it must be an integer`, typ.Field, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ") +
			`: the body is {"rows": [...], "labels": [...]} (and "d", "swaps" if wanted)`
	}
	return describeJSONError(err, body)
}
