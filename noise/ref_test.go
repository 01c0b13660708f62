package noise

import (
	"math"
	"testing"

	"github.com/ivmlab/ivm/internal/reftest"
)

// The reference toolbox's runs (../testdata/ref, see its README) record, for each point
// the IVM included, the site m, β and the g, ν it had at inclusion. The posterior marginal
// at that moment follows from the site equations β = ν/(1 − νς), m = μ + g/ν:
// ς = 1/ν − 1/β, μ = m − g/ν. Our model at that (μ, ς) must give the reference's
// g and ν.

func readRefCSV(t *testing.T, path string) [][]float64 {
	t.Helper()
	rows, err := reftest.ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// refNoiseParams returns the run's final natural noise parameters from its summary.
func refNoiseParams(t *testing.T, run string) []float64 {
	t.Helper()
	sum, err := reftest.ReadSummary(run)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := reftest.Floats(sum["noise_params_final_natural"])
	if err != nil || len(ps) == 0 {
		t.Fatalf("%s: noise parameters %v: %v", run, sum["noise_params_final_natural"], err)
	}
	return ps
}

func TestReferenceInclusions(t *testing.T) {
	runs := []struct {
		run, data, noise string
		fixed            bool // start-up parameters from Init must equal the summary's
	}{
		{"class500_d100_fixed", "class_train_500", "probit", true},
		{"class500_d200_fixed", "class_train_500", "probit", true},
		{"class500_d100_opt", "class_train_500", "probit", false},
		{"ord500_d100_fixed", "ord_train_500", "ordinal", true},
		{"ord500_d100_opt", "ord_train_500", "ordinal", false},
		{"semi500_d100_fixed", "semi_train_500", "ncnm", true},
		{"semi500_d100_opt", "semi_train_500", "ncnm", false},
		{"reg2000_d100_fixed", "reg_train_2000", "gaussian", true},
	}
	for _, r := range runs {
		t.Run(r.run, func(t *testing.T) {
			data := readRefCSV(t, reftest.Path("data", r.data+".csv.gz"))
			y := make([]float64, len(data))
			for i, row := range data {
				y[i] = row[len(row)-1]
			}
			m, err := ByName(r.noise)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Init(y); err != nil {
				t.Fatal(err)
			}
			want := refNoiseParams(t, r.run)
			got := make([]float64, m.NumParams())
			m.Params(got)
			if r.fixed {
				for i := range got {
					if !near(got[i], want[i], 1e-15) {
						t.Errorf("Init: %s = %.17g, reference %.17g",
							m.ParamNames()[i], got[i], want[i])
					}
				}
			} else if err := m.SetParams(want); err != nil {
				t.Fatal(err)
			}

			checked := 0
			for _, a := range readRefCSV(t, reftest.Path("runs", r.run+"_active.csv")) {
				n := int(a[1]) - 1
				siteM, siteB, nu, g := a[4], a[5], a[6], a[7]
				if es, ok := m.(ExactSite); ok {
					if mm, bb := es.Site(n, y[n]); !near(mm, siteM, 1e-12) ||
						!near(bb, siteB, 1e-12) {
						t.Errorf("inclusion %v (point %d): site %v, %v; reference %v, %v",
							a[0], n+1, mm, bb, siteM, siteB)
					}
					// ς from ν = 1/(σ² + ς); μ from g = (y − b − μ)ν.
					vs := 1/nu - got[1]
					mu := y[n] - got[0] - g/nu
					_, g2, nu2 := m.Moments(n, y[n], mu, vs)
					if !near(g2, g, 1e-10) || !near(nu2, nu, 1e-10) {
						t.Errorf("inclusion %v (point %d): g, ν = %v, %v; reference %v, %v",
							a[0], n+1, g2, nu2, g, nu)
					}
					checked++
					continue
				}
				if nu <= 1e-10 || siteB == 1e-6 {
					continue // floored ν or replaced β: the marginal cannot be recovered
				}
				vs := 1/nu - 1/siteB
				mu := siteM - g/nu
				_, g2, nu2 := m.Moments(n, y[n], mu, vs)
				if !near(g2, g, 1e-10) || !near(nu2, nu, 1e-10) {
					t.Errorf("inclusion %v (point %d, y = %v) at μ = %v, ς = %v: "+
						"g, ν = %.12g, %.12g; reference %.12g, %.12g",
						a[0], n+1, y[n], mu, vs, g2, nu2, g, nu)
				}
				checked++
			}
			if checked < 90 {
				t.Errorf("only %d inclusions checked", checked)
			}
			if math.IsNaN(got[0]) {
				t.Error("NaN bias")
			}
		})
	}
}
