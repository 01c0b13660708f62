package dataset_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ivmlab/ivm/dataset"
)

func ExampleRead() {
	// CSV with a header (detected because "x1" is not a number) and one unlabelled row.
	csv := "x1,x2,y\n0.5,1,1\n-2,0,?\n"
	d, err := dataset.Read(strings.NewReader(csv), dataset.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Format, d.Names, d.LabelName, d.Y)
	fmt.Printf("%v\n", mat.Formatted(d.X))

	// The same points in libsvm format; the format is detected from the first data line.
	svm := "# two points\n1 1:0.5 2:1\n? 1:-2\n"
	d, err = dataset.Read(strings.NewReader(svm), dataset.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Format, d.Y)
	fmt.Printf("%v\n", mat.Formatted(d.X))

	// At predict time, features the model never saw are dropped as svm-predict does.
	d, _ = dataset.Read(strings.NewReader("1 1:3 5:7\n"),
		dataset.ReadOptions{Dim: 2, IgnoreExtra: true})
	fmt.Println(mat.Formatted(d.X))

	// Errors name the line and column.
	_, err = dataset.Read(strings.NewReader("1,2,3\n4,five,6\n"), dataset.ReadOptions{})
	var pe *dataset.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Line, pe.Col, err)
	}

	// Writing converts between the formats.
	if err := dataset.WriteCSV(os.Stdout, d); err != nil {
		fmt.Println(err)
	}

	// Output:
	// csv [x1 x2] y [1 NaN]
	// ⎡0.5    1⎤
	// ⎣ -2    0⎦
	// libsvm [1 NaN]
	// ⎡0.5    1⎤
	// ⎣ -2    0⎦
	// [3  0]
	// 2 2 line 2, column 2: feature "five" is not a number
	// 3,0,1
}
