package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ivmlab/ivm/internal/safestat"
)

// Scaling is how a Predictor rescales each input column before the kernel sees it. The
// kernels' start-up parameters (γ = 1, unit variances) suit inputs of unit spread, as in
// libsvm's advice to run svm-scale first; scaling is learnt on the training data and
// applied unchanged at prediction time.
type Scaling int

const (
	// ScaleAuto is ScaleStd. It is the zero value, so a zero Config scales.
	ScaleAuto Scaling = iota
	// ScaleNone leaves the inputs as they are.
	ScaleNone
	// ScaleMinMax maps each column's training range to [−1, 1] (svm-scale's default).
	ScaleMinMax
	// ScaleStd subtracts each column's training mean and divides by its standard deviation.
	ScaleStd
	// ScaleRelevance is ScaleStd with each column then weighted by its relevance to the
	// targets, learnt from them (Fit's search makes it for regression; FitScaler cannot).
	ScaleRelevance
)

// String returns the name ParseScaling accepts.
func (s Scaling) String() string {
	switch s {
	case ScaleAuto:
		return "auto"
	case ScaleNone:
		return "none"
	case ScaleMinMax:
		return "minmax"
	case ScaleStd:
		return "std"
	case ScaleRelevance:
		return "relevance"
	}
	return fmt.Sprintf("Scaling(%d)", int(s))
}

// ParseScaling parses "auto", "none", "minmax", "std" or "relevance" (a model file's
// scaling: FitScaler cannot compute it).
func ParseScaling(s string) (Scaling, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return ScaleAuto, nil
	case "none":
		return ScaleNone, nil
	case "minmax":
		return ScaleMinMax, nil
	case "std":
		return ScaleStd, nil
	case "relevance":
		return ScaleRelevance, nil
	}
	return ScaleAuto, fmt.Errorf("ivm: unknown scaling %q (want none, minmax or std)", s)
}

// Scaler maps an input x to (x − Shift) ⊙ Factor column by column. A column that is
// constant in the training data gets Factor 1 (it carries no information, and dividing by
// a zero spread would turn test values into ±Inf).
//
// A relevance scaler (ScaleRelevance) also records Weight, each column's relevance weight
// in (0, 1] (1 for the most relevant): its Factor is the standardising factor times the
// weight. Weight says which inputs the model uses; Apply needs only Factor.
//
// Where Log is set (FitLogScaler), a column j with Log[j] > 0 is first mapped to
// ln(1 + max(x, 0)/Log[j]) (Transformed), and Shift and Factor apply to that; where Root is
// set (FitRootScaler), every column is first mapped to √max(x, 0).
type Scaler struct {
	Kind   Scaling   `json:"kind"`
	Shift  []float64 `json:"shift"`
	Factor []float64 `json:"factor"`
	Weight []float64 `json:"weight,omitempty"`
	Log    []float64 `json:"log,omitempty"`
	Root   bool      `json:"root,omitempty"`
}

// Method is the scaling s does: its Kind, or ScaleNone for a nil Scaler.
func (s *Scaler) Method() Scaling {
	if s == nil {
		return ScaleNone
	}
	return s.Kind
}

// String names the scaling s does: its Kind, and which columns it takes the logarithm of.
func (s *Scaler) String() string {
	name := s.Method().String()
	var cols []string
	for j, u := range s.Log {
		if u > 0 {
			cols = append(cols, strconv.Itoa(j+1))
		}
	}
	if len(cols) > 0 {
		name += " of ln(1 + x/u) in columns " + strings.Join(cols, ", ")
	}
	if s != nil && s.Root {
		name += " of √x"
	}
	return name
}

// FitScaler computes the scaling of kind for the columns of x. It returns nil for
// ScaleNone.
func FitScaler(x mat.Matrix, kind Scaling) (*Scaler, error) {
	if kind == ScaleAuto {
		kind = ScaleStd
	}
	if kind == ScaleNone {
		return nil, nil
	}
	if kind == ScaleRelevance {
		return nil,
			fmt.Errorf(
				"ivm: the relevance scaling is learnt from the targets by the default search " +
					"(scaling auto), not computed from the inputs")
	}
	if kind != ScaleMinMax && kind != ScaleStd {
		return nil, fmt.Errorf("ivm: unknown scaling %v", kind)
	}
	s := &Scaler{Kind: kind}
	if err := s.fitColumns(x); err != nil {
		return nil, err
	}
	return s, nil
}

// fitColumns sets s's Shift and Factor for the columns of x, as its Kind and Log (where
// set) ask.
func (s *Scaler) fitColumns(x mat.Matrix) error {
	n, dim := x.Dims()
	if n == 0 {
		return fmt.Errorf("ivm: no rows to compute a scaling from")
	}
	s.Shift, s.Factor = make([]float64, dim), make([]float64, dim)
	col := make([]float64, n)
	for j := 0; j < dim; j++ {
		for i := range col {
			col[i] = s.Transformed(j, x.At(i, j))
		}
		shift, spread, err := columnShiftSpread(col, s.Kind)
		if err != nil {
			return fmt.Errorf("ivm: input column %d: %w", j+1, err)
		}
		s.Shift[j], s.Factor[j] = shift, 1/spread
		if spread == 0 || math.IsInf(s.Factor[j], 0) {
			// A constant column (or one whose spread is below what a float64 can invert)
			// carries no information: leave it unscaled.
			s.Factor[j] = 1
		}
	}
	return nil
}

// logSkew is the least skewness of a column of non-negative values that FitLogScaler takes
// the logarithm of: counts and readings with a long right tail (flow cytometry's
// intensities, a package's dependencies), whose few large values would otherwise set the
// kernel's width for the many small ones.
const logSkew = 2

// FitLogScaler computes a standardising scaling of the columns of x whose long-tailed
// columns of values ≥ 0 (skewness above logSkew) are first mapped to ln(1 + x/u), u the
// first percentile of the column's positive values: its unit, a count's 1. It returns nil
// where no column is long-tailed.
func FitLogScaler(x mat.Matrix) (*Scaler, error) {
	n, dim := x.Dims()
	s := &Scaler{Kind: ScaleStd, Log: make([]float64, dim)}
	col := make([]float64, n)
	for j := range dim {
		mat.Col(col, j, x)
		s.Log[j] = logUnit(col)
	}
	if !slices.ContainsFunc(s.Log, func(u float64) bool { return u > 0 }) {
		return nil, nil
	}
	if err := s.fitColumns(x); err != nil {
		return nil, err
	}
	return s, nil
}

// FitRootScaler computes a min-max scaling of the square roots of the columns of x, or nil
// where a value is negative or every column holds only 0 and one other value. Intensities
// and counts (an image's pixels, a text's word counts) vary most where they are large; their
// square roots even that out, and an rbf of them tells shapes apart by more than their
// brightest parts.
func FitRootScaler(x mat.Matrix) (*Scaler, error) {
	n, dim := x.Dims()
	two := true // every column 0 and one other value: a root only rescales it
	col := make([]float64, n)
	for j := range dim {
		mat.Col(col, j, x)
		other := 0.0
		for _, v := range col {
			if !(v >= 0) || bad(v) {
				return nil, nil
			}
			if v > 0 && other == 0 {
				other = v
			} else if v > 0 && v != other {
				two = false
			}
		}
	}
	if two {
		return nil, nil
	}
	s := &Scaler{Kind: ScaleMinMax, Root: true}
	if err := s.fitColumns(x); err != nil {
		return nil, err
	}
	return s, nil
}

// logUnit returns the unit u of a long-tailed column of values ≥ 0 (FitLogScaler), or 0 for
// any other column.
func logUnit(col []float64) float64 {
	var pos []float64
	for _, v := range col {
		if v < 0 || bad(v) {
			return 0
		}
		if v > 0 {
			pos = append(pos, v)
		}
	}
	if len(pos) < 2 || !(stat.Skew(col, nil) > logSkew) {
		return 0
	}
	slices.Sort(pos)
	if pos[0] == pos[len(pos)-1] {
		return 0 // two values: the logarithm would only rescale them
	}
	return stat.Quantile(0.01, stat.Empirical, pos, nil)
}

// Transformed is value v of column j before its shift and factor: ln(1 + max(v, 0)/Log[j])
// for a logged column, √max(v, 0) for a Root scaler's, else v.
func (s *Scaler) Transformed(j int, v float64) float64 {
	if s.Root {
		return math.Sqrt(max(v, 0))
	}
	if s.Log == nil || s.Log[j] == 0 {
		return v
	}
	return math.Log1p(max(v, 0) / s.Log[j])
}

// Unscaled is the input value of column j that s scales to v: Apply's inverse.
func (s *Scaler) Unscaled(j int, v float64) float64 {
	t := v/s.Factor[j] + s.Shift[j]
	if s.Root {
		return max(t, 0) * max(t, 0)
	}
	if s.Log == nil || s.Log[j] == 0 {
		return t
	}
	return s.Log[j] * math.Expm1(t)
}

// columnShiftSpread returns a column's centre and spread for kind: the mean and standard
// deviation (ScaleStd, computed so that columns near ±1e300 do not overflow the sum of
// squares), or the midpoint and half-range (ScaleMinMax, halved before the difference is
// taken); a column that holds a non-finite value is an error.
func columnShiftSpread(col []float64, kind Scaling) (shift, spread float64, err error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range col {
		if bad(v) {
			return 0, 0, fmt.Errorf("ivm: value %v is not finite", v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	switch {
	case hi == lo:
		return lo, 0, nil
	case kind == ScaleMinMax:
		return lo/2 + hi/2, hi/2 - lo/2, nil
	}
	shift, spread = safestat.MeanSD(col, 0)
	return shift, spread, nil
}

// Dim is the number of input columns the scaler was fitted to.
func (s *Scaler) Dim() int { return len(s.Shift) }

// Apply returns the scaled copy of x (x itself when s is nil). Columns of x beyond the
// scaler's are an error, as are inputs that scale to ±Inf.
func (s *Scaler) Apply(x mat.Matrix) (*mat.Dense, error) {
	n, dim := x.Dims()
	if s == nil {
		if d, ok := x.(*mat.Dense); ok {
			return d, nil
		}
		return mat.DenseCopyOf(x), nil
	}
	if dim != len(s.Shift) {
		return nil, fmt.Errorf("ivm: %d input columns, the scaling was fitted to %d",
			dim, len(s.Shift))
	}
	out := mat.NewDense(n, dim, nil)
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		for j := range row {
			xv := s.Transformed(j, x.At(i, j))
			v := (xv - s.Shift[j]) * s.Factor[j]
			if bad(v) {
				// x − shift overflowed (values near ±1e308): scale each first.
				v = xv*s.Factor[j] - s.Shift[j]*s.Factor[j]
			}
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fmt.Errorf("ivm: row %d column %d: value %g does not scale to "+
					"a finite number", i+1, j+1, x.At(i, j))
			}
			row[j] = v
		}
	}
	return out, nil
}

// Check validates a scaler read from a file for a model of dim inputs: a known kind, one
// shift and one factor per input, all finite, no factor zero; for a relevance scaler (and
// only for one) a weight in (0, 1] per input.
func (s *Scaler) Check(dim int) error {
	if s.Kind != ScaleMinMax && s.Kind != ScaleStd && s.Kind != ScaleRelevance {
		return fmt.Errorf("ivm: scaling kind %d unknown", int(s.Kind))
	}
	if len(s.Shift) != dim || len(s.Factor) != dim {
		return fmt.Errorf("ivm: scaling for %d and %d columns, the model has %d inputs",
			len(s.Shift), len(s.Factor), dim)
	}
	for j := range s.Shift {
		if bad(s.Shift[j]) || bad(s.Factor[j]) || s.Factor[j] == 0 {
			return fmt.Errorf("ivm: scaling of column %d is not usable (shift %g, factor %g)", j+1,
				s.Shift[j], s.Factor[j])
		}
	}
	if (s.Weight != nil) != (s.Kind == ScaleRelevance) {
		return fmt.Errorf("ivm: %v scaling with %d relevance weights", s.Kind, len(s.Weight))
	}
	if s.Weight != nil && len(s.Weight) != dim {
		return fmt.Errorf("ivm: relevance weights for %d columns, the model has %d inputs",
			len(s.Weight), dim)
	}
	for j, w := range s.Weight {
		if !(w > 0 && w <= 1) {
			return fmt.Errorf("ivm: relevance weight of column %d is %g, want one in (0, 1]",
				j+1, w)
		}
	}
	if s.Root && s.Log != nil {
		return errors.New("ivm: a scaling of the square roots and the logarithms of its inputs")
	}
	if s.Log != nil && len(s.Log) != dim {
		return fmt.Errorf("ivm: log units for %d columns, the model has %d inputs",
			len(s.Log), dim)
	}
	for j, u := range s.Log {
		if !(u >= 0) || math.IsInf(u, 1) {
			return fmt.Errorf("ivm: log unit of column %d is %g, want a finite value ≥ 0", j+1, u)
		}
	}
	return nil
}

// MarshalText and UnmarshalText let Scaling appear by name in JSON.
func (s Scaling) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a scaling name.
func (s *Scaling) UnmarshalText(b []byte) error {
	v, err := ParseScaling(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// bad reports whether v is NaN or infinite.
func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
