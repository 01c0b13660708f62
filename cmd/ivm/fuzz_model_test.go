package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tampering edits of FuzzTamperedModel: the file as fuzzed, two copies joined, a stray
// byte after it, and a number of an array turned into null. Each but the first must be
// refused when the file itself loads.
const (
	editNone = iota
	editTwice
	editTrailing
	editNull
	edits
)

// tamperModel applies edit to a model file; the position picks which array number an
// editNull replaces. changed is false when the edit found nothing to change.
func tamperModel(b []byte, edit uint8, pos uint16) (out []byte, changed bool) {
	switch edit % edits {
	case editTwice:
		return append(bytes.Clone(b), b...), true
	case editTrailing:
		return append(bytes.Clone(b), '}'), true
	case editNull:
		return nullArrayNumber(b, int(pos))
	}
	return b, false
}

// nullArrayNumber replaces the k-th (mod their count) number that is an array's element,
// outside strings, by null.
func nullArrayNumber(b []byte, k int) ([]byte, bool) {
	var starts, ends []int
	inString, prev := false, byte(0)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case (c == '-' || c >= '0' && c <= '9') && (prev == '[' || prev == ','):
			j := i
			for j < len(b) && strings.IndexByte("+-0123456789.eE", b[j]) >= 0 {
				j++
			}
			starts, ends = append(starts, i), append(ends, j)
			i = j - 1
		}
		if c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			prev = c
		}
	}
	if len(starts) == 0 {
		return b, false
	}
	n := k % len(starts)
	out := append(append(bytes.Clone(b[:starts[n]]), "null"...), b[ends[n]:]...)
	return out, true
}

// FuzzTamperedModel feeds model files of every family, tampered, to the loaders ivm predict,
// info, plot and merge use: nothing may panic, an error is one line naming the file, and
// a file that loads no longer loads once joined to itself, followed by a stray byte, or
// with a number of an array made null. Seeds: the files of testdata/compat, which the
// former build wrote, under every edit.
func FuzzTamperedModel(f *testing.F) {
	names, _ := filepath.Glob("testdata/compat/*.json")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for e := range uint8(edits) {
			f.Add(b, e, uint16(len(name)))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, edit uint8, pos uint16) {
		if len(data) > 1<<20 {
			return
		}
		_, err := decodeModel(data, "m.json", true)
		if err != nil && (strings.Contains(err.Error(), "\n") ||
			!strings.HasPrefix(err.Error(), "m.json: ")) {
			t.Fatalf("the error is not one line naming the file: %q", err)
		}
		b, changed := tamperModel(data, edit, pos)
		if err != nil || !changed {
			return
		}
		if _, err := decodeModel(b, "m.json", true); err == nil {
			t.Fatalf("edit %d of a file that loads is accepted:\n%.300s", edit%edits, b)
		}
	})
}
