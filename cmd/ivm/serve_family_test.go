package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ivmlab/ivm/serve"
)

// ivm serve serves the model files of every family, SSMTR and Archipelago included, and
// describes each as ivm info does.
func TestServeEveryFamily(t *testing.T) {
	files := map[string]string{}
	var args []string
	for _, name := range []string{"binary_probit", "mtivm", "smtr", "archipelago"} {
		files[name] = filepath.Join(goldenDir, name+".json")
		args = append(args, files[name])
	}
	ts := startServer(t, serve.Limits{MaxBody: 1 << 20, MaxRows: 10, Workers: 1, MaxInflight: 4},
		testTimeouts, args...)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(ts.url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Models []serve.ModelInfo }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Models) != len(files) {
		t.Fatalf("GET /v1/models: %+v", list.Models)
	}
	for _, m := range list.Models {
		info := strings.Split(strings.TrimRight(mustRun(t, "info", files[m.Name]), "\n"), "\n")
		if !slices.Equal(m.Info, info) {
			t.Errorf("%s: info %q, ivm info prints %q", m.Name, m.Info, info)
		}
	}
	for name, body := range map[string]string{
		"smtr":        `{"rows": [[0.5, -1]], "tasks": ["10"]}`,
		"archipelago": `{"rows": [[0.5, -1]]}`,
	} {
		if code, b := post(t, client, ts.url+"/v1/models/"+name+"/predict", body); code != 200 {
			t.Errorf("%s: %d %s", name, code, b)
		}
	}
}
