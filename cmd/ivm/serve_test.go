package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
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

// testServer is the handler on a loopback listener, run by runServer.
type testServer struct {
	url    string
	stop   context.CancelFunc
	done   chan error
	reload chan os.Signal
	logs   *syncBuffer
}

var testTimeouts = serveTimeouts{Read: 2 * time.Second, Write: 10 * time.Second,
	Idle: 10 * time.Second, Shutdown: 10 * time.Second}

func startServer(t *testing.T, lim serve.Limits, to serveTimeouts, models ...string) *testServer {
	t.Helper()
	sources, err := parseModelArgs(models)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := serve.LoadModels(sources, describeServed)
	if err != nil {
		t.Fatal(err)
	}
	return startServerOf(t, reg, lim, to)
}

// startServerOf serves the models reg within lim as runServer does.
func startServerOf(t *testing.T, reg *serve.Models, lim serve.Limits,
	to serveTimeouts) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	ts := &testServer{url: "http://" + ln.Addr().String(), stop: stop, done: make(chan error, 1),
		reload: make(chan os.Signal), logs: &syncBuffer{}}
	log := slog.New(slog.NewJSONHandler(ts.logs, nil))
	h := serve.NewHandler(reg, lim, log)
	go func() { ts.done <- runServer(ctx, ln, h, log, to, ts.reload) }()
	t.Cleanup(func() {
		stop()
		if err := <-ts.done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return ts
}

func post(t *testing.T, c *http.Client, url, body string) (int, []byte) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// trainedModel trains a multi-class model on blobs with a fixed kernel and returns its
// file, the training file and the model as read back.
func trainedModel(t *testing.T, dir, name string, d int) (string, string, *ivm.Predictor) {
	t.Helper()
	train := filepath.Join(dir, "train.csv")
	if _, err := os.Stat(train); err != nil {
		writeBlobsCSV(t, train, 30, 9)
	}
	model := filepath.Join(dir, name+".json")
	mustRun(t, "train", "-quiet", "-iters", "0", "-d", strconv.Itoa(d), train, model)
	mf, err := readModel(model, defaultMaxMem)
	if err != nil {
		t.Fatal(err)
	}
	return model, train, mf.single
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

// checkAnswer posts rows and says what is wrong with the answer ("" if nothing), and whether
// newP gave it (else oldP).
func checkAnswer(c *http.Client, url string, rows [][]float64,
	oldP, newP *ivm.Predictor) (string, bool) {
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
	x := mat.NewDense(len(rows), 3, nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	for _, p := range []*ivm.Predictor{oldP, newP} {
		want, _ := p.Predict(x)
		same := true
		for i := range want {
			same = same && samePrediction(got.Predictions[i], want[i])
		}
		if same {
			return "", p == newP
		}
	}
	return fmt.Sprintf("answer %+v is neither model's prediction", got.Predictions[0]), false
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}

// The server's numbers are those `ivm predict -prob` writes, for a multi-class model (sparse
// and dense rows) and a multi-task regression.
func TestServeAnswersAsPredictProb(t *testing.T) {
	dir := t.TempDir()
	model, train, _ := trainedModel(t, dir, "digits", 30)
	mt := filepath.Join(dir, "sine.json")
	mustRun(t, "train", "-quiet", "-tasks", "-task-col", "first",
		"-kernel", "rbf(gamma=1,variance=1)+white(variance=0.01)", "-noise", "gaussian",
		"-d", "15", "-iters", "0", refData+"mtivm_toysine.csv.gz", mt)
	mtc, mtcTrain := trainedTaskClassifier(t, dir)
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 1000, Workers: 1, MaxInflight: 8},
		testTimeouts, model, "sine="+mt, "speakers="+mtc)
	client := &http.Client{Timeout: 10 * time.Second}

	probs := filepath.Join(dir, "probs.txt")
	mustRun(t, "predict", "-quiet", "-prob", train, model, probs)
	data, _ := readRows(t, train, "none")
	var sparse []map[string]float64
	for _, r := range data {
		s := map[string]float64{}
		for j, v := range r {
			s[strconv.Itoa(j+1)] = v
		}
		sparse = append(sparse, s)
	}
	for _, body := range []any{map[string]any{"rows": data}, map[string]any{"rows": sparse}} {
		b, _ := json.Marshal(body)
		checkAgainstFile(t, client, ts.url+"/v1/models/digits/predict", string(b), probs,
			func(p serve.Prediction) []float64 {
				out := append([]float64{p.Label}, p.Prob...)
				for c := range p.LatentMean {
					out = append(out, p.LatentMean[c], p.LatentVariance[c])
				}
				return out
			})
	}

	mtProbs := filepath.Join(dir, "mt.txt")
	mustRun(t, "predict", "-quiet", "-prob", "-task-col", "first",
		refData+"mtivm_toysine.csv.gz", mt, mtProbs)
	sine, tasks := readRows(t, refData+"mtivm_toysine.csv.gz", "first")
	b, _ := json.Marshal(map[string]any{"rows": sine, "tasks": tasks})
	checkAgainstFile(t, client, ts.url+"/v1/models/sine/predict", string(b), mtProbs,
		func(p serve.Prediction) []float64 {
			return []float64{*p.Mean, *p.Variance}
		})
	mtcProbs := filepath.Join(dir, "mtc.txt")
	mustRun(t, "predict", "-quiet", "-prob", "-task-col", "first", mtcTrain, mtc, mtcProbs)
	speakers, names := readRows(t, mtcTrain, "first")
	b, _ = json.Marshal(map[string]any{"rows": speakers, "tasks": names})
	checkAgainstFile(t, client, ts.url+"/v1/models/speakers/predict", string(b), mtcProbs,
		func(p serve.Prediction) []float64 {
			// the file has p(5) alone
			return []float64{p.Label, p.Prob[1], p.LatentMean[0], p.LatentVariance[0]}
		})
	code, body := post(t, client, ts.url+"/v1/models/sine/predict",
		`{"rows": [[1]], "tasks": ["7"]}`)
	if code != 400 || !strings.Contains(string(body), `task \"7\" is not in model`) {
		t.Errorf("unknown task: %d %s", code, body)
	}
	resp, err := client.Get(ts.url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Models []serve.ModelInfo }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Models) != 3 || !slices.Equal(list.Models[2].Classes, []float64{0, 5}) ||
		list.Models[0].Task != "multiclass" || list.Models[1].Format != "ivm-mtmodel/1" ||
		len(list.Models[1].Tasks) != 3 || len(list.Models[0].Info) < 3 {
		t.Errorf("GET /v1/models: %+v", list.Models)
	}
}

// A projected model (the default above 5 000 rows; forced here) served: its answers are
// `predict -prob`'s lines, the class latents without variances.
func TestServeProjectedModel(t *testing.T) {
	dir := t.TempDir()
	train, model, probs := filepath.Join(dir, "train.csv"), filepath.Join(dir, "proj.json"),
		filepath.Join(dir, "probs.txt")
	writeBlobsCSV(t, train, 20, 4)
	mustRun(t, "train", "-quiet", "-multiclass", "projected", train, model)
	mustRun(t, "predict", "-quiet", "-prob", train, model, probs)
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 1000, Workers: 1, MaxInflight: 8},
		testTimeouts, model)
	data, _ := readRows(t, train, "none")
	b, _ := json.Marshal(map[string]any{"rows": data})
	checkAgainstFile(t, &http.Client{Timeout: 10 * time.Second}, ts.url+"/v1/models/proj/predict",
		string(b), probs, func(p serve.Prediction) []float64 {
			if p.LatentVariance != nil {
				t.Fatalf("latent variances %v served for a projected model", p.LatentVariance)
			}
			return append(append([]float64{p.Label}, p.Prob...), p.LatentMean...)
		})
}

// checkAgainstFile posts body and compares every answer, as fields picks them, with the
// lines of a `predict -prob` file (after its header), number for number.
func checkAgainstFile(t *testing.T, c *http.Client, url, body, path string,
	fields func(serve.Prediction) []float64) {
	t.Helper()
	code, resp := post(t, c, url, body)
	var got serve.PredictResponse
	if err := json.Unmarshal(resp, &got); err != nil || code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, path)), "\n")[1:]
	if len(lines) != len(got.Predictions) {
		t.Fatalf("%d answers for %d lines of %s", len(got.Predictions), len(lines), path)
	}
	for i, line := range lines {
		var parts []string
		for _, v := range fields(got.Predictions[i]) {
			parts = append(parts, strconv.FormatFloat(v, 'g', -1, 64))
		}
		if strings.Join(parts, " ") != line {
			t.Fatalf("row %d: served %q, ivm predict -prob wrote %q",
				i+1, strings.Join(parts, " "), line)
		}
	}
}

// readRows reads a data file's inputs as rows, and with taskCol its tasks.
func readRows(t *testing.T, path, taskCol string) ([][]float64, []string) {
	t.Helper()
	limit := memLimit(defaultMaxMem)
	opt, err := (&dataFlags{format: "auto", labelCol: "last", taskCol: taskCol,
		maxMem: &limit}).options()
	if err != nil {
		t.Fatal(err)
	}
	data, err := dataset.ReadFile(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := data.X.Dims()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = data.X.RawRowView(i)
	}
	return rows, data.Task
}

// On shutdown (SIGTERM) a request in flight finishes and the server then stops.
func TestServeShutdownFinishesRequestInFlight(t *testing.T) {
	dir := t.TempDir()
	model, _, _ := trainedModel(t, dir, "digits", 30)
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 10, Workers: 1, MaxInflight: 8},
		testTimeouts, model)
	body := `{"rows": [[1, 2, 3]]}`
	conn := startHalfRequest(t, ts, body) // the server is reading the body
	ts.stop()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(ts.url, "http://"), time.Second)
		if err != nil {
			break // the listener is closed while the request is still in flight
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("new connections are still accepted 5 s after the shutdown began")
		}
	}
	if resp, err := finishHalfRequest(conn, body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the request in flight: %v %v", resp, err)
	}
	select {
	case err := <-ts.done:
		ts.done <- err // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop after its last request")
	}
}

// The built binary: SIGHUP reloads a changed model file, SIGTERM stops it with status 0.
func TestServeBinarySignals(t *testing.T) {
	bin := builtIVM(t)
	dir := t.TempDir()
	model, _, _ := trainedModel(t, dir, "digits", 30)
	newModel, _, newP := trainedModel(t, dir, "digits-new", 20)
	cmd := exec.Command(bin, "serve", "-addr", "127.0.0.1:0", "-max-inflight", "8", model)
	logs := &syncBuffer{}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr, eof := make(chan string, 1), make(chan bool)
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.Write(append(sc.Bytes(), '\n'))
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "serving" {
				addr <- rec.Addr
			}
		}
	}()
	var url string
	select {
	case a := <-addr:
		url = "http://" + a + "/v1/models/digits/predict"
	case <-time.After(10 * time.Second):
		t.Fatalf("the server did not start:\n%s", logs.String())
	}
	client := &http.Client{Timeout: 10 * time.Second}
	copyFile(t, newModel, model)
	cmd.Process.Signal(syscall.SIGHUP)
	// "reload done" is logged after the new models are swapped in ("model reloaded" before).
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(),
		`"msg":"reload done"`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after SIGHUP:\n%s", logs.String())
		}
	}
	if msg, usedNew := checkAnswer(client, url,
		[][]float64{{1, 2, 3}}, newP, newP); msg != "" || !usedNew {
		t.Errorf("after SIGHUP: %s", msg)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	<-eof // Wait closes the pipe: read the whole log first
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Errorf("no orderly stop in the log:\n%s", logs.String())
	}
}

// startHalfRequest sends the headers and the first 5 bytes of a predict request with body,
// and waits until the server is reading it (the only request in flight).
func startHalfRequest(t *testing.T, ts *testServer, body string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/models/digits/predict HTTP/1.1\r\n"+
		"Host: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:5])
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(metrics(t, ts),
		"ivm_requests_in_flight 1\n"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not start on the request")
		}
	}
	return conn
}

func metrics(t *testing.T, ts *testServer) string {
	t.Helper()
	resp, err := http.Get(ts.url + "/metrics")
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

// trainedTaskClassifier trains a multi-task binary classifier (labels 0 and 5, four tasks)
// and returns the model and training files.
func trainedTaskClassifier(t *testing.T, dir string) (string, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; i < 120; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := 0
		if x1+x2+0.2*float64(i%4) > 0 {
			y = 5
		}
		fmt.Fprintf(&b, "s%d,%g,%g,%d\n", i%4, x1, x2, y)
	}
	train, model := filepath.Join(dir, "speakers.csv"), filepath.Join(dir, "speakers.json")
	writeTestFile(t, train, b.String())
	mustRun(t, "train", "-quiet", "-tasks", "-task-col", "first", "-kernel", "rbf+bias+white",
		"-d", "20", "-iters", "0", train, model)
	return model, train
}
