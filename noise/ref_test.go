package noise

import (
	"bufio"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The reference toolbox's runs (../testdata/ref, see its README) record, for each point
// the IVM included, the site m, β and the g, ν it had at inclusion. The posterior marginal
// at that moment follows from the site equations β = ν/(1 − νς), m = μ + g/ν:
// ς = 1/ν − 1/β, μ = m − g/ν. Our model at that (μ, ς) must give the reference's g and ν.
const refDir = "../testdata/ref"

func readRefCSV(t *testing.T, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("reference fixture not available: %v", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	var rows [][]float64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var row []float64
		for _, s := range strings.Split(sc.Text(), ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// refNoiseParams returns the run's final natural noise parameters from its summary.
func refNoiseParams(t *testing.T, run string) []float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(refDir, "runs", run+"_summary.txt"))
	if err != nil {
		t.Skipf("reference fixture not available: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "noise_params_final_natural") {
			continue
		}
		var ps []float64
		for _, s := range strings.Fields(line[strings.Index(line, ")")+1:]) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, v)
		}
		return ps
	}
	t.Fatalf("%s: no noise parameters in the summary", run)
	return nil
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
			data := readRefCSV(t, filepath.Join(refDir, "data", r.data+".csv.gz"))
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
						t.Errorf("Init: %s = %.17g, reference %.17g", m.ParamNames()[i], got[i], want[i])
					}
				}
			} else if err := m.SetParams(want); err != nil {
				t.Fatal(err)
			}

			checked := 0
			for _, a := range readRefCSV(t, filepath.Join(refDir, "runs", r.run+"_active.csv")) {
				n := int(a[1]) - 1
				siteM, siteB, nu, g := a[4], a[5], a[6], a[7]
				if es, ok := m.(ExactSite); ok {
					if mm, bb := es.Site(n, y[n]); !near(mm, siteM, 1e-12) || !near(bb, siteB, 1e-12) {
						t.Errorf("inclusion %v (point %d): site %v, %v; reference %v, %v", a[0], n+1, mm, bb, siteM, siteB)
					}
					// ς from ν = 1/(σ² + ς); μ from g = (y − b − μ)ν.
					vs := 1/nu - got[1]
					mu := y[n] - got[0] - g/nu
					_, g2, nu2 := m.Moments(n, y[n], mu, vs)
					if !near(g2, g, 1e-10) || !near(nu2, nu, 1e-10) {
						t.Errorf("inclusion %v (point %d): g, ν = %v, %v; reference %v, %v", a[0], n+1, g2, nu2, g, nu)
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
					t.Errorf("inclusion %v (point %d, y = %v) at μ = %v, ς = %v: g, ν = %.12g, %.12g; reference %.12g, %.12g",
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
