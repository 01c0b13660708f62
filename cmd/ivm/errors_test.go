package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input never panics and never leaves a model behind: each case below gives exactly
// one line on stderr naming the file, the line and the cause, and exit status 1 (2 for
// usage errors, where the flag package prints the problem and the usage).
func TestMalformedInputs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"nonnum.csv":         "1,2,1\n3,x,-1\n",
		"ragged.csv":         "1,2,1\n3,-1\n",
		"nan.csv":            "1,NaN,1\n2,3,-1\n",
		"inf.csv":            "1,2,1\n2,-Inf,-1\n",
		"empty.csv":          "",
		"comments.csv":       "# only a comment\n\n",
		"order.libsvm":       "1 1:2 3:4\n-1 2:1 1:3\n",
		"zeroidx.libsvm":     "1 1:2 0:4\n",
		"badval.libsvm":      "1 1:abc\n",
		"oneclass.libsvm":    "1 1:2\n1 1:3\n1 1:4\n",
		"badlabel.libsvm":    "x 1:2\n",
		"nanval.libsvm":      "1 1:2\n-1 1:nan\n",
		"real.csv":           "1,2,5\n2,3,5.5\n3,1,7\n",
		"ncnm3.libsvm":       "1 1:1\n2 1:2\n-1 1:0.5\n",
		"badgz.csv.gz":       "\x1f\x8b\x08garbage",
		"spaces.txt":         "1 2 3\n4 5 6\n",
		"ok.csv":             "1,2,1\n3,4,-1\n2,2,1\n4,3,-1\n",
		"wide.csv":           "1,2,3,1\n",
		"narrow.csv":         "1,1\n",
		"unlabelled.csv":     "1,2,1\n2,2,?\n3,4,-1\n",
		"hugeval.csv":        "1,1e999,1\n",
		"labelinf.libsvm":    "inf 1:1\n",
		"trunc.json":         `{"format":"ivm-model/1","task":"bin`,
		"empty.json":         "",
		"future.json":        `{"format":"ivm-model/2"}`,
		"svm.json":           `{"format":"svm"}`,
		"types.json":         `{"format":"ivm-model/1","input_dim":"two"}`,
		"nokernel.json":      `{"format":"ivm-model/1","task":"binary"}`,
		"array.json":         `[1,2,3]`,
		"badtask.json":       `{"format":"ivm-model/1","task":"sorting"}`,
		"quoteopen.csv":      "\"1,2,1\n",
		"libsvmcomma.libsvm": "1 1:2\n-1 1:3,4\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	model := p("m.json")
	// A model to predict with.
	mustRun(t, "train", "-quiet", "-iters", "0", p("ok.csv"), p("ok.json"))

	cases := []struct {
		args []string
		code int
		want string // the whole first line of stderr; {d} is the temporary folder
	}{
		{[]string{"train", p("nonnum.csv"), model}, 1,
			`ivm train: {d}/nonnum.csv: line 2, column 2: feature "x" is not a number`},
		{[]string{"train", p("ragged.csv"), model}, 1,
			`ivm train: {d}/ragged.csv: line 2: row has 2 fields, expected 3 as on line 1`},
		{[]string{"train", p("nan.csv"), model}, 1,
			`ivm train: {d}/nan.csv: line 1, column 2: feature "NaN" is not finite ` +
				`(NaN or ±Inf, or out of range)`},
		{[]string{"train", p("inf.csv"), model}, 1,
			`ivm train: {d}/inf.csv: line 2, column 2: feature "-Inf" is not finite ` +
				`(NaN or ±Inf, or out of range)`},
		{[]string{"train", p("hugeval.csv"), model}, 1,
			`ivm train: {d}/hugeval.csv: line 1, column 2: feature "1e999" is not finite ` +
				`(NaN or ±Inf, or out of range)`},
		{[]string{"train", p("empty.csv"), model}, 1, `ivm train: {d}/empty.csv: no data rows`},
		{[]string{"train", p("comments.csv"), model}, 1,
			`ivm train: {d}/comments.csv: no data rows`},
		{[]string{"train", p("order.libsvm"), model}, 1,
			`ivm train: {d}/order.libsvm: line 2, token 3: ` +
				`feature index 1 in "1:3" is not greater than the previous index 2`},
		{[]string{"train", p("zeroidx.libsvm"), model}, 1,
			`ivm train: {d}/zeroidx.libsvm: line 1, token 3: feature index 0 in "0:4": ` +
				`indices are 1-based`},
		{[]string{"train", p("badval.libsvm"), model}, 1,
			`ivm train: {d}/badval.libsvm: line 1, token 2: value in "1:abc" is not a number`},
		{[]string{"train", p("nanval.libsvm"), model}, 1,
			`ivm train: {d}/nanval.libsvm: line 2, token 2: value in "1:nan" is not finite ` +
				`(NaN or ±Inf, or out of range)`},
		{[]string{"train", p("badlabel.libsvm"), model}, 1,
			`ivm train: {d}/badlabel.libsvm: line 1, token 1: label "x" is not a number`},
		{[]string{"train", p("labelinf.libsvm"), model}, 1,
			`ivm train: {d}/labelinf.libsvm: line 1, token 1: label "inf" is not finite ` +
				`(use ? for an unlabelled row)`},
		{[]string{"train", p("oneclass.libsvm"), model}, 1,
			`ivm train: {d}/oneclass.libsvm: every target is 1: a single class cannot be learnt`},
		{[]string{"train", "-noise", "gaussian", p("oneclass.libsvm"), model}, 1,
			`ivm train: {d}/oneclass.libsvm: every target is the same: nothing to regress`},
		{[]string{"train", "-noise", "ordinal", p("real.csv"), model}, 1,
			`ivm train: {d}/real.csv: ordinal targets must be integers (ordered categories)`},
		{[]string{"train", "-noise", "probit", p("real.csv"), model}, 1,
			`ivm train: {d}/real.csv: probit needs two distinct labels ` +
				`(or 3 to 50 integer class labels); found 3 distinct targets`},
		{[]string{"train", "-noise", "ncnm", p("ncnm3.libsvm"), model}, 1,
			`ivm train: {d}/ncnm3.libsvm: semisupervised needs two distinct labels, found 3`},
		{[]string{"train", "-noise", "probit", p("unlabelled.csv"), model}, 1,
			`ivm train: {d}/unlabelled.csv: 1 unlabelled targets; ` +
				`only the semi-supervised task uses unlabelled rows`},
		{[]string{"train", p("badgz.csv.gz"), model}, 1,
			`ivm train: {d}/badgz.csv.gz: gzip: unexpected EOF`},
		{[]string{"train", p("spaces.txt"), model}, 1,
			`ivm train: {d}/spaces.txt: line 1: cannot tell the format from "1 2 3": ` +
				`expected CSV (comma-separated) or libsvm (label index:value ...); ` +
				`set the format explicitly`},
		{[]string{"train", p("missing.csv"), model}, 1,
			`ivm train: open {d}/missing.csv: no such file or directory`},
		{[]string{"train", "-label-col", "9", p("ok.csv"), model}, 1,
			`ivm train: {d}/ok.csv: line 1: label column 9 out of range: row has 3 fields`},
		{[]string{"train", "-kernel", "rbf(gama=1)", p("ok.csv"), model}, 1,
			`ivm train: spec "rbf(gama=1)" at offset 4: rbf has no parameter "gama" ` +
				`(want gamma, variance)`},
		{[]string{"train", "-kernel", "foo", p("ok.csv"), model}, 1,
			`ivm train: spec "foo" at offset 0: unknown kernel "foo" ` +
				`(want one of bias, lin, linard, mlp, mlpard, rbf, rbfard, white)`},
		{[]string{"train", "-kernel", "rbf(gamma=-1)", p("ok.csv"), model}, 1,
			`ivm train: spec "rbf(gamma=-1)" at offset 4: rbf: gamma: value -1 must be > 0`},
		{[]string{"train", "-kernel", "rbf(gamma=1", p("ok.csv"), model}, 1,
			`ivm train: spec "rbf(gamma=1" at offset 11: want ',', got the end of the spec`},
		{[]string{"train", "-kernel", "rbfard(scales=[1,2,3])", p("ok.csv"), model}, 1,
			`ivm train: spec "rbfard(scales=[1,2,3])" at offset 7: rbfard: ` +
				`scales lists 3 values for 2 scales`},
		{[]string{"train", "-d", "-3", p("ok.csv"), model}, 1,
			`ivm train: -d -3: the active set needs at least one point`},
		{[]string{"train", "-iters", "-2", p("ok.csv"), model}, 1,
			`ivm train: -iters must be -1 (the task's default) or more, ` +
				`-kiters and -niters not negative`},
		{[]string{"train", "-scale", "log", p("ok.csv"), model}, 1,
			`ivm train: unknown scaling "log" (want none, minmax or std)`},
		{[]string{"train", "-format", "xml", p("ok.csv"), model}, 1,
			`ivm train: unknown format "xml" (want auto, csv or libsvm)`},
		{[]string{"train", "-criterion", "best", p("ok.csv"), model}, 1,
			`ivm train: unknown selection criterion "best" (want entropy or expected)`},
		{[]string{"train", "-objective", "magic", p("ok.csv"), model}, 1,
			`ivm train: unknown objective "magic" (want full, ep or fixed)`},
		{[]string{"train", "-noise", "nonsense", p("ok.csv"), model}, 1,
			`ivm train: -noise "nonsense": want auto, probit, gaussian, ordinal or ncnm`},
		{[]string{"train", "-bias", "mean", p("ok.csv"), model}, 1,
			`ivm train: -bias "mean": want fraction or zero`},
		{[]string{"train", "-gamma", "two", p("ok.csv"), model}, 1,
			`ivm train: -gamma "two": want shared or split`},
		{[]string{"train", "-gamma", "split", "-noise", "probit", p("ok.csv"), model}, 1,
			`ivm train: {d}/ok.csv: split γ₋, γ₊ are for the null category model, ` +
				`not a binary task`},
		{[]string{"train", "-bias", "zero", "-noise", "gaussian", p("real.csv"), model}, 1,
			`ivm train: {d}/real.csv: a zero bias start is for the probit and null category ` +
				`models, not a regression task`},
		{[]string{"train", "-tasks", "-bias", "zero", p("ok.csv"), model}, 1,
			`ivm train: -bias is not available with -tasks ` +
				`(the starting bias of a single probit or ncnm model)`},
		{[]string{"train", p("ok.csv"), p("nodir/m.json")}, 1,
			`ivm train: cannot write {d}/nodir/m.json: no such directory {d}/nodir`},
		{[]string{"train", "-nonsense", p("ok.csv"), model}, 2,
			`flag provided but not defined: -nonsense`},
		{[]string{"train", "-d", "x", p("ok.csv"), model}, 2,
			`invalid value "x" for flag -d: parse error`},
		{[]string{"train", p("ok.csv")}, 2, `Usage: ivm train [flags] TRAIN MODEL`},
		{[]string{"predict", p("wide.csv"), p("ok.json")}, 1,
			`ivm predict: {d}/wide.csv: line 1: 3 input columns besides the label, expected 2`},
		{[]string{"predict", p("narrow.csv"), p("ok.json")}, 1,
			`ivm predict: {d}/narrow.csv: line 1: 1 input columns besides the label, expected 2`},
		{[]string{"predict", p("ok.csv"), p("trunc.json")}, 1,
			`ivm predict: {d}/trunc.json: not a readable model file: it ends early (truncated?)`},
		{[]string{"predict", p("ok.csv"), p("empty.json")}, 1,
			`ivm predict: {d}/empty.json: not a readable model file: it is empty`},
		{[]string{"predict", p("ok.csv"), p("future.json")}, 1,
			`ivm predict: {d}/future.json: model format "ivm-model/2" is not supported by this ` +
				`version (it reads "ivm-model/1")`},
		{[]string{"predict", p("ok.csv"), p("svm.json")}, 1,
			`ivm predict: {d}/svm.json: unknown model format "svm" (this version knows ` +
				`ivm-archipelago/1, ivm-model/1, ivm-mtmodel/1, ivm-part/1, ivm-ssmtr/1)`},
		{[]string{"predict", p("ok.csv"), p("types.json")}, 1,
			`ivm predict: {d}/types.json: not a readable model file: field input_dim: ` +
				`want a whole number, got string`},
		{[]string{"predict", p("ok.csv"), p("nokernel.json")}, 1,
			`ivm predict: {d}/nokernel.json: model file lacks its kernel or noise model`},
		{[]string{"predict", p("ok.csv"), p("array.json")}, 1,
			`ivm predict: {d}/array.json: not a readable model file: a JSON array, not an object`},
		{[]string{"predict", p("ok.csv"), p("badtask.json")}, 1,
			`ivm predict: {d}/badtask.json: not a readable model file: unknown task "sorting" ` +
				`(want one of [auto binary multiclass regression ordinal semisupervised])`},
		{[]string{"predict", p("ok.csv"), p("ok.csv")}, 1,
			`ivm predict: {d}/ok.csv: not a readable model file: it starts with a number ` +
				`(a data file?), not an object`},
		{[]string{"predict", p("ok.csv"), p("missing.json")}, 1,
			`ivm predict: open {d}/missing.json: no such file or directory`},
		{[]string{"predict", p("quoteopen.csv"), p("ok.json")}, 1,
			`ivm predict: {d}/quoteopen.csv: line 1, column 1: unterminated quoted field`},
		{[]string{"predict", p("ok.csv"), p("ok.json"), p("nodir/out.txt")}, 1,
			`ivm predict: cannot write {d}/nodir/out.txt: no such directory {d}/nodir`},
		{[]string{"info", p("trunc.json")}, 1,
			`ivm info: {d}/trunc.json: not a readable model file: it ends early (truncated?)`},
		{[]string{"frobnicate"}, 2, `ivm: unknown command "frobnicate"`},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		first, _, _ := strings.Cut(errs, "\n")
		want := strings.ReplaceAll(c.want, "{d}", dir)
		if code != c.code || first != want {
			t.Errorf("ivm %s:\n exit %d, stderr line %q\n want %d, %q",
				strings.Join(c.args, " "), code, first, c.code, want)
		}
		if _, err := os.Stat(model); err == nil {
			t.Fatalf("ivm %v left a model file", c.args)
		}
		if c.code == 1 && strings.Count(errs, "\n") != 1 {
			t.Errorf("ivm %v: %d lines on stderr, want one:\n%s",
				c.args, strings.Count(errs, "\n"), errs)
		}
	}
	// No temporary files are left behind either.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
