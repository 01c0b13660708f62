package serve_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/ivmlab/ivm" // the families served: each registers its format
	_ "github.com/ivmlab/ivm/archipelago"
	"github.com/ivmlab/ivm/dataset"
	"github.com/ivmlab/ivm/family"
	_ "github.com/ivmlab/ivm/multitask"
	"github.com/ivmlab/ivm/serve"
	_ "github.com/ivmlab/ivm/ssmtr"
)

// goldenDir holds a model file of every kind ivm train writes, each beside a test input
// (NAME.test.csv) and the exact output of `ivm predict -prob` on it (NAME.prob.txt).
const goldenDir = "../cmd/ivm/testdata/golden"

// goldenModels returns the golden model files as sources named by their kind (gunzipped
// into dir when stored gzipped), the part files left out.
func goldenModels(t *testing.T, dir string) []serve.Source {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(goldenDir, "*.json*"))
	var out []serve.Source
	for _, path := range names {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json")
		if strings.Contains(name, ".part") {
			continue
		}
		if strings.HasSuffix(path, ".gz") {
			path = gunzipTo(t, path, filepath.Join(dir, name+".json"))
		}
		out = append(out, serve.Source{Name: name, Path: path})
	}
	if len(out) == 0 {
		t.Fatalf("no golden model files in %s", goldenDir)
	}
	return out
}

func gunzipTo(t *testing.T, from, to string) string {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
	return to
}

// Every golden model file is served, of every registered family, and each answer holds
// exactly the numbers `ivm predict -prob` wrote for the file's test rows: the columns its
// header names, number for number.
func TestServeAnswersAsPredictProbEveryFamily(t *testing.T) {
	sources := goldenModels(t, t.TempDir())
	models, err := serve.LoadModels(sources, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(serve.NewHandler(models, serve.Limits{}, nil))
	defer ts.Close()
	var list struct{ Models []serve.ModelInfo }
	getJSON(t, ts.URL+"/v1/models", &list)
	formats := map[string]bool{}
	for i, src := range sources {
		info := list.Models[i]
		formats[info.Format] = true
		t.Run(src.Name, func(t *testing.T) {
			rows, tasks := readTestRows(t, filepath.Join(goldenDir, src.Name+".test.csv"),
				info.InputDim)
			body, _ := json.Marshal(map[string]any{"rows": rows, "tasks": tasks})
			var got serve.PredictResponse
			url := ts.URL + "/v1/models/" + src.Name + "/predict"
			if code := postJSON(t, url, string(body), &got); code != 200 {
				t.Fatalf("status %d", code)
			}
			probs := readFile(t, filepath.Join(goldenDir, src.Name+".prob.txt"))
			lines := strings.Split(strings.TrimSpace(probs), "\n")
			if len(lines)-1 != len(got.Predictions) {
				t.Fatalf("%d answers for %d lines", len(got.Predictions), len(lines)-1)
			}
			for i, line := range lines[1:] {
				if served := asProbLine(t, lines[0], got.Classes,
					got.Predictions[i]); served != line {
					t.Fatalf("row %d: served %q, ivm predict -prob wrote %q", i+1, served, line)
				}
			}
		})
	}
	for _, f := range family.Formats() {
		if !formats[f] && f != "ivm-part/1" {
			t.Errorf("no golden model file of format %s was served", f)
		}
	}
}

// asProbLine writes a served prediction as the line of `ivm predict -prob` whose header
// is header: "mean variance", or the label followed by the columns p(CLASS), latent_mean,
// latent_variance (alone or of a model, "latent_mean(NAME)") and latent(CLASS).
func asProbLine(t *testing.T, header string, classes []float64, p serve.Prediction) string {
	t.Helper()
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if header == "mean variance" {
		if p.Mean == nil || p.Variance == nil || p.Prob != nil {
			t.Fatalf("a regression served as %+v", p)
		}
		return g(*p.Mean) + " " + g(*p.Variance)
	}
	fields := strings.Fields(header)
	if fields[0] != "label" {
		t.Fatalf("header %q", header)
	}
	out := []string{g(p.Label)}
	mean, variance := 0, 0
	for _, f := range fields[1:] {
		var v float64
		switch {
		case strings.HasPrefix(f, "p("):
			c := slices.IndexFunc(classes, func(c float64) bool { return "p("+g(c)+")" == f })
			if c < 0 || c >= len(p.Prob) {
				t.Fatalf("column %s: classes %v, prob %v", f, classes, p.Prob)
			}
			v = p.Prob[c]
		case strings.HasPrefix(f, "latent_mean") || strings.HasPrefix(f, "latent("):
			if mean >= len(p.LatentMean) {
				t.Fatalf("column %s: latent means %v", f, p.LatentMean)
			}
			v, mean = p.LatentMean[mean], mean+1
		case strings.HasPrefix(f, "latent_variance"):
			if variance >= len(p.LatentVariance) {
				t.Fatalf("column %s: latent variances %v", f, p.LatentVariance)
			}
			v, variance = p.LatentVariance[variance], variance+1
		default:
			t.Fatalf("column %s of header %q", f, header)
		}
		out = append(out, g(v))
	}
	if mean != len(p.LatentMean) || variance != len(p.LatentVariance) {
		t.Fatalf("served %d latent means and %d variances, the file has %d and %d",
			len(p.LatentMean), len(p.LatentVariance), mean, variance)
	}
	return strings.Join(out, " ")
}

// readTestRows reads a golden test file's inputs as rows, and its tasks when its first
// column is "task" (as `ivm predict -task-col first` does).
func readTestRows(t *testing.T, path string, dim int) ([][]float64, []string) {
	t.Helper()
	opt := dataset.ReadOptions{Dim: dim}
	if strings.HasPrefix(readFile(t, path), "task,") {
		opt.TaskCol = dataset.TaskFirst
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

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// postJSON posts body to url and decodes the answer into v; it returns the status.
func postJSON(t *testing.T, url, body string, v any) int {
	t.Helper()
	code, b := post(t, http.DefaultClient, url, body)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("POST %s: %d %s: %v", url, code, b, err)
	}
	return code
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s: %v", url, resp.StatusCode, b, err)
	}
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
