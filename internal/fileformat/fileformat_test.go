package fileformat

import (
	"errors"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      bool
	}{
		{`{"format": "ivm-model/1", "models": [1, 2]}`, "ivm-model/1", false},
		{`{"task": {"a": [1, {"b": 2}]}, "format": "ivm-ssmtr/1"}`, "ivm-ssmtr/1", false},
		{`{"format": "ivm-model/1", "models": [1, `, "ivm-model/1", false}, // what follows is the loader's to refuse
		{`{"format": 3}`, "", true},
		{`[1, 2]`, "", true},
		{`{"task": "x"`, "", true},
		{``, "", true},
	} {
		got, err := Of([]byte(c.in))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("Of(%s) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
	}
	if _, err := Of([]byte(`{"rows": 3}`)); !errors.Is(err, ErrNoFormat) {
		t.Errorf("no format field: %v, want ErrNoFormat", err)
	}
}
