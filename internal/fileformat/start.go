package fileformat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// maxLeadingSpace bounds the white space read before a model file's '{': an endless
// stream of it (yes " " | ivm info /dev/stdin) is not a model file.
const maxLeadingSpace = 1 << 20

// SkipToObject reads a UTF-8 byte order mark and white space up to the '{' that starts a
// model file, and leaves it unread; anything else is an error saying what the file starts
// with, so that a reader refuses /dev/zero or a data file given as a model before reading
// much of it.
func SkipToObject(br *bufio.Reader) error {
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		br.Discard(3) // data files accept one too
	}
	for n := 0; ; n++ {
		c, err := br.ReadByte()
		if err == io.EOF {
			return errors.New("not a readable model file: it is empty")
		} else if err != nil {
			return err
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if n >= maxLeadingSpace {
				return fmt.Errorf("not a readable model file: more than %d bytes of white space "+
					"before its first '{'", maxLeadingSpace)
			}
		case c == '{':
			return br.UnreadByte()
		default:
			return fmt.Errorf("not a readable model file: %s, not an object", describeStart(c))
		}
	}
}

// describeStart says what a file that is not JSON starts with.
func describeStart(c byte) string {
	switch {
	case c == 0:
		return "it starts with a NUL byte (binary data)"
	case c == '[':
		return "a JSON array"
	case c >= '0' && c <= '9' || c == '-':
		return "it starts with a number (a data file?)"
	case c < 0x20 || c >= 0x7f:
		return fmt.Sprintf("it starts with byte 0x%02x (binary data)", c)
	}
	return fmt.Sprintf("it starts with %q", c)
}
