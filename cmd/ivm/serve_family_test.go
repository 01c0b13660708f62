package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/archipelago"
)

// ivm serve refuses a model family it does not serve with a message saying so, instead
// of serving it as something else.
func TestServeRefusesOtherFamilies(t *testing.T) {
	x := mat.NewDense(8, 1, []float64{-3, -2.5, -2, -1.5, 1.5, 2, 2.5, 3})
	y := []float64{1, 1, math.NaN(), 1, 2, math.NaN(), 2, 2}
	m, err := archipelago.Fit(x, y, archipelago.Config{Sweeps: 10, Burn: 5, Samples: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "arch.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = loadServedModel(modelSource{name: "arch", path: path})
	if err == nil || !strings.Contains(err.Error(), "ivm serve serves IVM models") {
		t.Errorf("serving an Archipelago model: %v, want a refusal naming what serve serves", err)
	}
}
