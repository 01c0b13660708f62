// Package dataset reads and writes the training and test files of ivm: dense CSV and
// sparse libsvm / SVM-light text, optionally gzip-compressed.
//
// Read streams its input line by line, parses numbers straight from the line buffer and
// builds the N×D input matrix once; it never holds the text of the rows. Bad data never
// panics: it gives a *ParseError naming the line and, where there is one, the column (CSV
// field or libsvm token, 1-based) and the offending text.
//
// Input is bounded before it is held: a line longer than ReadOptions.MaxLineBytes, more text
// than MaxBytes (after gunzipping) or a matrix of more than MaxValues values (checked as the
// rows arrive) gives a *LimitError, and a NUL byte, a UTF-16 byte order mark or a carriage
// return inside a line (old Mac line ends) a *ParseError that says so.
//
// # CSV
//
// Comma-separated values, one row per line. Spaces and tabs around fields and CRLF line
// ends are tolerated; a field may be enclosed in double quotes ("" inside quotes is a
// quote). Blank lines and lines whose first non-blank character is '#' are skipped.
// Every row has the same number of fields. One field is the label (the last by default,
// see LabelCol); "?" or an empty label field marks an unlabelled row (Y = NaN). Feature
// fields must be finite numbers. The first row is a header when ReadOptions.Header says so
// or, by default, when one of its feature fields is not a number or its label field is
// neither a number nor "?" nor empty; the header's names are kept in Data.Names and
// Data.LabelName.
//
// With ReadOptions.TaskCol a CSV file has a task column (first, last or column N, counted
// among all the row's fields like LabelCol): its field is the row's task label, any
// non-empty text kept as written (unquoted and trimmed of blanks) in Data.Task, and is
// neither a feature nor the target; in a header its name goes to Data.TaskName. The task
// field is not looked at when deciding whether the first row is a header. Multi-task
// learners (package multitask) group the rows by these labels.
//
// # libsvm / SVM-light
//
//	label index:value index:value ... [# comment]
//
// Indices are 1-based and strictly increasing within a row; absent features are 0.
// "qid:N" tokens are ignored, the label is any finite real number ("?" is accepted as an
// unlabelled row), '#' starts a comment and lines holding only a comment are skipped.
// A "task:NAME" token anywhere after the label gives the row's task: NAME, everything after
// the first colon (no blanks, no '#'), goes to Data.Task. Either every row has one task
// token or none has (then Data.Task is nil). WriteLibSVM writes the token after the label;
// a task name holding a comma makes the line look like CSV to format detection, so read
// such files with Format LibSVM.
// The dimension is the largest index seen unless ReadOptions.Dim is set; then a larger
// index is an error, or is dropped with ReadOptions.IgnoreExtra (what svm-predict does
// with features the model never saw).
//
// # Format detection
//
// With Format Auto the first data line (the first line that is neither blank nor a '#'
// comment), with any trailing "#..." comment removed, decides:
//
//  1. it contains a comma: CSV;
//  2. otherwise, one of its whitespace-separated tokens contains ':': libsvm (a malformed
//     libsvm line is then reported by the libsvm parser, naming the bad token);
//  3. otherwise, it is a single number or "?": a row holding only a label, which is the
//     same row in both formats (a one-column CSV, or a libsvm row whose features are all
//     zero). Reading goes on as libsvm. A later row with a comma is an error (as CSV the
//     field counts would differ); if every row is a lone label the input has no features
//     and is an error unless Dim is set, in which case the rows are all-zero libsvm rows;
//  4. otherwise, the whole line (comment included) contains a comma: CSV (a '#' inside a
//     CSV field, such as a header name);
//  5. anything else (e.g. whitespace-separated dense columns) is an error asking for an
//     explicit format.
//
// The spec-level rule "libsvm when there are at least two tokens and every token after the
// first contains ':'" is a special case of 2; the wider rule only changes which error a
// malformed file gets, so that it names the bad token instead of failing detection.
//
// Inputs starting with the gzip magic bytes 1f 8b are decompressed transparently, by Read
// as well as by ReadFile, whatever the file is called.
//
// Data with no feature at all (a CSV with only a label column, libsvm rows that are all
// empty with Dim 0) is an error: a gonum matrix cannot have zero columns and the model
// could not use it.
package dataset
