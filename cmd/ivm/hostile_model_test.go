//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compatModels are model files written by the build before the loaders became strict and
// "scale" was written as "none": each must load and predict as that build predicted
// (testdata/compat/NAME.out), byte for byte. NAME=DATA:FLAGS.
var compatModels = map[string][]string{
	"bin-none": {"a.csv"}, "bin": {"a.csv"}, "reg": {"reg.csv"}, "ovr": {"mc.csv"},
	"mtivm": {"-task-col", "first", "mt.csv"}, "sstr": {"-task-col", "first", "mt.csv"},
	"arch": {"pin.csv"},
}

func TestModelsOfTheFormerBuildPredictAlike(t *testing.T) {
	dir, _ := filepath.Abs("testdata/compat")
	for name, data := range compatModels {
		args := append(append(a("predict", "-quiet", "-prob"), data...), name+".json", "-")
		r := runBinary(t, dir, "", nil, args...)
		want, _ := os.ReadFile(filepath.Join(dir, name+".out"))
		if r.code != 0 || r.stdout != string(want) {
			t.Errorf("ivm %s: exit %d %s; the predictions differ from the former build's",
				strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// A model of unscaled inputs now says "scale": "none"; the file loads and predicts as the
// former build's, which had no "scale".
func TestScaleNoneIsWritten(t *testing.T) {
	src, _ := filepath.Abs("testdata/compat")
	dir := t.TempDir()
	for _, f := range a("a.csv", "bin-none.out") {
		b, _ := os.ReadFile(filepath.Join(src, f))
		writeTestFile(t, filepath.Join(dir, f), string(b))
	}
	r := runBinary(t, dir, "", nil, "train", "-quiet", "-iters", "0", "-scale", "none",
		"a.csv", "m.json")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	var m map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "m.json"))
	if err := json.Unmarshal(b, &m); err != nil || m["scale"] != "none" {
		t.Errorf(`"scale" is %v, want "none" (%v)`, m["scale"], err)
	}
}

// tamper writes into dir, for every model file of compat, the edits a careless or hostile
// user makes, and returns the cases: each must be a clear error naming the file and what
// is wrong, or (a byte order mark) load.
func tamper(t *testing.T, dir string) []hostileCase {
	t.Helper()
	src, _ := filepath.Abs("testdata/compat")
	var cases []hostileCase
	add := func(name, text string, code int, msg string) {
		writeTestFile(t, filepath.Join(dir, name), text)
		cases = append(cases, hostileCase{args: a("info", name), code: code, msg: msg})
	}
	for name := range compatModels {
		b, err := os.ReadFile(filepath.Join(src, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		add(name+"-twice.json", text+text, 1, name+"-twice.json: ")
		add(name+"-trail.json", text+"}", 1, "data after the JSON object")
		add(name+"-bom.json", "\ufeff"+text, 0, "")
		var m map[string]any
		json.Unmarshal(b, &m)
		edit := func(suffix, msg string, f func(m map[string]any) bool) {
			var c map[string]any
			json.Unmarshal(b, &c)
			if f(c) {
				out, _ := json.Marshal(c)
				add(name+suffix, string(out), 1, msg)
			}
		}
		edit("-null.json", "got null", func(m map[string]any) bool { return nullFirstNumber(m) })
		for _, field := range a("task", "classes", "seed", "method", "kernel", "tasks", "scale") {
			msg := "field " + field + ": missing"
			if field == "kernel" {
				msg = "kernel" // the single-task loader: "lacks its kernel or noise model"
			}
			edit("-no"+field+".json", msg, func(m map[string]any) bool {
				_, ok := m[field]
				delete(m, field)
				return ok && !(name == "reg" && field == "classes")
			})
		}
		edit("-seedneg.json", "field seed: want a whole number ≥ 0, got -5",
			func(m map[string]any) bool {
				_, ok := m["seed"]
				m["seed"] = -5
				return ok
			})
		edit("-dimstr.json", "field input_dim: want a whole number, got string",
			func(m map[string]any) bool {
				_, ok := m["input_dim"]
				m["input_dim"] = "3"
				return ok
			})
	}
	return cases
}

// nullFirstNumber replaces the first number of the first array of numbers in v by null.
func nullFirstNumber(v any) bool {
	switch v := v.(type) {
	case []any:
		if len(v) > 0 {
			if _, ok := v[0].(float64); ok {
				v[0] = nil
				return true
			}
		}
		for _, e := range v {
			if nullFirstNumber(e) {
				return true
			}
		}
	case map[string]any:
		for _, k := range a("classes", "site_mean", "scale", "kernel", "tasks", "samples",
			"active") {
			if e, ok := v[k]; ok && nullFirstNumber(e) {
				return true
			}
		}
	}
	return false
}

// Tampered model files of every family: two files joined, a byte after the object, a null
// for a number, a required field cut, a wrong type; and a byte order mark, which loads.
func TestTamperedModelFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range tamper(t, dir) {
		r := runBinary(t, dir, "", nil, c.args...)
		checkHostile(t, c, r)
		if c.code == 1 && !strings.HasPrefix(r.stderr, "ivm info: "+c.args[1]+": ") {
			t.Errorf("ivm info %s: %q does not name the file first", c.args[1], r.stderr)
		}
	}
}
