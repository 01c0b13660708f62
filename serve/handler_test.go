package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/noise"
	"github.com/ivmlab/ivm/serve"
)

// syncBuffer is a log sink the server's goroutines and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer is the handler of the sources on an httptest server, with its log.
type testServer struct {
	*httptest.Server
	handler *serve.Handler
	models  *serve.Models
	logs    *syncBuffer
}

// startServer serves sources within lim; readTimeout, when not 0, is the server's.
func startServer(t *testing.T, lim serve.Limits, readTimeout time.Duration,
	sources ...serve.Source) *testServer {
	t.Helper()
	models, err := serve.LoadModels(sources, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	h := serve.NewHandler(models, lim, slog.New(slog.NewJSONHandler(logs, nil)))
	ts := &testServer{Server: httptest.NewUnstartedServer(h), handler: h, models: models,
		logs: logs}
	ts.Config.ReadTimeout = readTimeout
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// copyGolden copies the golden model file name.json to dir/as.json and returns the copy's
// path and the model as read.
func copyGolden(t *testing.T, name, dir, as string) (string, family.Model) {
	t.Helper()
	path := filepath.Join(dir, as+".json")
	copyFile(t, filepath.Join(goldenDir, name+".json"), path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := family.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return path, m
}

// copyFile replaces to by a copy of from, renamed over it as a model file is replaced.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	tmp := to + ".tmp"
	writeFile(t, tmp, readFile(t, from))
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}

func denseBody(rows [][]float64) string {
	b, _ := json.Marshal(map[string]any{"rows": rows})
	return string(b)
}

// samePrediction says whether an answer holds exactly the in-process prediction.
func samePrediction(got serve.Prediction, want noise.Prediction) bool {
	eq := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	return got.Label == want.Label && eq(got.Prob, want.Prob) && eq(got.LatentMean, want.Latent) &&
		eq(got.LatentVariance, want.LatentVar)
}

// Concurrent clients get exactly the in-process predictions, and a reload during the load
// (a new model, then a corrupt file that must be refused) loses no request.
func TestServeConcurrentMatchesPredictAcrossReload(t *testing.T) {
	dir := t.TempDir()
	model, oldM := copyGolden(t, "multiclass_ovr", dir, "digits")
	newModel, newM := copyGolden(t, "multiclass_ovo", dir, "digits-new")
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 100, Workers: 2, MaxInflight: 64},
		0, serve.Source{Name: "digits", Path: model})
	const clients, requests = 16, 25
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients},
		Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fromNew, answered, half := 0, 0, make(chan struct{})
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for r := 0; r < requests; r++ {
				rows := make([][]float64, 1+rng.IntN(4))
				for i := range rows {
					rows[i] = []float64{4 * rng.Float64(), 4*rng.Float64() - 2}
				}
				msg, usedNew := checkAnswer(client, ts.URL+"/v1/models/digits/predict", rows,
					oldM, newM)
				mu.Lock()
				if msg != "" {
					failures = append(failures, msg)
				}
				if usedNew {
					fromNew++
				}
				if answered++; answered == clients*requests/2 {
					close(half)
				}
				mu.Unlock()
			}
		}()
	}
	<-half // reload halfway through the requests
	copyFile(t, newModel, model)
	if replaced, refused := ts.handler.Reload(); replaced != 1 || refused != 0 {
		t.Errorf("reload: %d replaced, %d refused", replaced, refused)
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed, first: %s",
			len(failures), clients*requests, failures[0])
	}
	if !strings.Contains(ts.logs.String(), `"msg":"model reloaded"`) || fromNew == 0 {
		t.Errorf("no answer from the reloaded model (%d); log:\n%s", fromNew, ts.logs.String())
	}
	// A corrupt file is refused and the model in service stays.
	writeFile(t, model, `{"format": "ivm-model/1", "task": `)
	if replaced, refused := ts.handler.Reload(); replaced != 0 || refused != 1 {
		t.Errorf("reload of a corrupt file: %d replaced, %d refused", replaced, refused)
	}
	if msg, usedNew := checkAnswer(client, ts.URL+"/v1/models/digits/predict",
		[][]float64{{1, 2}}, oldM, newM); msg != "" || !usedNew {
		t.Errorf("after a corrupt reload: %q (answered by the new model: %v)", msg, usedNew)
	}
	if !strings.Contains(ts.logs.String(), "reload refused: keeping the model loaded before") {
		t.Errorf("the refused reload is not logged:\n%s", ts.logs.String())
	}
	if m := metrics(t, ts.URL); !strings.Contains(m, `ivm_reloads_total{result="replaced"} 1`) ||
		!strings.Contains(m, `ivm_reloads_total{result="refused"} 1`) {
		t.Errorf("metrics after the reloads:\n%s", m)
	}
}

// checkAnswer posts rows and says what is wrong with the answer ("" if nothing), and whether
// newM gave it (else oldM).
func checkAnswer(c *http.Client, url string, rows [][]float64,
	oldM, newM family.Model) (string, bool) {
	resp, err := c.Post(url, "application/json", strings.NewReader(denseBody(rows)))
	if err != nil {
		return err.Error(), false
	}
	defer resp.Body.Close()
	var got serve.PredictResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != 200 ||
		len(got.Predictions) != len(rows) {
		return fmt.Sprintf("status %d, %d predictions for %d rows, %v",
			resp.StatusCode, len(got.Predictions), len(rows), err), false
	}
	x := mat.NewDense(len(rows), 2, nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	for _, m := range []family.Model{oldM, newM} {
		preds, _ := m.Predict(x, nil)
		same := true
		for i := range preds {
			same = same && samePrediction(got.Predictions[i], preds[i])
		}
		if same {
			return "", m == newM
		}
	}
	return fmt.Sprintf("answer %+v is neither model's prediction", got.Predictions[0]), false
}

// Hostile requests get a 4xx that says what is wrong, and the server keeps serving.
func TestServeRefusesHostileRequests(t *testing.T) {
	model, _ := copyGolden(t, "multiclass_ovr", t.TempDir(), "digits")
	ts := startServer(t, serve.Limits{MaxBody: 64 << 10, MaxRows: 10, Workers: 1, MaxInflight: 16},
		500*time.Millisecond, serve.Source{Name: "digits", Path: model})
	client := &http.Client{Timeout: 10 * time.Second}
	url := ts.URL + "/v1/models/digits/predict"
	many := denseBody(make([][]float64, 11))
	for _, c := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"truncated", `{"rows": [[1, 2`, 400, "ends early"},
		{"wrong dimension", `{"rows": [[1, 2, 3]]}`, 400, "3 values, the model has 2 inputs"},
		{"sparse index", `{"rows": [{"3": 1}]}`, 400, `input index \"3\"`},
		{"NaN", `{"rows": [[1, NaN]]}`, 400, "must be finite"},
		{"overflow", `{"rows": [[1, 1e400]]}`, 400, "must be finite"},
		{"string", `{"rows": [[1, "2"]]}`, 400, "JSON string"},
		{"too many rows", many, 413, "at most 10"},
		{"not JSON", `rows=1`, 400, "not valid JSON"},
		{"rows a number", `{"rows": 5}`, 400,
			`\"rows\" holds a JSON number: it must be an array of rows, each an array of numbers`},
		{"rows flat", `{"rows": [1, 2, 3]}`, 400, "a row is an array"},
		{"tasks a string", `{"rows": [[1, 2]], "tasks": "a"}`, 400,
			`\"tasks\" holds a JSON string`},
		{"tasks for a single-task model", `{"rows": [[1, 2]], "tasks": ["a"]}`, 400,
			`model \"digits\" has no tasks`},
		{"unknown field", `{"rows": [[1, 2]], "task": ["a"]}`, 400, `unknown field \"task\"`},
		{"unknown model", "", 404, `no model \"nope\"`},
	} {
		u := url
		if c.name == "unknown model" {
			u = ts.URL + "/v1/models/nope/predict"
		}
		code, body := post(t, client, u, c.body)
		if code != c.code || !strings.Contains(string(body), c.want) || !json.Valid(body) {
			t.Errorf("%s: %d %s; want %d with %q", c.name, code, body, c.code, c.want)
		}
	}
	// 100 MB, declared and chunked: refused without being read.
	for _, declared := range []bool{true, false} {
		req, _ := http.NewRequest("POST", url, io.LimitReader(zeros{}, 100<<20))
		if declared {
			req.ContentLength = 100 << 20
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("100 MB body (length declared %v): %v", declared, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 413 {
			t.Errorf("100 MB body (length declared %v): status %d", declared, resp.StatusCode)
		}
	}
	// A client that sends half a body and stalls gets 408 after the read timeout.
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/models/digits/predict HTTP/1.1\r\nHost: x\r\n"+
		"Content-Length: 100\r\n\r\n{\"rows\": [")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 408 {
		t.Errorf("slow client: %v %v", resp, err)
	}
	conn.Close()
	if code, body := post(t, client, url, `{"rows": [[1, 2]]}`); code != 200 {
		t.Errorf("after the hostile requests: %d %s", code, body)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// Past MaxInflight a request is refused at once with 503 and Retry-After, and admitted
// again when the requests in progress end.
func TestServeAdmissionLimit(t *testing.T) {
	model, _ := copyGolden(t, "multiclass_ovr", t.TempDir(), "digits")
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 10, Workers: 1, MaxInflight: 1}, 0,
		serve.Source{Name: "digits", Path: model})
	url := ts.URL + "/v1/models/digits/predict"
	body := `{"rows": [[1, 2]]}`
	// the first request holds the only place, reading its body
	conn := startHalfRequest(t, ts.URL, body)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second request while the first is in progress: %d, Retry-After %q",
			resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if first, err := finishHalfRequest(conn, body); err != nil || first.StatusCode != 200 {
		t.Fatalf("the first request: %v %v", first, err)
	}
	if code, b := post(t, client, url, body); code != 200 {
		t.Errorf("after the first request ended: %d %s", code, b)
	}
}

// startHalfRequest sends the headers and the first 5 bytes of a predict request with body
// to the server at url, and waits until the server is reading it (the only request in
// flight).
func startHalfRequest(t *testing.T, url, body string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/models/digits/predict HTTP/1.1\r\nHost: x\r\n"+
		"Content-Length: %d\r\n\r\n%s", len(body), body[:5])
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(metrics(t, url),
		"ivm_requests_in_flight 1\n"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not start on the request")
		}
	}
	return conn
}

func metrics(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// finishHalfRequest sends the rest of the body and reads the answer.
func finishHalfRequest(conn net.Conn, body string) (*http.Response, error) {
	fmt.Fprint(conn, body[5:])
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	return http.ReadResponse(bufio.NewReader(conn), nil)
}
