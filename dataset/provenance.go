package dataset

// Provenance records how a model of any family was trained: the training file's base name, SHA-256
// and row count, the command-line arguments, the start time (RFC 3339) and the seconds taken,
// and the updates made to the model since, in order (none for a model as trained: files of
// models never updated have no "updates" field).
type Provenance struct {
	File    string   `json:"file,omitempty"`
	SHA256  string   `json:"sha256,omitempty"`
	Rows    int      `json:"rows,omitempty"`
	Args    []string `json:"args,omitempty"`
	Time    string   `json:"time,omitempty"`
	Seconds float64  `json:"seconds,omitempty"`
	Updates []Update `json:"updates,omitempty"`
}

// Update records one update of a model with new labelled rows (ivm update): their file's base
// name, SHA-256 and row count, the command-line arguments, the start time and the seconds
// taken. The models' Active numbers the update's rows after the training file's and the earlier
// updates' (Provenance.AllRows).
type Update struct {
	File    string   `json:"file,omitempty"`
	SHA256  string   `json:"sha256,omitempty"`
	Rows    int      `json:"rows,omitempty"`
	Args    []string `json:"args,omitempty"`
	Time    string   `json:"time,omitempty"`
	Seconds float64  `json:"seconds,omitempty"`
	// Relearn says the update learnt the kernel's parameters again (ivm.UpdateOptions).
	Relearn bool `json:"relearn,omitempty"`
}

// SourceLastUpdate completes the record of the last update, which the update itself appends
// with its rows, start and seconds, with where its rows came from: their file's base name (for
// rows sent to ivm serve, the request's path), SHA-256 and the arguments that made the update.
// It returns that record, nil when there is none.
func (p *Provenance) SourceLastUpdate(file, sha256 string, args []string) *Update {
	if len(p.Updates) == 0 {
		return nil
	}
	u := &p.Updates[len(p.Updates)-1]
	u.File, u.SHA256, u.Args = file, sha256, args
	return u
}

// AllRows is the number of rows a model has seen: the training file's and every update's.
func (p *Provenance) AllRows() int {
	n := p.Rows
	for _, u := range p.Updates {
		n += u.Rows
	}
	return n
}
