// Package serve answers predictions of model files over HTTP with JSON: the API of `ivm
// serve`, as a handler a program mounts on its own server, as net/http/pprof exports its
// handlers. It serves a model of every family registered with package family (a program
// imports the family packages it serves), each answer holding the numbers `ivm predict
// -prob` writes; the program keeps the listener, its timeouts and the signals, and calls
// Handler.Reload to reread changed model files.
//
// The API: POST /v1/models/{name}/predict with {"rows": [...]} (and "tasks": [...], one
// task name per row, for a model whose rows name their task), POST /v1/models/{name}/query
// with {"rows": [...], "n": K} (the K rows whose labels would tell the model most, for the
// models that can choose them: the single-task IVM's), POST /v1/models/{name}/update with
// {"rows": [...], "labels": [...]} (the single-task IVM's models take new labelled rows, as
// ivm update; refused unless Models.AcceptUpdates holds them in memory or writes them to the
// model file), GET /v1/models and /v1/models/{name}, GET /healthz and GET /metrics (the
// Prometheus text format).
package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Limits bound what one request and all requests together may take. A zero field takes
// its default.
type Limits struct {
	// MaxBody is the largest request body in bytes (8 MiB), MaxRows the most rows in one
	// request (1000).
	MaxBody int64
	MaxRows int
	// Workers is the number of predictions computed at once (GOMAXPROCS); MaxInflight the
	// requests admitted at once (256), reading their body, waiting for a worker or
	// predicting, which bounds memory at about MaxInflight × MaxBody. More are refused with
	// 503.
	Workers, MaxInflight int
}

// withDefaults returns the limits with each zero field set to its default.
func (l Limits) withDefaults() Limits {
	if l.MaxBody <= 0 {
		l.MaxBody = 8 << 20
	}
	if l.MaxRows <= 0 {
		l.MaxRows = 1000
	}
	if l.Workers <= 0 {
		l.Workers = runtime.GOMAXPROCS(0)
	}
	if l.MaxInflight <= 0 {
		l.MaxInflight = 256
	}
	return l
}

// Handler answers the HTTP API for a set of models; every answer, errors included, is
// JSON, and every request is logged and counted for /metrics.
type Handler struct {
	models   *Models
	limits   Limits
	compute  chan struct{} // a worker slot per prediction being computed
	inflight atomic.Int64
	log      *slog.Logger
	stats    counters
	routes   http.Handler
}

// NewHandler returns the handler that serves models within limits, logging to log (nil:
// no log).
func NewHandler(models *Models, limits Limits, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	limits = limits.withDefaults()
	h := &Handler{models: models, limits: limits, compute: make(chan struct{}, limits.Workers),
		log: log}
	h.routes = h.logged(h.mux())
	return h
}

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.routes.ServeHTTP(w, r) }

// Reload rereads every model file whose content changed and swaps the new models in while
// requests go on; a file that cannot be read keeps the model served before, and the log
// says why. It returns the number of models replaced and of files refused.
func (h *Handler) Reload() (replaced, refused int) {
	replaced, refused = h.models.reloadAll(h.log)
	h.stats.reloads.Add(int64(replaced))
	h.stats.refused.Add(int64(refused))
	h.log.Info("reload done", "replaced", replaced, "refused", refused)
	return replaced, refused
}

// mux routes the API.
func (h *Handler) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models/{name}/predict", h.admitted(h.handlePredict))
	mux.HandleFunc("/v1/models/{name}/query", h.admitted(h.handleQuery))
	mux.HandleFunc("/v1/models/{name}/update", h.admitted(h.handleUpdate))
	mux.HandleFunc("GET /v1/models", h.handleList)
	mux.HandleFunc("GET /v1/models/{name}", h.handleDescribe)
	mux.HandleFunc("GET /healthz", h.handleHealth)
	mux.HandleFunc("GET /metrics", h.handleMetrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, &httpError{http.StatusNotFound,
			fmt.Sprintf(
				"no %s %s: the API is POST /v1/models/{name}/predict, /query and /update, "+
					"GET /v1/models, "+
					"GET /healthz, GET /metrics", r.Method, r.URL.Path)})
	})
	return mux
}

// httpError is an error answer: its status and message.
type httpError struct {
	status int
	msg    string
}

func badRequest(format string, args ...any) *httpError {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// fail answers {"error": message}; the status recorder keeps the message for the log.
func fail(w http.ResponseWriter, e *httpError) {
	if rec, ok := w.(*statusRecorder); ok {
		rec.err = e.msg
	}
	writeJSON(w, e.status, map[string]string{"error": e.msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"the answer cannot be written as JSON (a NaN or infinite value)"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// admitted refuses a request with 503 when MaxInflight requests are being served already.
func (h *Handler) admitted(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer h.inflight.Add(-1)
		if n := h.inflight.Add(1); n > int64(h.limits.MaxInflight) {
			w.Header().Set("Retry-After", "1")
			fail(w, &httpError{http.StatusServiceUnavailable,
				fmt.Sprintf("server busy: %d requests in progress (-max-inflight %d); retry", n-1,
					h.limits.MaxInflight)})
			return
		}
		next(w, r)
	}
}

// PredictRequest is the body of POST /v1/models/{name}/predict.
type PredictRequest struct {
	// Rows holds each input as a dense array of the model's inputs or a sparse object of
	// 1-based indices ({"3": 0.5}, as libsvm; absent inputs are 0).
	Rows []json.RawMessage `json:"rows"`
	// Tasks names each row's task, for a model whose rows name their task.
	Tasks []string `json:"tasks"`
}

// PredictResponse is the answer to a predict request: a prediction per row, in order.
type PredictResponse struct {
	Model       string       `json:"model"`
	Classes     []float64    `json:"classes,omitempty"`
	Predictions []Prediction `json:"predictions"`
}

func (h *Handler) handlePredict(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, &httpError{http.StatusMethodNotAllowed,
			"predict takes POST with a JSON body {\"rows\": [...]}"})
		return
	}
	m := h.namedModel(w, r)
	if m == nil {
		return
	}
	body, herr := readBody(w, r, h.limits.MaxBody)
	if herr != nil {
		fail(w, herr)
		return
	}
	x, tasks, herr := parsePredictRequest(body, m, h.limits.MaxRows)
	if herr != nil {
		fail(w, herr)
		return
	}
	if !h.acquire(w, r, m, x.RawMatrix().Rows) {
		return
	}
	preds, err := m.predict(x, tasks)
	<-h.compute
	if err != nil {
		fail(w, &httpError{http.StatusInternalServerError, err.Error()})
		return
	}
	h.stats.rows.Add(int64(len(preds)))
	writeJSON(w, http.StatusOK,
		PredictResponse{Model: m.Name, Classes: m.classes, Predictions: preds})
}

// readBody reads the whole body, refusing one over max bytes or one that does not arrive
// within the server's read timeout (a slow client).
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, *httpError) {
	tooBig := &httpError{http.StatusRequestEntityTooLarge,
		fmt.Sprintf("request body over the limit of %d bytes (-max-body)", max)}
	if r.ContentLength > max {
		return nil, tooBig
	}
	if rec, ok := w.(*statusRecorder); ok {
		w = rec.ResponseWriter // MaxBytesReader tells the server to close the connection through it
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var limit *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &limit):
		return nil, tooBig
	case errors.As(err, &ne) && ne.Timeout():
		return nil, &httpError{http.StatusRequestTimeout,
			"the request body did not arrive within the read timeout"}
	case err != nil:
		return nil, badRequest("reading the request body: %v", err)
	}
	return b, nil
}

// parsePredictRequest decodes and checks a predict body against model m: the inputs as a
// matrix, and for a model whose rows name their task each row's task.
func parsePredictRequest(body []byte, m *servedModel, maxRows int) (*mat.Dense, []string,
	*httpError) {
	var req PredictRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, nil, badRequest("%s", describeJSONError(err, body))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, badRequest("data after the JSON object")
	}
	if herr := checkRowCount(len(req.Rows), maxRows); herr != nil {
		return nil, nil, herr
	}
	if herr := checkTasks(req.Tasks, len(req.Rows), m); herr != nil {
		return nil, nil, herr
	}
	x, herr := parseRows(req.Rows, m.dim)
	return x, req.Tasks, herr
}

// checkRowCount refuses a request of no rows or more than maxRows.
func checkRowCount(n, maxRows int) *httpError {
	switch {
	case n == 0:
		return badRequest(`no rows: the body is {"rows": [[x1, x2, …], …]}`)
	case n > maxRows:
		return &httpError{http.StatusRequestEntityTooLarge,
			fmt.Sprintf("%d rows: at most %d in one request (-max-rows)", n, maxRows)}
	}
	return nil
}

// parseRows reads the rows of a request into a matrix of dim columns.
func parseRows(rows []json.RawMessage, dim int) (*mat.Dense, *httpError) {
	x := mat.NewDense(len(rows), dim, nil)
	for i, raw := range rows {
		if err := parseRow(raw, x.RawRowView(i)); err != nil {
			return nil, badRequest("row %d: %v", i+1, err)
		}
	}
	return x, nil
}

// checkTasks checks "tasks": one known task per row for a model whose rows name their
// task, none otherwise.
func checkTasks(tasks []string, rows int, m *servedModel) *httpError {
	if m.tasks == nil {
		if tasks != nil {
			return badRequest(`model %q has no tasks: "tasks" is for multi-task models`, m.Name)
		}
		return nil
	}
	if len(tasks) != rows {
		return badRequest(
			`%d tasks for %d rows: model %q is multi-task and needs "tasks" with each row's task`,
			len(tasks), rows, m.Name)
	}
	for i, t := range tasks {
		if !m.tasks[t] {
			return badRequest("row %d: task %q is not in model %q "+
				"(GET /v1/models/%s lists its tasks)", i+1, t, m.Name, m.Name)
		}
	}
	return nil
}

// parseRow reads one row into dst (zeroed): a dense array of len(dst) numbers or a sparse
// object of 1-based indices.
func parseRow(raw json.RawMessage, dst []float64) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '[':
		var vals []*float64
		if err := json.Unmarshal(raw, &vals); err != nil {
			return errors.New(describeJSONError(err, raw))
		}
		if len(vals) != len(dst) {
			return fmt.Errorf("%d values, the model has %d inputs", len(vals), len(dst))
		}
		for j, v := range vals {
			if v == nil {
				return fmt.Errorf("value %d is null: inputs must be numbers", j+1)
			}
			dst[j] = *v
		}
	case len(raw) > 0 && raw[0] == '{':
		var vals map[string]*float64
		if err := json.Unmarshal(raw, &vals); err != nil {
			return errors.New(describeJSONError(err, raw))
		}
		for k, v := range vals {
			j, err := strconv.Atoi(k)
			switch {
			case err != nil || j < 1 || j > len(dst):
				return fmt.Errorf("input index %q: want 1 to %d (1-based, as libsvm)", k, len(dst))
			case v == nil:
				return fmt.Errorf("input %d is null: inputs must be numbers", j)
			}
			dst[j-1] = *v
		}
	default:
		return fmt.Errorf(
			`a row is an array of the model's %d inputs or an object {"index": value} `+
				`with 1-based indices`,
			len(dst))
	}
	return nil
}

// describeJSONError says what is wrong with a JSON body in a client's terms.
func describeJSONError(err error, body []byte) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return `empty body: send {"rows": [...]}`
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early (a truncated body?)"
	case errors.As(err, &syntax):
		msg := fmt.Sprintf("not valid JSON at byte %d: %v", syntax.Offset, err)
		if rest := body[min(max(syntax.Offset-1, 0), int64(len(body))):]; bytes.HasPrefix(rest,
			[]byte("NaN")) || bytes.HasPrefix(rest, []byte("Inf")) {
			msg += " (NaN and Infinity are not JSON numbers: inputs must be finite)"
		}
		return msg
	case errors.As(err, &typ) && typ.Field == "rows":
		return fmt.Sprintf(
			`"rows" holds a JSON %s: it must be an array of rows, each an array of numbers `+
				`({"rows": [[x1, x2, …], …]})`, typ.Value)
	case errors.As(err, &typ) && strings.HasPrefix(typ.Field, "tasks"):
		return fmt.Sprintf(
			`"tasks" holds a JSON %s: it must be an array of task names (strings), one per row`,
			typ.Value)
	case errors.As(err, &typ) && strings.HasPrefix(typ.Value, "number"):
		return fmt.Sprintf("%s is out of range: inputs must be finite", typ.Value)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("field %q holds a JSON %s", typ.Field, typ.Value)
	case errors.As(err, &typ):
		return fmt.Sprintf("a JSON %s where a number belongs", typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ") +
			`: the body is {"rows": [...]} (and "tasks" for a multi-task model)`
	}
	return err.Error()
}

func (h *Handler) handleList(w http.ResponseWriter, r *http.Request) {
	var out []ModelInfo
	for _, m := range h.models.list() {
		out = append(out, m.describe())
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": out})
}

// namedModel returns the served model the request's path names, or answers 404 and returns
// nil.
func (h *Handler) namedModel(w http.ResponseWriter, r *http.Request) *servedModel {
	m := h.models.get(r.PathValue("name"))
	if m == nil {
		fail(w, &httpError{http.StatusNotFound,
			fmt.Sprintf("no model %q (GET /v1/models lists them)", r.PathValue("name"))})
	}
	return m
}

// acquire records the request's model and rows for the access log and waits for a compute
// slot (release it with <-h.compute); it answers 503 and returns false if the request ends
// first.
func (h *Handler) acquire(w http.ResponseWriter, r *http.Request, m *servedModel, rows int) bool {
	if rec, ok := w.(*statusRecorder); ok {
		rec.model, rec.rows = m.Name, rows
	}
	select {
	case h.compute <- struct{}{}:
		return true
	case <-r.Context().Done():
		fail(w, &httpError{http.StatusServiceUnavailable,
			"the request ended while waiting for a worker"})
		return false
	}
}

func (h *Handler) handleDescribe(w http.ResponseWriter, r *http.Request) {
	m := h.namedModel(w, r)
	if m == nil {
		return
	}
	writeJSON(w, http.StatusOK, m.describe())
}

func (h *Handler) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "models": len(h.models.list())})
}

// statusRecorder keeps a response's status, error message, and the model and rows of a
// prediction, for the log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	err    string
	model  string
	rows   int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// logged logs every request (4xx at warn, 5xx at error, with the message) and counts it.
func (h *Handler) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		elapsed := time.Since(start)
		h.stats.record(rec.status, elapsed)
		level := slog.LevelInfo
		switch {
		case rec.status >= 500:
			level = slog.LevelError
		case rec.status >= 400:
			level = slog.LevelWarn
		}
		attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Float64("ms", float64(elapsed.Microseconds())/1000),
			slog.String("remote", r.RemoteAddr)}
		if rec.model != "" {
			attrs = append(attrs, slog.String("model", rec.model), slog.Int("rows", rec.rows))
		}
		if rec.err != "" {
			attrs = append(attrs, slog.String("error", rec.err))
		}
		h.log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// counters are what /metrics exposes.
type counters struct {
	mu       sync.Mutex
	byStatus map[int]int64
	seconds  float64
	rows     atomic.Int64
	reloads  atomic.Int64
	refused  atomic.Int64
	// queried counts the pool rows queries scored; saved and inMemory the updates written
	// to their model files or held in memory, and updatedRows the rows they took in.
	queried, updatedRows atomic.Int64
	saved, inMemory      atomic.Int64
}

func (st *counters) record(status int, d time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.byStatus == nil {
		st.byStatus = map[int]int64{}
	}
	st.byStatus[status]++
	st.seconds += d.Seconds()
}

// handleMetrics writes the counters in the Prometheus text format.
func (h *Handler) handleMetrics(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	h.stats.mu.Lock()
	codes := make([]int, 0, len(h.stats.byStatus))
	var count int64
	for c, n := range h.stats.byStatus {
		codes = append(codes, c)
		count += n
	}
	slices.Sort(codes)
	b.WriteString("# TYPE ivm_requests_total counter\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "ivm_requests_total{code=\"%d\"} %d\n", c, h.stats.byStatus[c])
	}
	fmt.Fprintf(&b,
		"# TYPE ivm_request_seconds summary\nivm_request_seconds_sum %g\n"+
			"ivm_request_seconds_count %d\n",
		h.stats.seconds, count)
	h.stats.mu.Unlock()
	fmt.Fprintf(&b, "# TYPE ivm_rows_predicted_total counter\nivm_rows_predicted_total %d\n",
		h.stats.rows.Load())
	fmt.Fprintf(&b, "# TYPE ivm_requests_in_flight gauge\nivm_requests_in_flight %d\n",
		h.inflight.Load())
	fmt.Fprintf(&b,
		"# TYPE ivm_reloads_total counter\nivm_reloads_total{result=\"replaced\"} "+
			"%d\nivm_reloads_total{result=\"refused\"} %d\n",
		h.stats.reloads.Load(), h.stats.refused.Load())
	fmt.Fprintf(&b, "# TYPE ivm_rows_queried_total counter\nivm_rows_queried_total %d\n",
		h.stats.queried.Load())
	fmt.Fprintf(&b,
		"# TYPE ivm_updates_total counter\nivm_updates_total{result=\"saved\"} %d\n"+
			"ivm_updates_total{result=\"in_memory\"} %d\n", h.stats.saved.Load(),
		h.stats.inMemory.Load())
	fmt.Fprintf(&b, "# TYPE ivm_rows_updated_total counter\nivm_rows_updated_total %d\n",
		h.stats.updatedRows.Load())
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	io.WriteString(w, b.String())
}
