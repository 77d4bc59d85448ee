package action

import "bytes"

// The lexing beneath lineScanner: JSON values skipped whole, numbers,
// string literals, literals and whitespace, read from s.b at s.i.

// skip scans any valid JSON value.
func (s *lineScanner) skip(depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	s.ws()
	switch c := s.peek(); {
	case c == '"':
		_, _, ok := s.stringLit()
		return ok
	case c == '{':
		return s.object(func([]byte) bool { return s.skip(depth + 1) })
	case c == '[':
		s.i++
		s.ws()
		if s.peek() == ']' {
			s.i++
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			switch s.next() {
			case ',':
			case ']':
				return true
			default:
				return false
			}
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

// number scans a JSON number.
func (s *lineScanner) number() bool {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *lineScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// stringLit scans a string literal at s.i and returns its contents as
// written; plain says it holds no escape and only ASCII, so that the
// contents are the value.
func (s *lineScanner) stringLit() (v []byte, plain, ok bool) {
	// The line and the position are kept in locals: through s, each byte
	// read and each step would go to memory (a third of a commit's scan).
	b, i := s.b, s.i
	if i >= len(b) || b[i] != '"' {
		return nil, false, false
	}
	i++
	start := i
	plain = true
	for {
		for i < len(b) && ordinary[b[i]] {
			i++
		}
		if i == len(b) {
			return nil, false, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return b[start:i], plain, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			if i++; i == len(b) {
				return nil, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return nil, false, false
				}
				s.textToCheck = true // perhaps a lone surrogate
				i += 5
			default:
				return nil, false, false
			}
		default: // not ASCII: perhaps not UTF-8
			s.textToCheck = true
			plain = false
			i++
		}
	}
}

// ordinary are the bytes a string literal holds as they are and that keep
// it plain: printable ASCII but the quote and the backslash.
var ordinary = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool { return unhex(c) <= 0xf }

func (s *lineScanner) literal(lit string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		s.i += len(lit)
		return true
	}
	return false
}

func (s *lineScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *lineScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *lineScanner) next() byte {
	c := s.peek()
	if s.i < len(s.b) {
		s.i++
	}
	return c
}

func (s *lineScanner) byte(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}
