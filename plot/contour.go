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
	m := &marching{g: g, level: level, pts: map[int]plotter.XY{}, adj: map[int][]int{},
		done: map[int]bool{}}
	for r := 0; r < ny-1; r++ {
		for c := 0; c < nx-1; c++ {
			m.cell(c, r)
		}
	}
	return m.chain()
}

// marching holds the state of Grid.Lines at one level: the crossing points found so far
// and the segments joining them, then which crossings the chained lines have used.
//
// Crossing points are identified by their grid edge: 2(r·nx + c) is the horizontal edge
// from (c, r) to (c+1, r), 2(r·nx + c) + 1 the vertical edge from (c, r) to (c, r+1). Each
// edge belongs to at most two cells and each cell uses an edge at most once, so every
// crossing joins at most two segments.
type marching struct {
	g     *Grid
	level float64
	pts   map[int]plotter.XY // crossing points by edge
	adj   map[int][]int      // the crossings joined to each crossing by a segment
	done  map[int]bool       // the crossings already on a line
}

// above reports whether grid point (c, r) lies on or above the level.
func (m *marching) above(c, r int) bool { return m.g.At(c, r) >= m.level }

// cross finds the crossing point on edge key, once, by linear interpolation between the
// edge's ends.
func (m *marching) cross(key int) {
	if _, ok := m.pts[key]; ok {
		return
	}
	g, nx := m.g, len(m.g.X)
	i := key / 2
	c, r := i%nx, i/nx
	c2, r2 := c+1, r
	if key%2 == 1 {
		c2, r2 = c, r+1
	}
	za, zb := g.At(c, r), g.At(c2, r2)
	t := (m.level - za) / (zb - za)
	if !(t >= 0) { // also NaN, which cannot happen for a true crossing
		t = 0
	} else if t > 1 {
		t = 1
	}
	m.pts[key] = plotter.XY{X: g.X[c] + t*(g.X[c2]-g.X[c]), Y: g.Y[r] + t*(g.Y[r2]-g.Y[r])}
}

// join adds the segment between the crossings on edges a and b.
func (m *marching) join(a, b int) {
	m.cross(a)
	m.cross(b)
	m.adj[a] = append(m.adj[a], b)
	m.adj[b] = append(m.adj[b], a)
}

// cell joins the crossings on the edges of the cell whose lower left corner is (c, r): two
// crossings by one segment, four (a saddle) by two segments chosen by the value at the
// cell's centre. A cell with a NaN corner has none.
func (m *marching) cell(c, r int) {
	g, nx := m.g, len(m.g.X)
	z00, z10, z11, z01 := g.At(c, r), g.At(c+1, r), g.At(c+1, r+1), g.At(c, r+1)
	if math.IsNaN(z00) || math.IsNaN(z10) || math.IsNaN(z11) || math.IsNaN(z01) {
		return
	}
	a00, a10, a11, a01 := m.above(c, r), m.above(c+1, r), m.above(c+1, r+1), m.above(c, r+1)
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
		m.join(on[0], on[1])
	case 4:
		centre := (z00+z10+z11+z01)/4 >= m.level
		if centre == a00 {
			// the centre joins corners 00 and 11: cut off corners 10 and 01.
			m.join(e[0], e[1])
			m.join(e[2], e[3])
		} else {
			m.join(e[0], e[3])
			m.join(e[1], e[2])
		}
	}
}

// chain chains the segments into polylines in the order of their crossings' edges, so
// that the lines do not depend on map order.
func (m *marching) chain() []plotter.XYs {
	var lines []plotter.XYs
	// Open lines start at an end (a crossing on the grid's border); what is left are loops.
	keys := sortedKeys(m.adj)
	for _, k := range keys {
		if !m.done[k] && len(m.adj[k]) == 1 {
			lines = append(lines, m.walk(k))
		}
	}
	for _, k := range keys {
		if !m.done[k] {
			lines = append(lines, m.walk(k))
		}
	}
	return lines
}

// walk follows the segments from the crossing start to the end of its line, marking each
// crossing done; a loop closes where it began.
func (m *marching) walk(start int) plotter.XYs {
	line := plotter.XYs{m.pts[start]}
	m.done[start] = true
	prev, cur := -1, start
	for {
		next := -1
		for _, n := range m.adj[cur] {
			if n != prev && !m.done[n] {
				next = n
				break
			}
		}
		if next < 0 {
			for _, n := range m.adj[cur] {
				if n == start && n != prev && len(line) > 2 {
					line = append(line, m.pts[start])
					break
				}
			}
			return line
		}
		m.done[next] = true
		line = append(line, m.pts[next])
		prev, cur = cur, next
	}
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys(m map[int][]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
