package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/noise"
)

// querier is a served model that can choose the rows to label next: the single-task IVM's
// (ivm.Predictor.Query), through the model family.Load returns; score names what a
// classifier's rows are scored by ("" for the default).
type querier interface {
	Query(x *mat.Dense, k int, score string) (rows []int, scores []float64,
		preds []noise.Prediction, err error)
}

// QueryRequest is the body of POST /v1/models/{name}/query.
type QueryRequest struct {
	// Rows is the unlabelled pool, each row as in a PredictRequest.
	Rows []json.RawMessage `json:"rows"`
	// N is how many rows to choose (default 10; all of them for a smaller pool).
	N *int `json:"n"`
	// Score is what the rows are scored by: "auto" (the default), "epig" or "bald", as ivm
	// query's -score.
	Score string `json:"score"`
}

// QueryResponse is the answer to a query request: the chosen rows, best first.
type QueryResponse struct {
	Model   string    `json:"model"`
	Classes []float64 `json:"classes,omitempty"`
	Queries []Queried `json:"queries"`
}

// Queried is one chosen row: its index in the request's rows (0-based), the information
// its label would bring in nats given the rows chosen before it (ivm.Query's Score), and the
// model's current prediction there.
type Queried struct {
	Row        int        `json:"row"`
	Score      float64    `json:"score"`
	Prediction Prediction `json:"prediction"`
}

func (h *Handler) handleQuery(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, &httpError{http.StatusMethodNotAllowed,
			"query takes POST with a JSON body {\"rows\": [...], \"n\": K}"})
		return
	}
	m := h.namedModel(w, r)
	if m == nil {
		return
	}
	q, ok := m.model.(querier)
	if !ok {
		fail(w, &httpError{http.StatusNotImplemented,
			fmt.Sprintf("model %q (%s) cannot choose rows to query: "+
				"query is for the single-task IVM's models", m.Name, m.model.Format())})
		return
	}
	body, herr := readBody(w, r, h.limits.MaxBody)
	if herr != nil {
		fail(w, herr)
		return
	}
	req, x, herr := parseQueryRequest(body, m, h.limits.MaxRows)
	if herr != nil {
		fail(w, herr)
		return
	}
	if !h.acquire(w, r, m, x.RawMatrix().Rows) {
		return
	}
	rows, scores, preds, err := q.Query(x, *req.N, req.Score)
	<-h.compute
	// An error is the model's refusal: an ordinal model, say, or a projected one whose file
	// keeps no query part.
	if err != nil {
		fail(w, badRequest("%v", err))
		return
	}
	h.stats.queried.Add(int64(x.RawMatrix().Rows))
	out := QueryResponse{Model: m.Name, Classes: m.classes, Queries: make([]Queried, len(rows))}
	for i := range rows {
		out.Queries[i] = Queried{Row: rows[i], Score: scores[i], Prediction: m.served(&preds[i])}
	}
	writeJSON(w, http.StatusOK, out)
}

// parseQueryRequest decodes and checks a query body against model m: the request, its N
// set (default 10), and the pool as a matrix.
func parseQueryRequest(body []byte, m *servedModel, maxRows int) (*QueryRequest, *mat.Dense,
	*httpError) {
	var req QueryRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, nil, badRequest("%s", describeJSONError(err, body))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, badRequest("data after the JSON object")
	}
	if req.N == nil {
		req.N = new(int)
		*req.N = 10
	}
	if *req.N < 1 {
		return nil, nil, badRequest(`"n": %d: query at least one row`, *req.N)
	}
	if herr := checkRowCount(len(req.Rows), maxRows); herr != nil {
		return nil, nil, herr
	}
	x, herr := parseRows(req.Rows, m.dim)
	return &req, x, herr
}
