package serve_test

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/serve"
)

// POST /v1/models/{name}/query answers the rows, scores and predictions the model's own
// Query gives (a projected model's too); a model that cannot query answers 501, a refusal
// of the model (a projected model's file without a query part), a bad "n" or "score" 400,
// and GET 405, each naming the cause.
func TestServeQuery(t *testing.T) {
	dir := t.TempDir()
	ovr, m := copyGolden(t, "multiclass_ovr", dir, "ovr")
	projected, _ := copyGolden(t, "binary_projected", dir, "projected")
	// A projected model's file written before the query part: the golden's without it.
	var old map[string]any
	if err := json.Unmarshal([]byte(readFile(t, projected)), &old); err != nil {
		t.Fatal(err)
	}
	delete(old["projected"].(map[string]any), "query")
	noQuery := filepath.Join(dir, "old.json")
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, noQuery, string(b))
	mtivm, _ := copyGolden(t, "mtivm", dir, "mtivm")
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 100}, 0,
		serve.Source{Name: "ovr", Path: ovr}, serve.Source{Name: "projected", Path: projected},
		serve.Source{Name: "old", Path: noQuery}, serve.Source{Name: "mtivm", Path: mtivm})
	rng := rand.New(rand.NewPCG(3, 4))
	rows := make([][]float64, 60)
	x := mat.NewDense(len(rows), m.InputDim(), nil)
	for i := range rows {
		rows[i] = []float64{4 * rng.Float64(), 4*rng.Float64() - 2}
		x.SetRow(i, rows[i])
	}
	body, _ := json.Marshal(map[string]any{"rows": rows, "n": 3, "score": "bald"})
	resp, err := http.Post(ts.URL+"/v1/models/ovr/query", "application/json",
		strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var got serve.QueryResponse
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(got.Queries) != 3 {
		t.Fatalf("status %d, %+v, %v", resp.StatusCode, got, err)
	}
	q := m.(interface {
		Query(*mat.Dense, int, string) ([]int, []float64, []noise.Prediction, error)
	})
	wantRows, wantScores, wantPreds, err := q.Query(x, 3, "bald")
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got.Queries {
		if g.Row != wantRows[i] || g.Score != wantScores[i] ||
			!samePrediction(g.Prediction, wantPreds[i]) {
			t.Errorf("query %d: %+v, in process row %d score %v", i, g, wantRows[i], wantScores[i])
		}
	}
	if stats := metrics(t, ts.URL); !strings.Contains(stats, "ivm_rows_queried_total 60\n") {
		t.Errorf("metrics after a query of 60 rows:\n%s", stats)
	}
	resp, err = http.Post(ts.URL+"/v1/models/projected/query", "application/json",
		strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	got = serve.QueryResponse{}
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(got.Queries) != 3 || !(got.Queries[0].Score > 0) {
		t.Errorf("projected: status %d, %+v, %v", resp.StatusCode, got, err)
	}
	one := denseBody(rows[:2])
	checkRefusals(t, ts.URL, "query", []refusal{
		{"POST", "mtivm", one, 501, "cannot choose rows"},
		{"POST", "old", one, 400, "query part"},
		{"POST", "ovr", `{"rows": [[1, 2]], "n": 0}`, 400, `"n": 0`},
		{"POST", "ovr", `{"rows": [[1, 2]], "score": "entropy"}`, 400, `query score "entropy"`},
		{"POST", "ovr", `{"rows": []}`, 400, "no rows"},
		{"GET", "ovr", "", 405, "POST"},
		{"POST", "none", one, 404, "no model"},
	})
}

// refusal is a request an endpoint refuses: its method, model and body, and the status and
// a part of the error it must answer.
type refusal struct {
	method, model, body string
	status              int
	want                string
}

// checkRefusals sends each request to POST /v1/models/{model}/endpoint at url and checks
// its status and error, and that a 405 names POST in Allow.
func checkRefusals(t *testing.T, url, endpoint string, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, url+"/v1/models/"+tc.model+"/"+endpoint,
			strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s %s %.80s: %d %q, want %d %q", tc.method, tc.model, tc.body,
				resp.StatusCode, e.Error, tc.status, tc.want)
		}
		if tc.status == 405 && resp.Header.Get("Allow") != "POST" {
			t.Errorf("405 without Allow: POST (%q)", resp.Header.Get("Allow"))
		}
	}
}
