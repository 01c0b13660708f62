package strictjson

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// FuzzRows checks Rows against encoding/json's [][]float64: the same value or the same
// error, in a file's field as alone.
func FuzzRows(f *testing.F) {
	for _, s := range []string{`[[1,2.5],[-3e-7, 4E+2]]`, `[]`, `[[]]`, `[[],[1]]`, `null`,
		`[null]`, `[[null]]`, `[[1,"x"]]`, `[[1e400]]`, `[[1] ,[2 ] ]`, ` [ [ 0 ] ] `, `[1]`,
		`[[1,2],3]`, `{"a":1}`, `[[1,]]`, `[[-]]`, `[[0.1, 0.2]]x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want [][]float64
		wantErr := json.Unmarshal([]byte(s), &want)
		var got Rows
		err := json.Unmarshal([]byte(s), &got)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, encoding/json's %v", s, err, wantErr)
		}
		if err == nil && !sameRows(got, want) {
			t.Fatalf("%q: %#v, encoding/json's %#v", s, got, want)
		}
		type file struct {
			R Rows        `json:"r"`
			W [][]float64 `json:"w"`
		}
		var a, b file
		errA := json.Unmarshal([]byte(`{"r":`+s+`}`), &a)
		errB := json.Unmarshal([]byte(`{"w":`+s+`}`), &b)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%q in a file: error %v, encoding/json's %v", s, errA, errB)
		}
		if errA == nil && !sameRows(a.R, b.W) {
			t.Fatalf("%q in a file: %#v, encoding/json's %#v", s, a.R, b.W)
		}
	})
}

// sameRows compares as reflect.DeepEqual does, nil and empty apart, NaN never arising.
func sameRows(a Rows, b [][]float64) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if math.Float64bits(a[i][j]) != math.Float64bits(b[i][j]) {
				return false
			}
		}
	}
	return reflect.DeepEqual([][]float64(a), b)
}

// TestRowsNulls: Decode reports a null in Rows as in a [][]float64, naming what belongs
// there (a row may be null, as a slice may be nil; a number may not).
func TestRowsNulls(t *testing.T) {
	type file struct {
		R Rows        `json:"r"`
		W [][]float64 `json:"w"`
	}
	for _, c := range []struct {
		in   string
		fail bool
	}{{`[[1, null]]`, true}, {`[null]`, false}, {`null`, false}} {
		_, errR := Decode([]byte(`{"r":`+c.in+`}`), &file{})
		_, errW := Decode([]byte(`{"w":`+c.in+`}`), &file{})
		if (errR != nil) != c.fail || (errW != nil) != c.fail {
			t.Fatalf("%s: errors %v and %v, want failure %v", c.in, errR, errW, c.fail)
		}
		if c.fail && errR.Error() != strings.Replace(errW.Error(), "w", "r", 1) {
			t.Errorf("%s: %q, as a [][]float64 %q", c.in, errR, errW)
		}
	}
}
