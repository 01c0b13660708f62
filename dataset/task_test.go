package dataset

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseTaskCol(t *testing.T) {
	for in, want := range map[string]TaskCol{"": TaskNone, "none": TaskNone, "first": TaskFirst,
		"LAST": TaskLast, "3": 3} {
		got, err := ParseTaskCol(in)
		if err != nil || got != want {
			t.Errorf("ParseTaskCol(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back, err := ParseTaskCol(got.String()); err != nil || back != got {
			t.Errorf("ParseTaskCol(%q.String()) = %v, %v", in, back, err)
		}
	}
	for _, in := range []string{"0", "-2", "x"} {
		if _, err := ParseTaskCol(in); err == nil {
			t.Errorf("ParseTaskCol(%q): no error", in)
		}
	}
	if _, err := Read(strings.NewReader("a,1,2\n"), ReadOptions{TaskCol: -2}); err == nil {
		t.Error("TaskCol −2: no error")
	}
}

func TestCSVTaskColumn(t *testing.T) {
	cases := []struct {
		name, in  string
		opt       ReadOptions
		x         [][]float64
		y         []float64
		task      []string
		names     []string
		taskName  string
		labelName string
	}{
		{name: "first", in: "s1,1,2\ns2,3,4\n", opt: ReadOptions{TaskCol: TaskFirst},
			x: [][]float64{{1}, {3}}, y: []float64{2, 4}, task: []string{"s1", "s2"}},
		{name: "last, label first", in: "5,1,2,t a\n6,3,4, \"t,b\" \n",
			opt: ReadOptions{TaskCol: TaskLast, LabelCol: LabelFirst},
			x:   [][]float64{{1, 2}, {3, 4}}, y: []float64{5, 6}, task: []string{"t a", "t,b"}},
		{name: "numbered, header", in: "x1,speaker,x2,y\n1,7,2,0\n3,8,4,1\n",
			opt: ReadOptions{TaskCol: 2},
			x:   [][]float64{{1, 2}, {3, 4}}, y: []float64{0, 1}, task: []string{"7", "8"},
			names: []string{"x1", "x2"}, taskName: "speaker", labelName: "y"},
		{name: "numeric tasks, no header", in: "1,0.5,3\n2,0.25,4\n",
			opt: ReadOptions{TaskCol: TaskFirst},
			x:   [][]float64{{0.5}, {0.25}}, y: []float64{3, 4}, task: []string{"1", "2"}},
	}
	for _, c := range cases {
		d, err := Read(strings.NewReader(c.in), c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(rows(d), c.x) || !reflect.DeepEqual(d.Y, c.y) ||
			!reflect.DeepEqual(d.Task, c.task) {
			t.Errorf("%s: x %v y %v task %q; want %v %v %q", c.name, rows(d), d.Y, d.Task,
				c.x, c.y, c.task)
		}
		if !reflect.DeepEqual(d.Names, c.names) || d.TaskName != c.taskName ||
			d.LabelName != c.labelName {
			t.Errorf("%s: names %q task %q label %q", c.name, d.Names, d.TaskName, d.LabelName)
		}
	}
	// Without TaskCol nothing changes: the task field would be a feature.
	d, err := Read(strings.NewReader("1,2,3\n"), ReadOptions{})
	if err != nil || d.Task != nil {
		t.Errorf("no task column: %v, tasks %q", err, d.Task)
	}
	for _, c := range []struct {
		in  string
		opt ReadOptions
		msg string
	}{
		{"a,1\n", ReadOptions{TaskCol: TaskFirst}, "needs a task, a label"},
		{"a,1,2\n", ReadOptions{TaskCol: 4}, "task column 4 out of range"},
		{"1,2,a\n", ReadOptions{TaskCol: TaskLast}, "both the label and the task column"},
		{"a,1,2\n,3,4\n", ReadOptions{TaskCol: TaskFirst}, "empty task label"},
		{"a,1,2\n", ReadOptions{TaskCol: TaskFirst, Dim: 2},
			"1 input columns besides the label and the task, expected 2"},
	} {
		_, err := Read(strings.NewReader(c.in), c.opt)
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q with %+v: error %v, want a ParseError with %q", c.in, c.opt, err, c.msg)
		}
	}
}

func TestLibSVMTaskTokens(t *testing.T) {
	d, err := Read(strings.NewReader("1 task:spk1 1:0.5\n-1 2:1 task:a:b # c\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != LibSVM || !reflect.DeepEqual(d.Task, []string{"spk1", "a:b"}) ||
		!reflect.DeepEqual(rows(d), [][]float64{{0.5, 0}, {0, 1}}) {
		t.Errorf("format %v tasks %q rows %v", d.Format, d.Task, rows(d))
	}
	for in, msg := range map[string]string{
		"1 task:a 1:1\n2 1:1\n":    "row has no task token but the row on line 1 has one",
		"1 1:1\n2 task:a 1:1\n":    "row has a task token but the row on line 1 has none",
		"1 task:a task:b 1:1\n":    "second task token",
		"1 task: 1:1\n":            "empty task name",
		"1 task:a\n2 task:b 1:1\n": "",
	} {
		_, err := Read(strings.NewReader(in), ReadOptions{Format: LibSVM})
		switch {
		case msg == "" && err != nil:
			t.Errorf("%q: %v", in, err)
		case msg != "" && (err == nil || !strings.Contains(err.Error(), msg)):
			t.Errorf("%q: error %v, want %q", in, err, msg)
		}
	}
}

// Task labels survive both writers: libsvm as task:NAME tokens, CSV as the first column.
func TestWriteTasks(t *testing.T) {
	d, err := Read(strings.NewReader("task,x1,x2,y\n\"s,1\",1,2,3\ns2,4,5,?\n"),
		ReadOptions{TaskCol: TaskFirst})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	if want := "task,x1,x2,y\n\"s,1\",1,2,3\ns2,4,5,?\n"; buf.String() != want {
		t.Errorf("WriteCSV:\n%s\nwant\n%s", buf.String(), want)
	}
	back, err := Read(&buf, ReadOptions{TaskCol: TaskFirst})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "CSV", d, back, true, true)
	buf.Reset()
	if err := WriteLibSVM(&buf, d); err != nil {
		t.Fatal(err)
	}
	if want := "3 task:s,1 1:1 2:2\n? task:s2 1:4 2:5\n"; buf.String() != want {
		t.Errorf("WriteLibSVM:\n%s\nwant\n%s", buf.String(), want)
	}
	// The comma in the task label would make auto-detection take the line for CSV.
	back, err = Read(&buf, ReadOptions{Format: LibSVM})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "libsvm", d, back, false, true)
	d.Task[0] = "has blank"
	if err := WriteLibSVM(&buf, d); err == nil {
		t.Error("task label with a blank written as a libsvm token")
	}
	d.Task = d.Task[:1]
	if err := WriteCSV(&buf, d); err == nil {
		t.Error("task labels of the wrong length: no error")
	}
}
