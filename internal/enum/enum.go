// Package enum gives the typed options of every model family (small int enums with a
// name per value) one String, MarshalText and Parse behaviour: the zero value is the first
// name, "" parses as it, and a value without a name is refused rather than written.
package enum

import (
	"fmt"
	"strings"
)

// String returns names[v], or typ(v) for a value without a name.
func String(typ string, names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// Marshal returns names[v], refusing a value without a name (it would not read back); pkg
// prefixes the error ("ivm", "multitask").
func Marshal(pkg, typ string, names []string, v int) ([]byte, error) {
	if v < 0 || v >= len(names) {
		return nil, fmt.Errorf("%s: %s(%d) has no name", pkg, typ, v)
	}
	return []byte(names[v]), nil
}

// Parse returns the index of s in names, case and surrounding blanks ignored; "" is the
// first (the zero value). pkg prefixes the error.
func Parse(pkg, what string, names []string, s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, nil
	}
	for i, n := range names {
		if s == n {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: unknown %s %q (want %s)", pkg, what, s, strings.Join(names, ", "))
}
