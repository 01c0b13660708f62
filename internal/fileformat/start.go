package fileformat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxLeadingSpace bounds the white space read before a model file's '{': an endless
// stream of it (yes " " | ivm info /dev/stdin) is not a model file.
const maxLeadingSpace = 1 << 20

// SkipToObject reads a UTF-8 byte order mark and white space up to the '{' that starts a
// model file, and leaves it unread; anything else, or a '{' that no member's name follows,
// is an error saying what the file starts with, so that a reader refuses /dev/zero,
// /dev/urandom or a data file given as a model before reading much of it.
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
			if err := br.UnreadByte(); err != nil {
				return err
			}
			return checkFirstMember(br)
		default:
			return fmt.Errorf("not a readable model file: %s, not an object", describeStart(c))
		}
	}
}

// checkFirstMember refuses an object whose '{', unread in br, is followed (after white space)
// by anything but a member's quoted name or the closing '}', as JSON never is: random bytes
// that happen to start with '{' are refused before the file is read whole. What br cannot
// show at once is left to the decoder.
func checkFirstMember(br *bufio.Reader) error {
	for i := 1; i < br.Size(); i++ {
		b, _ := br.Peek(i + 1)
		if len(b) <= i {
			return nil // the file ends here: the decoder says so
		}
		switch c := b[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"', '}':
			return nil
		default:
			return fmt.Errorf("not a readable model file: its '{' is followed by %s",
				strings.TrimPrefix(describeStart(c), "it starts with "))
		}
	}
	return nil
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
