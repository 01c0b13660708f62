// Command serveload drives a running `ivm serve` on loopback for bench/serve.sh: N
// single-row prediction requests from C concurrent clients, each answer checked against
// the in-process Predict of the same row, with hostile requests mixed in and a model reload
// (the file replaced, then SIGHUP) halfway; then the same predictions in process for
// comparison, and the server's RSS before and after.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/internal/pool"
	"github.com/ivmlab/ivm/noise"
)

type options struct {
	base, name, modelPath, nextPath, servedPath, dataPath string
	requests, clients, pid                                int
}

func main() {
	var o options
	flag.StringVar(&o.base, "url", "http://127.0.0.1:8080", "the server (loopback only)")
	flag.StringVar(&o.name, "name", "usps", "the model's name on the server")
	flag.StringVar(&o.modelPath, "model", "", "the served model file as it is at the start")
	flag.StringVar(&o.nextPath, "next", "",
		"a second model file, copied over -served halfway before SIGHUP")
	flag.StringVar(&o.servedPath, "served", "", "the file the server reads")
	flag.StringVar(&o.dataPath, "data", "", "rows to predict (label first)")
	flag.IntVar(&o.requests, "requests", 20000, "prediction requests")
	flag.IntVar(&o.clients, "clients", 32, "concurrent clients")
	flag.IntVar(&o.pid, "pid", 0, "the server's process id (RSS, SIGHUP)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if u, err := url.Parse(o.base); err != nil || !strings.HasPrefix(u.Host, "127.0.0.1:") {
		return fmt.Errorf("-url %q: loopback (127.0.0.1) only", o.base)
	}
	rows, err := readRows(o.dataPath)
	if err != nil {
		return err
	}
	first, err := loadModel(o.modelPath)
	if err != nil {
		return err
	}
	next, err := loadModel(o.nextPath)
	if err != nil {
		return err
	}
	wantFirst, err := predictEach(first, rows)
	if err != nil {
		return err
	}
	wantNext, err := predictEach(next, rows)
	if err != nil {
		return err
	}
	// The machine is shared: time in process before and after the load, and give the
	// load average, so that the comparison can be judged.
	calls := min(o.requests, 5000)
	cpu0 := cpuSelf()
	before := timePredict(first, rows, calls)
	inProcessCPU := (cpuSelf() - cpu0) / time.Duration(calls)
	fmt.Printf("load average %s", loadavg())
	fmt.Printf(
		"in process before: %d single-row Predict calls from %d goroutines (one per core): %s\n",
		calls, runtime.GOMAXPROCS(0), before)
	fmt.Printf("server RSS before: %s\n", rss(o.pid))
	serverCPU0, clientCPU0 := cpuOf(o.pid), cpuSelf()
	hostile := startHostile(o.base + "/v1/models/" + o.name + "/predict")
	served, res := load(o, rows, wantFirst, wantNext)
	hostile.stop()
	serverCPU, clientCPU := (cpuOf(o.pid)-serverCPU0)/time.Duration(o.requests),
		(cpuSelf()-clientCPU0)/time.Duration(o.requests)
	fmt.Printf("served: %d requests from %d clients: %s\n", o.requests, o.clients, served)
	after := timePredict(first, rows, calls)
	fmt.Printf("in process after:  %s\n", after)
	fmt.Printf("load average %s", loadavg())
	fmt.Printf("served/in-process throughput: %.3f (against the mean of before and after)\n",
		2*served.perSecond/(before.perSecond+after.perSecond))
	// CPU time does not depend on what else the machine runs, as wall time does.
	fmt.Printf(
		"CPU per request: in process %.3f ms; server %.3f ms (%.2f × in process); client %.3f ms "+
			"(hostile requests included)\n",
		ms(inProcessCPU), ms(serverCPU), float64(serverCPU)/float64(inProcessCPU), ms(clientCPU))
	fmt.Printf("errors: %d (answers from the model before the reload: %d, after: %d)\n", res.errors,
		res.fromFirst, res.fromNext)
	for _, m := range res.firstErrors {
		fmt.Println("  ", m)
	}
	hostile.report(os.Stdout)
	fmt.Printf("server RSS after: %s\n", rss(o.pid))
	if res.errors > 0 || hostile.unexpected.Load() > 0 || res.fromNext == 0 {
		return fmt.Errorf("%d errors, %d hostile requests answered wrongly, "+
			"%d answers after the reload", res.errors, hostile.unexpected.Load(), res.fromNext)
	}
	return nil
}

func readRows(path string) ([][]float64, error) {
	data, err := dataset.ReadFile(path, dataset.ReadOptions{LabelCol: dataset.LabelFirst})
	if err != nil {
		return nil, err
	}
	n, _ := data.X.Dims()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = data.X.RawRowView(i)
	}
	return rows, nil
}

func loadModel(path string) (*ivm.Predictor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ivm.Load(bufio.NewReader(f))
}

// figures are a run's latency quantiles and throughput.
type figures struct {
	p50, p99, max time.Duration
	perSecond     float64
}

func (f figures) String() string {
	return fmt.Sprintf("p50 %.3f ms, p99 %.3f ms, max %.1f ms, %.0f requests/s",
		ms(f.p50), ms(f.p99), ms(f.max), f.perSecond)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func summarise(lat []time.Duration, wall time.Duration) figures {
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	return figures{p50: q(0.5), p99: q(0.99), max: lat[len(lat)-1],
		perSecond: float64(len(lat)) / wall.Seconds()}
}

// predictEach predicts every row alone, as a request does.
func predictEach(p *ivm.Predictor, rows [][]float64) ([]noise.Prediction, error) {
	want := make([]noise.Prediction, len(rows))
	for i, r := range rows {
		q, err := p.Predict(mat.NewDense(1, len(r), r))
		if err != nil {
			return nil, err
		}
		want[i] = q[0]
	}
	return want, nil
}

// timePredict times calls single-row Predict calls from one goroutine per core: the
// in-process figure (more goroutines would only queue).
func timePredict(p *ivm.Predictor, rows [][]float64, calls int) figures {
	lat := make([]time.Duration, calls)
	var next atomic.Int64
	start := time.Now()
	parallel(runtime.GOMAXPROCS(0), func() {
		for i := int(next.Add(1)) - 1; i < calls; i = int(next.Add(1)) - 1 {
			t0 := time.Now()
			r := rows[i%len(rows)]
			p.Predict(mat.NewDense(1, len(r), r))
			lat[i] = time.Since(t0)
		}
	})
	return summarise(lat, time.Since(start))
}

// cpuSelf is this process's CPU time (user and system).
func cpuSelf() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOf is process pid's CPU time from /proc (clock ticks of 10 ms).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return err.Error() + "\n"
	}
	return string(b)
}

// parallel runs f on n goroutines at once (n clients) and returns when all are done.
func parallel(n int, f func()) {
	pool.ForEach(n, n, func(int) { f() })
}

type loadResult struct {
	errors, fromFirst, fromNext int64
	firstErrors                 []string
}

// load sends the requests, checks every answer against both models' predictions, and
// replaces the served model halfway.
func load(o options, rows [][]float64, wantFirst, wantNext []noise.Prediction) (figures,
	*loadResult) {
	bodies := make([][]byte, len(rows))
	for i, r := range rows {
		bodies[i], _ = json.Marshal(map[string]any{"rows": [][]float64{r}})
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.clients},
		Timeout: 60 * time.Second}
	target := o.base + "/v1/models/" + o.name + "/predict"
	lat := make([]time.Duration, o.requests)
	res := &loadResult{}
	var mu sync.Mutex
	var next atomic.Int64
	var reload sync.Once
	start := time.Now()
	parallel(o.clients, func() {
		for i := int(next.Add(1)) - 1; i < o.requests; i = int(next.Add(1)) - 1 {
			if i == o.requests/2 {
				reload.Do(func() { go replaceModel(o) })
			}
			t0 := time.Now()
			verdict := check(client, target, bodies[i%len(rows)], wantFirst[i%len(rows)],
				wantNext[i%len(rows)])
			lat[i] = time.Since(t0)
			mu.Lock()
			switch verdict {
			case "first":
				res.fromFirst++
			case "next":
				res.fromNext++
			default:
				res.errors++
				if len(res.firstErrors) < 5 {
					res.firstErrors = append(res.firstErrors,
						fmt.Sprintf("request %d: %s", i, verdict))
				}
			}
			mu.Unlock()
		}
	})
	return summarise(lat, time.Since(start)), res
}

// replaceModel puts the next model in the served file's place and tells the server.
func replaceModel(o options) {
	b, err := os.ReadFile(o.nextPath)
	if err == nil {
		tmp := o.servedPath + ".next"
		if err = os.WriteFile(tmp, b, 0o644); err == nil {
			err = os.Rename(tmp, o.servedPath)
		}
	}
	if err == nil {
		err = syscall.Kill(o.pid, syscall.SIGHUP)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serveload: reload:", err)
	}
}

type answer struct {
	Predictions []struct {
		Label          float64   `json:"label"`
		Prob           []float64 `json:"prob"`
		LatentMean     []float64 `json:"latent_mean"`
		LatentVariance []float64 `json:"latent_variance"`
	} `json:"predictions"`
}

// check posts one request and says which model's prediction came back ("first", "next"),
// or what is wrong.
func check(c *http.Client, target string, body []byte, first, next noise.Prediction) string {
	resp, err := c.Post(target, "application/json", strings.NewReader(string(body)))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != 200 ||
		len(a.Predictions) != 1 {
		return fmt.Sprintf("status %d, %v", resp.StatusCode, err)
	}
	g := a.Predictions[0]
	for name, w := range map[string]noise.Prediction{"first": first, "next": next} {
		if g.Label == w.Label && bitsEqual(g.Prob, w.Prob) && bitsEqual(g.LatentMean, w.Latent) &&
			bitsEqual(g.LatentVariance, w.LatentVar) {
			return name
		}
	}
	return fmt.Sprintf("answer %v differs from both models' in-process predictions", g)
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y)
	})
}

// rss reads the server's resident and peak resident memory from /proc.
func rss(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") || strings.HasPrefix(line, "VmHWM:") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(out, ", ")
}

// hostile sends bad requests in a loop while the load runs, each expecting its 4xx.
type hostile struct {
	done       chan struct{}
	finished   sync.WaitGroup
	mu         sync.Mutex
	sent       map[string]int
	unexpected atomic.Int64
	notes      []string
}

type hostileCase struct {
	name string
	want int
	send func(target string) (int, error)
}

var hostileCases = []hostileCase{
	{"truncated JSON", 400, postString(`{"rows": [[0.1, 0.2`)},
	{"wrong dimension", 400, postString(`{"rows": [[0.1, 0.2, 0.3]]}`)},
	{"NaN", 400, postString(`{"rows": [[NaN]]}`)},
	{"100 MB body", 413, postHuge},
	{"slow client", 408, slowClient},
}

func startHostile(target string) *hostile {
	h := &hostile{done: make(chan struct{}), sent: map[string]int{}}
	h.finished.Add(1)
	go func() {
		defer h.finished.Done()
		for k := 0; ; k++ {
			select {
			case <-h.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			c := hostileCases[k%len(hostileCases)]
			code, err := c.send(target)
			h.mu.Lock()
			h.sent[c.name]++
			if err != nil || code != c.want {
				h.unexpected.Add(1)
				h.notes = append(h.notes, fmt.Sprintf("%s: status %d, %v", c.name, code, err))
			}
			h.mu.Unlock()
		}
	}()
	return h
}

func (h *hostile) stop() {
	close(h.done)
	h.finished.Wait()
}

func (h *hostile) report(w io.Writer) {
	for _, c := range hostileCases {
		fmt.Fprintf(w, "hostile %-16s %3d sent, each answered %d unless listed below\n", c.name+":",
			h.sent[c.name], c.want)
	}
	for _, n := range h.notes {
		fmt.Fprintln(w, "  ", n)
	}
}

var hostileClient = &http.Client{Timeout: 30 * time.Second}

func postString(body string) func(string) (int, error) {
	return func(target string) (int, error) {
		resp, err := hostileClient.Post(target, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
}

// postHuge streams 100 MB without a declared length.
func postHuge(target string) (int, error) {
	resp, err := hostileClient.Post(target, "application/json", io.LimitReader(digits{}, 100<<20))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

type digits struct{}

func (digits) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '1'
	}
	return len(p), nil
}

// slowClient sends half a body and waits for the server's read timeout.
func slowClient(target string) (int, error) {
	u, _ := url.Parse(target)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\n{\"rows\": [[",
		u.Path, u.Host)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
