package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

func init() {
	register("version", command{Synopsis: "ivm version",
		Short: "print the module version, VCS revision and Go version of this build", Order: 95,
		Run: cmdVersion})
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "ivm version", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH))
	return nil
}

// versionLine says which build this is: "ivm VERSION (revision REV[, modified], TIME)
// GOVERSION OS/ARCH". The version is the main module's, "(devel)" when the build does not
// know it (go run, or a build outside version control); the revision is left out when the
// build has no VCS stamp (-buildvcs=false, or no git).
func versionLine(info *debug.BuildInfo, goVersion, platform string) string {
	version := "(devel)"
	var rev, when string
	modified := false
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ivm %s", version)
	if rev != "" {
		fmt.Fprintf(&b, " (revision %s", rev)
		if modified {
			b.WriteString(", modified")
		}
		if when != "" {
			fmt.Fprintf(&b, ", %s", when)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, " %s %s", goVersion, platform)
	return b.String()
}
