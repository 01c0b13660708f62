package plot

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// sectorProbs gives three classes by angle: class k is most probable in the
// sector around angle 2πk/3, sharply so far from the origin.
func sectorProbs(x *mat.Dense) ([][]float64, error) {
	r, _ := x.Dims()
	out := make([][]float64, r)
	for i := range out {
		a, b := x.At(i, 0), x.At(i, 1)
		rad := math.Hypot(a, b)
		p := make([]float64, 3)
		var z float64
		for k := range p {
			c := 2 * math.Pi * float64(k) / 3
			p[k] = math.Exp(3 * rad * math.Cos(math.Atan2(b, a)-c))
			z += p[k]
		}
		for k := range p {
			p[k] /= z
		}
		out[i] = p
	}
	return out, nil
}

func TestClassMapSurfaces(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 0, -0.5, 0.8, -0.5, -0.8, 0.1, 0.1})
	labels := []int{0, 1, 2, -1}
	fig, err := ClassMap(sectorProbs, "sectors", x, labels, 3,
		Options{Grid: 21, XMin: -2, XMax: 2, YMin: -2, YMax: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 2 || len(fig.Surfaces) != 2 {
		t.Fatalf("%d panels, %d surfaces", len(fig.Panels), len(fig.Surfaces))
	}
	mode, ent := fig.Surfaces[0].Grid, fig.Surfaces[1].Grid
	pts := mat.NewDense(1, 2, nil)
	for r, yv := range mode.Y {
		for c, xv := range mode.X {
			pts.SetRow(0, []float64{xv, yv})
			p, _ := sectorProbs(pts)
			best, h := 0, 0.0
			for k, v := range p[0] {
				if v > p[0][best] {
					best = k
				}
				h -= v * math.Log(v)
			}
			if mode.At(c, r) != float64(best) {
				t.Fatalf("mode at (%g, %g) is %g, want %d", xv, yv, mode.At(c, r), best)
			}
			if math.Abs(ent.At(c, r)-h) > 1e-12 || h > math.Log(3)+1e-12 {
				t.Fatalf("entropy at (%g, %g) is %g, want %g", xv, yv, ent.At(c, r), h)
			}
		}
	}
	// At the origin the classes are equally likely: the entropy is ln 3 there.
	if got := ent.At(10, 10); math.Abs(got-math.Log(3)) > 1e-12 {
		t.Errorf("entropy at the origin %g, want ln 3", got)
	}
	// Far out along each class's direction the mode is that class.
	for k, cr := range [][2]int{{20, 10}, {5, 19}, {5, 1}} {
		if got := mode.At(cr[0], cr[1]); got != float64(k) {
			t.Errorf("mode at grid (%d, %d) is %g, want %d", cr[0], cr[1], got, k)
		}
	}
	path := filepath.Join(t.TempDir(), "fig3.png")
	if err := SaveGrid([][]*plot.Plot{fig.Panels, fig.Panels}, path,
		16*vg.Centimeter, 14*vg.Centimeter); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("image %v", b)
	}
}

func TestClassMapErrors(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{0, 0, 1, 1})
	x3 := mat.NewDense(2, 3, nil)
	bad := func(*mat.Dense) ([][]float64, error) { return [][]float64{{0.5, 0.5}}, nil }
	nan := func(x *mat.Dense) ([][]float64, error) {
		r, _ := x.Dims()
		out := make([][]float64, r)
		for i := range out {
			out[i] = []float64{math.NaN(), 1}
		}
		return out, nil
	}
	cases := map[string]error{}
	_, cases["3-D"] = ClassMap(sectorProbs, "", x3, []int{0, 1}, 3, Options{})
	_, cases["labels"] = ClassMap(sectorProbs, "", x, []int{0}, 3, Options{})
	_, cases["class too large"] = ClassMap(sectorProbs, "", x, []int{0, 3}, 3, Options{})
	_, cases["one class"] = ClassMap(sectorProbs, "", x, []int{0, 0}, 1, Options{})
	_, cases["short answer"] = ClassMap(bad, "", x, []int{0, 1}, 2, Options{})
	_, cases["NaN"] = ClassMap(nan, "", x, []int{0, 1}, 2, Options{})
	_, cases["small grid"] = ClassMap(sectorProbs, "", x, []int{0, 1}, 3, Options{Grid: 2})
	_, cases["nil"] = ClassMap(nil, "", x, []int{0, 1}, 3, Options{})
	cases["ragged grid"] = SaveGrid([][]*plot.Plot{{plot.New()}, {}},
		filepath.Join(t.TempDir(), "g.png"), vg.Inch, vg.Inch)
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
