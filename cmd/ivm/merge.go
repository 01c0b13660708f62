package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ivmlab/ivm"
)

func init() {
	register("merge", command{Synopsis: "ivm merge [flags] PART... MODEL",
		Short: "join the part files of ivm train -part i/K into one model file", Order: 15,
		Run: cmdMerge})
}

// parsePartFlag parses train's -part flag; "" is the whole model.
func parsePartFlag(s string, tasks bool) (ivm.Part, error) {
	if s == "" {
		return ivm.Part{}, nil
	}
	if tasks {
		// The multi-task IVM picks every active point across all tasks at once, under one
		// kernel learnt from all of them: a subset of the tasks would pick other points,
		// so no split of the tasks gives the single run's model.
		return ivm.Part{},
			errors.New(
				"-part is not available with -tasks: the multi-task IVM selects each active " +
					"point across all tasks, so training a subset of the tasks would not give " +
					"the single run's model")
	}
	return ivm.ParsePart(s)
}

// partSummary describes a part in one line (train's output).
func partSummary(p *ivm.Predictor) string {
	if p.Task != ivm.MultiClass {
		return fmt.Sprintf("part %v: the whole %v model, for ivm merge", p.Part, p.Task)
	}
	if pairs := pairsOf(p); len(pairs) > 0 {
		lo, hi := p.Part.Range(len(pairs))
		first, last := pairs[lo].Classes, pairs[hi-1].Classes
		return fmt.Sprintf(
			"part %v: one-vs-one pairs %d–%d of %d (classes %g and %g to %g and %g), "+
				"for ivm merge",
			p.Part, lo+1, hi, len(pairs), first[0], first[1], last[0], last[1])
	}
	models, _ := modelsOf(p)
	lo, hi := p.Part.Range(len(models))
	return fmt.Sprintf("part %v: classes %s of %s, for ivm merge", p.Part, floats(p.Classes[lo:hi]),
		floats(p.Classes))
}

// writePartInfo describes a part file (ivm info).
func writePartInfo(w io.Writer, path string, p *ivm.Predictor) {
	fmt.Fprintf(w, "part file:   %s (%s), %s\n", path, ivm.PartFormat, partSummary(p))
	for _, sm := range p.Submodels() {
		writeSubmodel(w, sm)
	}
	t := p.Training
	fmt.Fprintf(w, "training:    %s, %d rows, sha256 %s, %.3g s\n             ivm %s\n", t.File,
		t.Rows, t.SHA256, t.Seconds, strings.Join(t.Args, " "))
}

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "ivm merge [flags] PART... MODEL", stderr)
	quiet := fs.Bool("quiet", false, "print nothing on success")
	maxMem := registerMaxMem(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return errUsage
	}
	paths, modelPath := fs.Args()[:fs.NArg()-1], fs.Arg(fs.NArg()-1)
	if err := checkOutputs(paths, modelPath); err != nil {
		return err
	}
	out, err := createOutput(modelPath, stdout)
	if err != nil {
		return err
	}
	defer out.discard()
	parts := make([]*ivm.Predictor, len(paths))
	for i, path := range paths {
		if parts[i], err = readPartFile(path, *maxMem); err != nil {
			return err
		}
		if a, b := trainFlags(parts[0].Training.Args),
			trainFlags(parts[i].Training.Args); !slices.Equal(a, b) {
			return fmt.Errorf(
				"%s was trained with flags %q, %s with %q: the parts of one model need the same "+
					"flags (only -part, -workers and -quiet may differ)",
				path, b, paths[0], a)
		}
	}
	p, err := ivm.MergeParts(parts)
	if err != nil {
		return err
	}
	p.Training.Args = singleRunArgs(parts[0].Training.Args, modelPath)
	if err := p.Save(out); err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	if !*quiet && modelPath != stdoutPath {
		fmt.Fprintf(stdout, "%s: %s, merged from %d parts\n", modelPath, summary(p), len(parts))
	}
	return nil
}

func readPartFile(path string, limit memLimit) (*ivm.Predictor, error) {
	mf, err := readModelKind(path, limit, true)
	if err != nil {
		return nil, err
	}
	if mf.part == nil {
		return nil, fmt.Errorf("%s: not a part file (%s); give the part files of ivm train -part",
			path, ivm.PartFormat)
	}
	return mf.part, nil
}

// partFreeFlags are the train flags the parts of one training may set differently, since
// they do not change what is learnt; true for those that take a value.
var partFreeFlags = map[string]bool{"part": true, "workers": true, "quiet": false}

// trainFlags returns the flags of a train command line as recorded in a model's provenance
// (["train", flags…, TRAIN, MODEL]) without partFreeFlags, for comparing the parts.
func trainFlags(args []string) []string {
	if len(args) < 3 {
		return nil
	}
	return dropFlags(args[1:len(args)-2], partFreeFlags)
}

// singleRunArgs is the command line a single run writing modelPath would have had: the
// part's, without -part.
func singleRunArgs(partArgs []string, modelPath string) []string {
	if len(partArgs) < 3 {
		return partArgs
	}
	n := len(partArgs)
	out := append([]string{partArgs[0]},
		dropFlags(partArgs[1:n-2], map[string]bool{"part": true})...)
	return append(out, partArgs[n-2], modelPath)
}

// dropFlags removes the flags named in drop (-name, --name, -name=v; the map says whether
// a flag takes a value, which then follows as the next token unless given with =).
func dropFlags(tokens []string, drop map[string]bool) []string {
	var out []string
	for i := 0; i < len(tokens); i++ {
		tok := tokens[i]
		name, _, inline := strings.Cut(strings.TrimLeft(tok, "-"), "=")
		valued, ok := drop[name]
		if !strings.HasPrefix(tok, "-") || !ok {
			out = append(out, tok)
			continue
		}
		if valued && !inline {
			i++
		}
	}
	return out
}
