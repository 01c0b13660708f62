package ivm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

// Scaling is how a Predictor rescales each input column before the kernel sees it; it
// and Scaler live in package dataset, shared by every model family.
type Scaling = dataset.Scaling

// The scalings (see dataset.Scaling).
const (
	ScaleAuto   = dataset.ScaleAuto
	ScaleNone   = dataset.ScaleNone
	ScaleMinMax = dataset.ScaleMinMax
	ScaleStd    = dataset.ScaleStd
	// ScaleRelevance is made by Fit's search for regression (see dataset.ScaleRelevance).
	ScaleRelevance = dataset.ScaleRelevance
)

// Scaler is a per-column affine map of inputs fitted on training data (see dataset.Scaler).
type Scaler = dataset.Scaler

// ParseScaling reads a scaling name: none, minmax, std or auto.
func ParseScaling(s string) (Scaling, error) { return dataset.ParseScaling(s) }

// FitScaler computes the scaling kind of x's columns (see dataset.FitScaler).
func FitScaler(x mat.Matrix, kind Scaling) (*Scaler, error) { return dataset.FitScaler(x, kind) }
