package serve_test

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/serve"
	"github.com/ivmlab/ivm/ssmtr"
)

// An SSMTR model's rows name their task and are answered with the predictive mean and
// variance; an Archipelago model's name none and are answered with the class
// probabilities; GET /v1/models says so.
func TestServeSSMTRAndArchipelago(t *testing.T) {
	ts := startServer(t, serve.Limits{Workers: 4}, 0,
		serve.Source{Name: "smtr", Path: filepath.Join(goldenDir, "smtr.json")},
		serve.Source{Name: "arch", Path: filepath.Join(goldenDir, "archipelago.json")})
	var smtr serve.ModelInfo
	getJSON(t, ts.URL+"/v1/models/smtr", &smtr)
	if smtr.Format != ssmtr.ModelFormat || smtr.Task != "multitask" || len(smtr.Tasks) == 0 ||
		smtr.Classes != nil || smtr.InputDim != 2 || len(smtr.Info) != 0 {
		t.Errorf("GET /v1/models/smtr: %+v", smtr)
	}
	var arch serve.ModelInfo
	getJSON(t, ts.URL+"/v1/models/arch", &arch)
	if arch.Format != "ivm-archipelago/1" || arch.Task != "multiclass" || arch.Tasks != nil ||
		!slices.Equal(arch.Classes, []float64{1, 2, 3}) {
		t.Errorf("GET /v1/models/arch: %+v", arch)
	}
	task := smtr.Tasks[0]
	for _, c := range []struct {
		model, body string
		code        int
		want        string
	}{
		{"smtr", `{"rows": [[0.5, -1]], "tasks": ["` + task + `"]}`, 200, `"mean":`},
		{"smtr", `{"rows": [[0.5, -1]]}`, 400, `model \"smtr\" is multi-task and needs \"tasks\"`},
		{"smtr", `{"rows": [[0.5, -1]], "tasks": ["nope"]}`, 400,
			`task \"nope\" is not in model \"smtr\"`},
		{"arch", `{"rows": [[0.5, -1]]}`, 200, `"prob":`},
		{"arch", `{"rows": [[0.5, -1]], "tasks": ["a"]}`, 400, `model \"arch\" has no tasks`},
	} {
		code, body := post(t, http.DefaultClient, ts.URL+"/v1/models/"+c.model+"/predict", c.body)
		if code != c.code || !strings.Contains(string(body), c.want) {
			t.Errorf("%s %s: %d %s; want %d with %q", c.model, c.body, code, body, c.code, c.want)
		}
	}
	var got serve.PredictResponse
	postJSON(t, ts.URL+"/v1/models/arch/predict", `{"rows": [[0.5, -1]]}`, &got)
	if p := got.Predictions[0]; p.Mean != nil || p.LatentMean != nil || len(p.Prob) != 3 {
		t.Errorf("an Archipelago answer: %+v", p)
	}
	concurrentAnswersAgree(t, ts.URL+"/v1/models/arch/predict", `{"rows": [[0.5, -1]]}`)
	concurrentAnswersAgree(t, ts.URL+"/v1/models/smtr/predict",
		`{"rows": [[0.5, -1]], "tasks": ["`+task+`"]}`)
}

// concurrentAnswersAgree posts body from 8 clients at once, 5 times each, and wants the
// same answer every time.
func concurrentAnswersAgree(t *testing.T, url, body string) {
	t.Helper()
	_, want := post(t, http.DefaultClient, url, body)
	var wg sync.WaitGroup
	answers := make(chan string, 40)
	for range 8 {
		wg.Go(func() {
			for range 5 {
				resp, err := http.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					answers <- err.Error()
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				answers <- string(b)
			}
		})
	}
	wg.Wait()
	close(answers)
	for a := range answers {
		if a != string(want) {
			t.Fatalf("%s: answered %s, and %s before", url, a, want)
		}
	}
}

// An SSMTR model fitted without tasks (its one task named "") takes rows without tasks.
func TestServeSSMTRWithoutTasks(t *testing.T) {
	n := 20
	x, y := mat.NewDense(n, 1, nil), make([]float64, n)
	for i := range y {
		x.Set(i, 0, float64(i)/4)
		y[i] = math.Sin(float64(i) / 4)
	}
	m, err := ssmtr.Fit(x, y, make([]string, n), ssmtr.Config{Method: ssmtr.SSTR, OuterIters: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sine.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ts := startServer(t, serve.Limits{}, 0, serve.Source{Name: "sine", Path: path})
	var info serve.ModelInfo
	getJSON(t, ts.URL+"/v1/models/sine", &info)
	if info.Task != "regression" || info.Tasks != nil {
		t.Errorf("GET /v1/models/sine: %+v", info)
	}
	var got serve.PredictResponse
	if code := postJSON(t, ts.URL+"/v1/models/sine/predict", `{"rows": [[1.5]]}`,
		&got); code != 200 {
		t.Fatalf("status %d: %+v", code, got)
	}
	want, _ := m.Predict(mat.NewDense(1, 1, []float64{1.5}), []string{""})
	if p := got.Predictions[0]; *p.Mean != want[0].Mean || *p.Variance != want[0].Var {
		t.Errorf("served %+v, predicted %+v", p, want[0])
	}
}

// LoadModels refuses what it cannot serve, saying why: a part file, a data file, a FIFO,
// a missing file, a name that is not a URL segment or is given twice.
func TestLoadModelsRefuses(t *testing.T) {
	dir := t.TempDir()
	data, fifo := filepath.Join(dir, "data.csv"), filepath.Join(dir, "fifo.json")
	writeFile(t, data, "1,2,3\n")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ok, part := filepath.Join(goldenDir, "binary_probit.json"),
		filepath.Join(goldenDir, "part_ovr.part0.json")
	for _, c := range []struct {
		sources []serve.Source
		want    string
	}{
		{[]serve.Source{{Name: "p", Path: part}}, "merge the parts first"},
		{[]serve.Source{{Name: "d", Path: data}}, "it starts with a number (a data file?)"},
		{[]serve.Source{{Name: "f", Path: fifo}}, "not a regular file (a FIFO)"},
		{[]serve.Source{{Name: "m", Path: filepath.Join(dir, "m.json")}}, "no such file"},
		{[]serve.Source{{Name: "../x", Path: ok}}, `"../x" cannot be a model's name`},
		{[]serve.Source{{Name: "a", Path: ok}, {Name: "a", Path: ok}},
			`the name "a" is given twice`},
	} {
		_, err := serve.LoadModels(c.sources, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadModels(%v): %v, want an error containing %q", c.sources, err, c.want)
		}
	}
}

// A Describe gives each model's "info"; every family's model is described.
func TestLoadModelsDescribe(t *testing.T) {
	describe := func(path string, m family.Model) []string {
		return []string{path, m.Format()}
	}
	models, err := serve.LoadModels(goldenModels(t, t.TempDir()), describe)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(serve.NewHandler(models, serve.Limits{}, nil))
	defer ts.Close()
	var list struct{ Models []serve.ModelInfo }
	getJSON(t, ts.URL+"/v1/models", &list)
	for i, m := range list.Models {
		if !slices.Equal(m.Info, []string{m.File, m.Format}) || m.Name != models.Names()[i] {
			b, _ := json.Marshal(m)
			t.Errorf("model %d: %s", i, b)
		}
	}
}
