package plot

import (
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
)

// Lines returns the level lines of g at level by marching squares: on every grid edge whose
// end values lie on either side of level the crossing point is interpolated linearly, the
// crossings of each cell are joined (a saddle cell by the value at its centre, the mean
// of its corners), and the segments are chained into polylines. A line that reaches the
// grid's border ends there; a closed loop ends at its first point. Cells with a NaN corner
// are skipped.
func (g *Grid) Lines(level float64) []plotter.XYs {
	nx, ny := len(g.X), len(g.Y)
	if nx < 2 || ny < 2 || len(g.Z) != nx*ny || math.IsNaN(level) {
		return nil
	}
	// Crossing points are identified by their grid edge: 2(r·nx + c) is the horizontal
	// edge from (c, r) to (c+1, r), 2(r·nx + c) + 1 the vertical edge from (c, r) to
	// (c, r+1). Each edge belongs to at most two cells and each cell uses an edge at most
	// once, so every crossing joins at most two segments.
	pts := map[int]plotter.XY{}
	adj := map[int][]int{}
	above := func(c, r int) bool { return g.At(c, r) >= level }
	cross := func(key int) {
		if _, ok := pts[key]; ok {
			return
		}
		i := key / 2
		c, r := i%nx, i/nx
		c2, r2 := c+1, r
		if key%2 == 1 {
			c2, r2 = c, r+1
		}
		za, zb := g.At(c, r), g.At(c2, r2)
		t := (level - za) / (zb - za)
		if !(t >= 0) { // also NaN, which cannot happen for a true crossing
			t = 0
		} else if t > 1 {
			t = 1
		}
		pts[key] = plotter.XY{X: g.X[c] + t*(g.X[c2]-g.X[c]), Y: g.Y[r] + t*(g.Y[r2]-g.Y[r])}
	}
	join := func(a, b int) {
		cross(a)
		cross(b)
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	for r := 0; r < ny-1; r++ {
		for c := 0; c < nx-1; c++ {
			z00, z10, z11, z01 := g.At(c, r), g.At(c+1, r), g.At(c+1, r+1), g.At(c, r+1)
			if math.IsNaN(z00) || math.IsNaN(z10) || math.IsNaN(z11) || math.IsNaN(z01) {
				continue
			}
			a00, a10, a11, a01 := above(c, r), above(c+1, r), above(c+1, r+1), above(c, r+1)
			// The cell's edges: bottom, right, top, left.
			e := [4]int{2 * (r*nx + c), 2*(r*nx+c+1) + 1, 2 * ((r+1)*nx + c), 2*(r*nx+c) + 1}
			crossed := [4]bool{a00 != a10, a10 != a11, a01 != a11, a00 != a01}
			var on []int
			for i, x := range crossed {
				if x {
					on = append(on, e[i])
				}
			}
			switch len(on) {
			case 2:
				join(on[0], on[1])
			case 4:
				centre := (z00+z10+z11+z01)/4 >= level
				if centre == a00 {
					// the centre joins corners 00 and 11: cut off corners 10 and 01.
					join(e[0], e[1])
					join(e[2], e[3])
				} else {
					join(e[0], e[3])
					join(e[1], e[2])
				}
			}
		}
	}
	var lines []plotter.XYs
	done := map[int]bool{}
	walk := func(start int) plotter.XYs {
		line := plotter.XYs{pts[start]}
		done[start] = true
		prev, cur := -1, start
		for {
			next := -1
			for _, n := range adj[cur] {
				if n != prev && !done[n] {
					next = n
					break
				}
			}
			if next < 0 {
				// a loop closes where it began.
				for _, n := range adj[cur] {
					if n == start && n != prev && len(line) > 2 {
						line = append(line, pts[start])
						break
					}
				}
				return line
			}
			done[next] = true
			line = append(line, pts[next])
			prev, cur = cur, next
		}
	}
	// Open lines start at an end (a crossing on the grid's border); what is left are loops.
	keys := sortedKeys(adj)
	for _, k := range keys {
		if !done[k] && len(adj[k]) == 1 {
			lines = append(lines, walk(k))
		}
	}
	for _, k := range keys {
		if !done[k] {
			lines = append(lines, walk(k))
		}
	}
	return lines
}

func sortedKeys(m map[int][]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
