package action

import (
	"fmt"
	"unicode"
	"unicode/utf16"
)

// A \u escape of half a UTF-16 surrogate pair, without its other half,
// names no character: encoding/json turns it into U+FFFD, so a path
// "a\udcff.parquet" would name the file "a\uFFFD.parquet". delta-rs
// (serde_json) refuses such a line; so does deltafs.

// escapedUnit reads the code unit of the \u escape at b[i:] (b[i] is the
// backslash), if there is one.
func escapedUnit(b []byte, i int) (rune, bool) {
	if i+5 >= len(b) || b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[i+2 : i+6] {
		h := unhex(c)
		if h > 0xf {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	return r, true
}

// surrogateEscape reports how long the \u escape at b[i:] is with its
// pair (6 bytes, or 12 for a pair of surrogates), and whether it is a
// lone surrogate.
func surrogateEscape(b []byte, i int) (n int, lone bool) {
	if r, _ := escapedUnit(b, i); utf16.IsSurrogate(r) {
		if low, ok := escapedUnit(b, i+6); ok && utf16.DecodeRune(r, low) != unicode.ReplacementChar {
			return 12, false // a high surrogate followed by a low one
		}
		return 6, true
	}
	return 6, false
}

// checkSurrogates refuses a line holding a lone surrogate escape. A
// backslash only begins an escape in valid JSON, so every one is read as
// one; anything else wrong with the line is for encoding/json to say.
func checkSurrogates(line []byte) error {
	for i := 0; i < len(line); i++ {
		if line[i] != '\\' || i+1 == len(line) {
			continue
		}
		if line[i+1] != 'u' {
			i++ // the escaped byte, which may be a backslash
			continue
		}
		n, lone := surrogateEscape(line, i)
		if lone {
			return fmt.Errorf("a lone surrogate escape %s at offset %d names no character", line[i:i+6], i)
		}
		i += n - 1
	}
	return nil
}
