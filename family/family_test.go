package family_test

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/family"
)

// A registered format is read by its loader and listed; another version of it is refused
// naming both; registering it twice, or a name without a version, panics.
func TestRegister(t *testing.T) {
	read := errors.New("read by the zz-test loader")
	family.Register(family.Format{Name: "zz-test/1", Load: func(io.Reader) (family.Model, error) {
		return nil, read
	}})
	if !slices.Contains(family.Formats(), "zz-test/1") {
		t.Errorf("Formats() = %v lacks zz-test/1", family.Formats())
	}
	if _, err := family.Load(strings.NewReader(`{"format": "zz-test/1"}`)); err != read {
		t.Errorf("Load of zz-test/1: %v", err)
	}
	_, err := family.Load(strings.NewReader(`{"format": "zz-test/2"}`))
	if want := `"zz-test/2" is not supported by this version (it reads "zz-test/1")`; err == nil ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("Load of zz-test/2: %v, want %q", err, want)
	}
	for _, f := range []family.Format{
		{Name: "zz-test/1", Load: func(io.Reader) (family.Model, error) { return nil, nil }},
		{Name: "zz-test", Load: func(io.Reader) (family.Model, error) { return nil, nil }},
		{Name: "zz-test/3"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", f.Name)
				}
			}()
			family.Register(f)
		}()
	}
}
