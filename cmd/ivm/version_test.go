package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// ivm version, through the built binary: one line naming the module version (or
// "(devel)"), the Go version and the platform; the help lists the command.
func TestVersionCommand(t *testing.T) {
	r := runBinary(t, t.TempDir(), "", nil, "version")
	if r.code != 0 {
		t.Fatalf("ivm version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	line := strings.TrimSuffix(r.stdout, "\n")
	if !strings.HasPrefix(line, "ivm ") || strings.Contains(line, "\n") ||
		!strings.HasSuffix(line, " "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("ivm version printed %q", r.stdout)
	}
	if r = runBinary(t, t.TempDir(), "", nil, "version", "extra"); r.code != 2 ||
		!strings.Contains(r.stderr, "Usage: ivm version") {
		t.Errorf("ivm version extra: exit %d, %q", r.code, r.stderr)
	}
	if r = runBinary(t, t.TempDir(), "", nil, "help"); !strings.Contains(r.stdout,
		"\n  ivm version ") {
		t.Errorf("the help does not list ivm version:\n%s", r.stdout)
	}
}

func TestVersionLine(t *testing.T) {
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "ivm (devel) go1.26 linux/amd64"},
		{"no version, no VCS", &debug.BuildInfo{}, "ivm (devel) go1.26 linux/amd64"},
		{"tagged", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "abc123"},
				{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
				{Key: "vcs.modified", Value: "false"}}},
			"ivm v1.2.0 (revision abc123, 2026-01-02T03:04:05Z) go1.26 linux/amd64"},
		{"modified", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}},
			"ivm (devel) (revision abc123, modified) go1.26 linux/amd64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := versionLine(c.info, "go1.26", "linux/amd64"); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
