package kern

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ivmlab/ivm/param"
)

// sameSum reports how two sums differ ("" when they are identical in every respect that
// String, JSON and the optimiser see).
func sameSum(a, b *Sum) string {
	pa, pb := make([]float64, a.NumParams()), make([]float64, b.NumParams())
	a.Params(pa)
	b.Params(pb)
	switch {
	case !slices.Equal(a.ParamNames(), b.ParamNames()):
		return "parameter names " + strings.Join(a.ParamNames(), ",") + " vs " +
			strings.Join(b.ParamNames(), ",")
	case !slices.Equal(pa, pb):
		return "parameter values"
	case !slices.Equal(a.FreeNames(), b.FreeNames()):
		return "free names " + strings.Join(a.FreeNames(), ",") + " vs " +
			strings.Join(b.FreeNames(), ",")
	case !slices.EqualFunc(a.Ties(), b.Ties(), slices.Equal):
		return "ties"
	case a.PositiveTransform().Name() != b.PositiveTransform().Name():
		return "transform"
	case a.Dim() != b.Dim():
		return "dim"
	}
	for p, k := range a.Parts() {
		ka, okA := k.(ARD)
		kb, okB := b.Parts()[p].(ARD)
		if okA != okB || okA && !slices.Equal(ka.Groups(), kb.Groups()) {
			return "groups"
		}
	}
	return ""
}

// roundTrip checks String → Parse and JSON → Unmarshal reproduce s exactly.
func roundTrip(t *testing.T, label string, s *Sum) {
	t.Helper()
	str := s.String()
	back, err := Parse(str, s.Dim())
	if err != nil {
		t.Errorf("%s: Parse(String()) = %q: %v", label, str, err)
		return
	}
	if d := sameSum(s, back); d != "" {
		t.Errorf("%s: String round trip via %q changes %s", label, str, d)
	}
	if again := back.String(); again != str {
		t.Errorf("%s: String not stable: %q then %q", label, str, again)
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Errorf("%s: MarshalJSON: %v", label, err)
		return
	}
	var dec Sum
	if err := json.Unmarshal(js, &dec); err != nil {
		t.Errorf("%s: UnmarshalJSON(%s): %v", label, js, err)
		return
	}
	if d := sameSum(s, &dec); d != "" {
		t.Errorf("%s: JSON round trip via %s changes %s", label, js, d)
	}
	if js2, _ := json.Marshal(&dec); string(js2) != string(js) {
		t.Errorf("%s: JSON not stable:\n%s\n%s", label, js, js2)
	}
}

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		spec string
		dim  int
		want []float64
		free []string
	}{
		{"rbf+bias+white", 2, []float64{1, 1, math.Exp(-2), math.Exp(-2)},
			[]string{"rbf.gamma", "rbf.variance", "bias.variance", "white.variance"}},
		{" rbf ( gamma = 2 ) + lin() ", 0, []float64{2, 1, 1},
			[]string{"rbf.gamma", "rbf.variance", "lin.variance"}},
		{"mlp", 0, []float64{10, 10, 1}, []string{"mlp.weight", "mlp.bias", "mlp.variance"}},
		{"rbfard+linard", 3, []float64{1, 1, 0.999, 0.999, 0.999, 1, 0.999, 0.999, 0.999},
			[]string{"rbfard.gamma", "rbfard.variance", "rbfard.scale1",
				"rbfard.scale2", "rbfard.scale3", "linard.variance"}},
		{"rbfard(tie=none,groups=2)+linard(groups=2)", 3,
			[]float64{1, 1, 0.999, 0.999, 1, 0.999, 0.999},
			[]string{"rbfard.gamma", "rbfard.variance", "rbfard.scale1", "rbfard.scale2",
				"linard.variance", "linard.scale1", "linard.scale2"}},
		{"linard(groups=2)+rbfard(groups=2,scales=[0.5,0.25])", 4,
			[]float64{1, 0.5, 0.25, 1, 1, 0.5, 0.25},
			[]string{"linard.variance", "linard.scale1", "linard.scale2",
				"rbfard.gamma", "rbfard.variance"}},
		{"rbf+rbf(gamma=3)", 0, []float64{1, 1, 3, 1},
			[]string{"rbf#1.gamma", "rbf#1.variance", "rbf#2.gamma", "rbf#2.variance"}},
		{"mlpard(scale2=0.5)", 3, []float64{10, 10, 1, 0.999, 0.5, 0.999},
			[]string{"mlpard.weight", "mlpard.bias", "mlpard.variance",
				"mlpard.scale1", "mlpard.scale2", "mlpard.scale3"}},
	}
	for _, tc := range tests {
		s, err := Parse(tc.spec, tc.dim)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		got := make([]float64, s.NumParams())
		s.Params(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q) params %v, want %v", tc.spec, got, tc.want)
		}
		if !slices.Equal(s.FreeNames(), tc.free) {
			t.Errorf("Parse(%q) free names %v, want %v", tc.spec, s.FreeNames(), tc.free)
		}
		roundTrip(t, tc.spec, s)
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		spec string
		dim  int
		want string
	}{
		{"rbf+bias+white", 2,
			"rbf(gamma=1,variance=1)+bias(variance=0.1353352832366127)+" +
				"white(variance=0.1353352832366127)"},
		{"rbfard(groups=2, scales=[0.5,0.25])+linard(groups=2)", 4,
			"rbfard(gamma=1,variance=1,scales=[0.5,0.25],groups=2)+" +
				"linard(variance=1,scales=[0.5,0.25],groups=2)"},
		{"rbfard(groups=[2,1,2])+linard(tie=none);transform=exp", 3,
			"rbfard(gamma=1,variance=1,scales=0.999,groups=[2,1,2])+" +
				"linard(variance=1,scales=0.999,tie=none);transform=exp"},
		{"lin+rbf+rbf; tie(rbf#2.variance, lin.variance)", 0,
			"lin(variance=1)+rbf(gamma=1,variance=1)+rbf(gamma=1,variance=1);" +
				"tie(lin.variance,rbf#2.variance)"},
	}
	for _, tc := range tests {
		s, err := Parse(tc.spec, tc.dim)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if got := s.String(); got != tc.want {
			t.Errorf("Parse(%q).String() =\n%q, want\n%q", tc.spec, got, tc.want)
		}
		roundTrip(t, tc.spec, s)
	}
}

// TestRoundTripProgrammatic builds sums with awkward values and arbitrary ties through the
// API and checks that String and JSON reproduce them exactly.
func TestRoundTripProgrammatic(t *testing.T) {
	odd := []float64{0.1 + 0.2, 1e-300, 5e-324, 1.7976931348623157e308,
		math.Nextafter(1, 0), 1.0 / 3}
	g := []int{1, 0, 1, 2}
	mk := func() []Kernel {
		return []Kernel{
			must(NewRBFARD(odd[0], odd[1], []float64{odd[4], 1e-17, 1.0 / 3}, g)),
			must(NewLinARD(odd[2], []float64{0.5, 0.5, 0.5}, g)),
			must(NewMLPARD(odd[3], odd[5], 2, []float64{0.25, 0.5, 0.75}, g)),
			must(NewRBF(odd[5], 7)),
			must(NewRBFARD(1, 1, []float64{0.5, 0.5}, []int{0, 1, 1, 0})),
			must(NewWhite(odd[0])),
		}
	}
	cases := []struct {
		label string
		ties  [][]Slot
	}{
		{"no ties", nil},
		{"all ARD scales", [][]Slot{{{0, 2}, {1, 1}, {2, 3}},
			{{0, 3}, {1, 2}, {2, 4}}, {{0, 4}, {1, 3}, {2, 5}}}},
		{"two ARD, partial", [][]Slot{{{1, 1}, {2, 3}}, {{1, 2}, {2, 4}},
			{{1, 3}, {2, 5}}, {{0, 2}, {4, 2}}}},
		{"mixed", [][]Slot{{{3, 1}, {0, 1}, {5, 0}}, {{0, 2}, {1, 1}}, {{2, 4}, {2, 3}}}},
		{"one scale everywhere", [][]Slot{{{0, 2}, {0, 3}, {0, 4},
			{1, 1}, {1, 2}, {1, 3}, {2, 3}, {2, 4}, {2, 5}}}},
	}
	for _, tc := range cases {
		for _, tr := range []param.Transform{param.Softplus{}, param.Exp{}} {
			s := NewSum(mk()...)
			s.SetPositiveTransform(tr)
			for _, tie := range tc.ties {
				checkNoErr(t, s.Tie(tie...))
			}
			roundTrip(t, tc.label+" "+tr.Name(), s)
		}
	}
	// TieScales on the first three ARD components (same groups) ties 3 scales.
	s := NewSum(mk()[:3]...)
	checkNoErr(t, s.TieScales())
	if n := len(s.Ties()); n != 3 {
		t.Errorf("TieScales made %d ties, want 3", n)
	}
	if !strings.Contains(s.String(), "scales=[0.9999999999999999,1e-17,0.3333333333333333]") ||
		strings.Contains(s.String(), "tie") {
		t.Errorf("TieScales: String() = %q", s.String())
	}
	roundTrip(t, "TieScales", s)
	if err := NewSum(mk()...).TieScales(); err == nil {
		t.Errorf("TieScales accepted different groupings")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		spec string
		dim  int
		want string
	}{
		{"", 0, "want a kernel type"},
		{"rbf+", 0, "got the end of the spec"},
		{"rbff", 0, `unknown kernel "rbff"`},
		{"rbf(gama=1)", 0, `offset 4: rbf has no parameter "gama" (want gamma, variance)`},
		{"rbf(gamma=1,gamma=2)", 0, "gamma given twice"},
		{"rbf(gamma=x1)", 0, `bad number "x1"`},
		{"rbf(gamma=-1)", 0, "gamma: value -1 must be > 0"},
		{"rbf(gamma=0)", 0, "must be > 0"},
		{"rbf(variance=inf)", 0, "not finite"},
		{"rbf(variance=NaN)", 0, "not finite"},
		{"rbf(gamma=[1,2])", 0, "takes one number"},
		{"rbf(gamma=1", 0, "want ','"},
		{"rbf(gamma 1)", 0, "want '='"},
		{"rbf * lin", 0, "want '+', ';' or the end"},
		{"rbfard", 0, "rbfard needs the input dimension"},
		{"rbfard(scales=1)", 2, "must lie in (0, 1)"},
		{"rbfard(scales=[0.5,0.5,0.5])", 2, "scales lists 3 values for 2 scales"},
		{"rbfard(scales=[0.5,1.5])", 2, "scale2: value 1.5"},
		{"rbfard(groups=3)", 2, "3 groups for 2 input dimensions"},
		{"rbfard(groups=0)", 2, "0 groups"},
		{"rbfard(groups=[1,3,3])", 3, "scale2 is used by no input dimension"},
		{"rbfard(groups=[1,3])", 2, `want a scale number in 1…2, got "3"`},
		{"rbfard(groups=[1,2,2])", 2, "groups lists 3 dimensions"},
		{"rbfard(scales=0.5,scale1=0.2)", 2, "either scales or scale1"},
		{"rbfard(scale3=0.2)", 2, "rbfard has 2 scales, no scale3"},
		{"rbfard(tie=maybe)", 2, "tie must be none or shared"},
		{"rbf(scales=0.5)", 2, `rbf has no parameter "scales"`},
		{"rbfard(groups=2)+linard", 4, "different groups"},
		{"rbfard(scales=0.5)+linard(scales=0.6)", 2, "gives different ones"},
		{"rbf;tie(rbf.gamma)", 0, "at least two"},
		{"rbf+lin;tie(rbf.gamma,lin.scale1)", 0, `lin has no parameter "scale1"`},
		{"rbf+rbf;tie(rbf.gamma,rbf#2.variance)", 0, "rbf is ambiguous"},
		{"rbf+lin;tie(rbf#2.gamma,lin.variance)", 0, "no component rbf#2"},
		{"rbfard+rbf;tie(rbfard.scale1,rbf.gamma)", 1, "different constraints"},
		{"rbf;transform=sigmoid", 0, `transform "sigmoid"`},
		{"rbf;foo", 0, `unknown clause "foo"`},
	}
	for _, tc := range tests {
		_, err := Parse(tc.spec, tc.dim)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q, %d): error %v, want one containing %q",
				tc.spec, tc.dim, err, tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	s := must(Parse("rbfard(groups=2,scales=[0.5,0.25])+linard(groups=2)+white;transform=exp", 3))
	js, err := json.Marshal(s)
	checkNoErr(t, err)
	want := `{"dim":3,"transform":"exp","parts":[` +
		`{"type":"rbfard","gamma":1,"variance":1,"scales":[0.5,0.25],"groups":[1,1,2]},` +
		`{"type":"linard","variance":1,"scales":[0.5,0.25],"groups":[1,1,2]},` +
		`{"type":"white","variance":0.1353352832366127}],` +
		`"ties":[["rbfard.scale1","linard.scale1"],["rbfard.scale2","linard.scale2"]]}`
	if string(js) != want {
		t.Errorf("JSON\n%s\nwant\n%s", js, want)
	}
	roundTrip(t, "json", s)

	for _, bad := range []struct{ js, want string }{
		{`{"dim":0,"transform":"softplus","parts":[{"type":"rbf","gama":1}]}`, `no key "gama"`},
		{`{"dim":0,"transform":"softplus","parts":[{"type":"rbx"}]}`, `unknown kernel "rbx"`},
		{`{"dim":0,"transform":"softplus","parts":[{"type":"rbf","gamma":-1}]}`, "must be > 0"},
		{`{"dim":0,"transform":"logit","parts":[{"type":"rbf"}]}`, `transform "logit"`},
		{`{"dim":0,"transform":"softplus","parts":[]}`, "no parts"},
		{`{"dim":2,"transform":"softplus","parts":[{"type":"linard","groups":[1,1,1]}]}`,
			"groups has 3 entries"},
		{`{"dim":0,"transform":"softplus","parts":[{"type":"rbf"},{"type":"lin","variance":2}],` +
			`"ties":[["rbf.variance","lin.variance"]]}`, "tied but differ"},
		{`{"dim":0,"transform":"softplus","parts":[{"type":"rbf"}],"extra":1}`, "unknown field"},
	} {
		var d Sum
		if err := json.Unmarshal([]byte(bad.js), &d); err == nil ||
			!strings.Contains(err.Error(), bad.want) {
			t.Errorf("Unmarshal(%s): error %v, want one containing %q", bad.js, err, bad.want)
		}
	}

	// NaN and Inf are refused.
	r := must(NewRBF(1, 1))
	r.p[1] = math.NaN()
	if _, err := json.Marshal(NewSum(r)); err == nil ||
		!strings.Contains(err.Error(), "not finite") {
		t.Errorf("MarshalJSON with NaN: %v", err)
	}
	r.p[1] = math.Inf(1)
	if _, err := json.Marshal(NewSum(r)); err == nil {
		t.Errorf("MarshalJSON with Inf succeeded")
	}
}

func TestTieAndFree(t *testing.T) {
	s := must(Parse("rbf(gamma=2,variance=0.5)+linard(variance=3,scales=[0.2,0.4])+bias", 2))
	if err := s.Tie(Slot{0, 0}, Slot{1, 1}); err == nil {
		t.Errorf("tying a positive to a unit parameter succeeded")
	}
	if err := s.Tie(Slot{0, 0}, Slot{3, 0}); err == nil {
		t.Errorf("tying to a missing component succeeded")
	}
	if err := s.Tie(Slot{0, 5}); err == nil {
		t.Errorf("tying a missing parameter succeeded")
	}
	checkNoErr(t, s.Tie(Slot{2, 0}, Slot{0, 1}))
	checkNoErr(t, s.Tie(Slot{1, 0}, Slot{0, 1})) // merges with the bias/rbf tie; linard's 3 wins
	checkNoErr(t, s.Tie(Slot{1, 2}, Slot{1, 1}))
	want := []string{"rbf.gamma", "rbf.variance", "linard.scale1"}
	if !slices.Equal(s.FreeNames(), want) {
		t.Fatalf("FreeNames %v, want %v", s.FreeNames(), want)
	}
	p := make([]float64, s.NumParams())
	s.Params(p)
	if !slices.Equal(p, []float64{2, 3, 3, 0.4, 0.4, 3}) {
		t.Errorf("params after ties %v", p)
	}
	if got := s.FreeSlots(1); !slices.Equal(got, []Slot{{0, 1}, {1, 0}, {2, 0}}) {
		t.Errorf("FreeSlots(1) = %v", got)
	}
	if s.FreeTransform(2).Name() != "sigmoid" || s.FreeTransform(0).Name() != "softplus" {
		t.Errorf("free transforms %s %s", s.FreeTransform(0).Name(), s.FreeTransform(2).Name())
	}
	roundTrip(t, "ties", s)

	for _, tr := range []param.Transform{param.Softplus{}, param.Exp{}} {
		s.SetPositiveTransform(tr)
		checkNoErr(t, s.SetParams(p))
		x := make([]float64, s.NumFree())
		s.Free(x)
		x0, _ := tr.Inverse(2)
		if x[0] != x0 {
			t.Errorf("%s: free gamma %v, want %v", tr.Name(), x[0], x0)
		}
		checkNoErr(t, s.SetFree(x))
		q := make([]float64, s.NumParams())
		s.Params(q)
		for i := range p {
			if !closeTo(q[i], p[i], 1e-14) {
				t.Errorf("%s: Free/SetFree moved parameter %d: %v → %v", tr.Name(), i, p[i], q[i])
			}
		}
		y := []float64{-1.5, 0.25, 2}
		checkNoErr(t, s.SetFree(y))
		s.Params(q)
		want := []float64{tr.Forward(-1.5), tr.Forward(0.25), tr.Forward(0.25),
			param.Sigmoid{}.Forward(2), param.Sigmoid{}.Forward(2), tr.Forward(0.25)}
		if !slices.Equal(q, want) {
			t.Errorf("%s: SetFree(%v) gave %v, want %v", tr.Name(), y, q, want)
		}
		s.Free(x)
		for i := range y {
			if !closeTo(x[i], y[i], 1e-12) {
				t.Errorf("%s: Free after SetFree: %v, want %v", tr.Name(), x, y)
			}
		}
	}
	// Saturated transforms are errors and leave the parameters alone.
	s.SetPositiveTransform(nil)
	before := make([]float64, s.NumParams())
	s.Params(before)
	if err := s.SetFree([]float64{0, 0, 40}); err == nil ||
		!strings.Contains(err.Error(), "linard.scale1") {
		t.Errorf("SetFree with a saturated sigmoid: %v", err)
	}
	if err := s.SetFree([]float64{-800, 0, 0}); err == nil ||
		!strings.Contains(err.Error(), "rbf.gamma") {
		t.Errorf("SetFree with an underflowing softplus: %v", err)
	}
	if err := s.SetFree([]float64{0, 0}); err == nil {
		t.Errorf("SetFree with too few values succeeded")
	}
	after := make([]float64, s.NumParams())
	s.Params(after)
	if !slices.Equal(before, after) {
		t.Errorf("failed SetFree changed the parameters")
	}
}
