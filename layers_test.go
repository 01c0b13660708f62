package ivm_test

import (
	"go/build"
	"strings"
	"testing"
)

// The packages in the order of their layers, lowest first: a package may import only those
// at or below its own layer, and only the layers above the façade may import the root.
var importLayers = [][]string{
	{"internal/decimal", "internal/enum", "internal/pool", "internal/safestat", "internal/rowhash",
		"internal/rusage", "internal/strictjson", "internal/fileformat", "internal/rowdot",
		"internal/atomicfile", "internal/cpufeat", "internal/vmath",
		"special", "param", "optimize", "dataset", "internal/subset", "data", "internal/reftest"},
	{"kern", "noise", "internal/toys"},
	{"infer", "engine"},
	{"family", "calib", "local"},
	{"search", "multiclass", "projected", "multitask", "ssmtr", "archipelago"},
	{"exactgp"},
	{""}, // the root, the façade
	{"serve", "plot", "internal/reproduce"},
}

const modulePath = "github.com/ivmlab/ivm"

// TestImportLayers checks that imports go down only: no package imports one of a higher
// layer, so the root is the façade and the concerns below it never reach back up.
func TestImportLayers(t *testing.T) {
	layerOf := map[string]int{}
	for l, pkgs := range importLayers {
		for _, p := range pkgs {
			layerOf[p] = l
		}
	}
	for l, pkgs := range importLayers {
		for _, p := range pkgs {
			dir := "./" + p
			bp, err := build.ImportDir(dir, 0)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			for _, imp := range bp.Imports {
				if imp != modulePath && !strings.HasPrefix(imp, modulePath+"/") {
					continue
				}
				q := strings.TrimPrefix(strings.TrimPrefix(imp, modulePath), "/")
				ql, known := layerOf[q]
				if !known {
					t.Errorf("%s imports %s, which no layer lists", dir, imp)
				} else if ql > l {
					t.Errorf("%s (layer %d) imports %s (layer %d): imports go down only",
						dir, l, imp, ql)
				}
			}
		}
	}
}
