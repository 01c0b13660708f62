package dataset

// Provenance records how a model of any family was trained: the training file's base name, SHA-256
// and row count, the command-line arguments, the start time (RFC 3339) and the seconds taken.
type Provenance struct {
	File    string   `json:"file,omitempty"`
	SHA256  string   `json:"sha256,omitempty"`
	Rows    int      `json:"rows,omitempty"`
	Args    []string `json:"args,omitempty"`
	Time    string   `json:"time,omitempty"`
	Seconds float64  `json:"seconds,omitempty"`
}
