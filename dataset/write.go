package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// check validates d for writing.
func (d *Data) check() (n, dim int, err error) {
	if d == nil || d.X == nil || d.X.IsEmpty() {
		return 0, 0, errors.New("dataset: write: no data")
	}
	n, dim = d.X.Dims()
	if len(d.Y) != n {
		return 0, 0, fmt.Errorf("dataset: write: %d targets for %d rows", len(d.Y), n)
	}
	if d.Names != nil && len(d.Names) != dim {
		return 0, 0, fmt.Errorf("dataset: write: %d names for %d columns", len(d.Names), dim)
	}
	if d.Task != nil && len(d.Task) != n {
		return 0, 0, fmt.Errorf("dataset: write: %d task labels for %d rows", len(d.Task), n)
	}
	for i, t := range d.Task {
		if len(trimSpace([]byte(t))) == 0 || strings.IndexByte(t, '\n') >= 0 {
			return 0, 0, fmt.Errorf("dataset: write: row %d: task label %q is blank or "+
				"holds a newline", i+1, t)
		}
	}
	for i := 0; i < n; i++ {
		if y := d.Y[i]; math.IsInf(y, 0) {
			return 0, 0, fmt.Errorf("dataset: write: row %d: infinite target", i+1)
		}
		for j := 0; j < dim; j++ {
			if !finite(d.X.At(i, j)) {
				return 0, 0, fmt.Errorf("dataset: write: row %d, column %d: value not finite",
					i+1, j+1)
			}
		}
	}
	return n, dim, nil
}

// appendLabel appends y, or "?" when y is NaN (an unlabelled row).
func appendLabel(b []byte, y float64) []byte {
	if math.IsNaN(y) {
		return append(b, '?')
	}
	return strconv.AppendFloat(b, y, 'g', -1, 64)
}

// WriteLibSVM writes d in libsvm format, one row per line: the label ("?" for an
// unlabelled row), then index:value for every non-zero feature (a negative zero too, so
// that reading the output back gives the same bits). Numbers are written in the shortest
// form that reads back exactly. Names are not written. Task labels (d.Task) are written as
// a "task:NAME" token after the label; they must then hold no blank and no '#'.
func WriteLibSVM(w io.Writer, d *Data) error {
	n, dim, err := d.check()
	if err != nil {
		return err
	}
	for i, t := range d.Task {
		if strings.ContainsAny(t, " \t\v\f\r#") {
			return fmt.Errorf(
				"dataset: write: row %d: task label %q cannot be a libsvm token (blank or '#')",
				i+1, t)
		}
	}
	bw := bufio.NewWriter(w)
	var b []byte
	for i := 0; i < n; i++ {
		b = appendLabel(b[:0], d.Y[i])
		if d.Task != nil {
			b = append(append(b, " task:"...), d.Task[i]...)
		}
		for j, v := range d.X.RawRowView(i)[:dim] {
			if v == 0 && !math.Signbit(v) {
				continue
			}
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(j+1), 10)
			b = append(b, ':')
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteCSV writes d as CSV with the label in the last column ("?" for an unlabelled row) and, when
// d.Task is set, the task labels in the first column (read it back with TaskCol TaskFirst). When
// d.Names is set a header row comes first, its label column named d.LabelName or "y" and its task
// column d.TaskName or "task"; names and task labels are quoted when needed. Task labels with
// blanks at either end come back trimmed. Numbers are written in the shortest form that reads back
// exactly. Read with HeaderAuto recognises the header unless every name in it is a number; use
// HeaderYes for such files.
func WriteCSV(w io.Writer, d *Data) error {
	n, dim, err := d.check()
	if err != nil {
		return err
	}
	for i := 0; i <= len(d.Names)+1; i++ {
		s := d.LabelName
		switch {
		case i < len(d.Names):
			s = d.Names[i]
		case i == len(d.Names)+1:
			s = d.TaskName
		}
		if strings.IndexByte(s, '\n') >= 0 {
			return fmt.Errorf("dataset: write: header name %q holds a newline", s)
		}
	}
	bw := bufio.NewWriter(w)
	var b []byte // the header goes out with the first row
	if d.Names != nil {
		if d.Task != nil {
			name := d.TaskName
			if name == "" {
				name = "task"
			}
			b = append(appendName(b, name), ',')
		}
		for _, s := range d.Names {
			b = appendName(b, s)
			b = append(b, ',')
		}
		label := d.LabelName
		if label == "" {
			label = "y"
		}
		b = appendName(b, label)
		b = append(b, '\n')
	}
	for i := 0; i < n; i++ {
		if d.Task != nil {
			b = append(appendName(b, d.Task[i]), ',')
		}
		for _, v := range d.X.RawRowView(i)[:dim] {
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
			b = append(b, ',')
		}
		b = appendLabel(b, d.Y[i])
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
		b = b[:0]
	}
	return bw.Flush()
}

// appendName appends a header name, quoted when Read would otherwise change it.
func appendName(b []byte, s string) []byte {
	if s == "" || strings.ContainsAny(s, ",\"#\r") || isSpace(s[0]) || isSpace(s[len(s)-1]) ||
		strings.HasPrefix(s, "\xef\xbb\xbf") {
		return append(append(append(b, '"'), strings.ReplaceAll(s, `"`, `""`)...), '"')
	}
	return append(b, s...)
}
