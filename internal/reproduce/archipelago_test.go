package reproduce

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The experiment is registered and reports a missing data folder as an error
// naming the file (the full table needs ../shared/data and runs for an hour;
// `ivm reproduce -quick archipelago` is the short version).
func TestArchipelagoRegistered(t *testing.T) {
	e, err := Lookup("archipelago")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = e.Run(&out, Config{DataDir: t.TempDir(), Quick: true, Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "pinwheel") {
		t.Errorf("missing data: error %v", err)
	}
}

// -only names problems and label counts; anything else is an error that says what is
// allowed.
func TestArchipelagoOnly(t *testing.T) {
	p, n, all, err := archipelagoOnly("Toy3, 1,Wine,8")
	if err != nil || strings.Join(p, " ") != "Toy3 Wine" || len(n) != 2 || n[0] != 1 ||
		n[1] != 8 || all {
		t.Errorf("got %v %v %v %v", p, n, all, err)
	}
	p, n, all, err = archipelagoOnly("Oil")
	if err != nil || len(p) != 1 || n != nil || all {
		t.Errorf("Oil alone: %v %v %v %v", p, n, all, err)
	}
	p, n, all, err = archipelagoOnly("Toy4,allrows,2")
	if err != nil || strings.Join(p, " ") != "Toy4" || len(n) != 1 || n[0] != 2 || !all {
		t.Errorf("allrows: %v %v %v %v", p, n, all, err)
	}
	for _, bad := range []string{"Toy6", "3", "toy3", "all"} {
		if _, _, _, err := archipelagoOnly(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The figure experiment is registered and reports a missing data folder as an error
// naming the file, without writing a figure.
func TestArchipelagoFig3Registered(t *testing.T) {
	e, err := Lookup("archipelago-fig3")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var buf bytes.Buffer
	err = e.Run(&buf, Config{DataDir: t.TempDir(), Quick: true, Out: out, Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "pinwheel") {
		t.Errorf("missing data: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "archipelago_fig3.png")); err == nil {
		t.Error("a figure was written without data")
	}
}
