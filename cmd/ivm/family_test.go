package main

import "testing"

func TestMethodArg(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-d", "5", "-method", "ssmtr", "a", "b"}, "ssmtr"},
		{[]string{"--method=smtr", "a", "b"}, "smtr"},
		{[]string{"a", "-method", "x"}, "x"},
		{[]string{"-d", "5", "a", "b"}, ""},
		{[]string{"--", "-method", "x"}, ""},
		{[]string{"-method"}, ""},
	} {
		if got := methodArg(c.args); got != c.want {
			t.Errorf("methodArg(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
