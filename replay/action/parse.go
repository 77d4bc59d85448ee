package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// ParseLines decodes newline-delimited JSON actions and calls fn for each.
// Blank lines are skipped. A line that is not a JSON object is an error naming
// its line number, so a corrupt commit is never half-applied silently.
func ParseLines(data []byte, fn func(*Action) error) error {
	_, err := parseLines(data, fn)
	return err
}

// lineError is an error of one line, numbered from 1.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *lineError) Unwrap() error { return e.err }

// checkUTF8 refuses a line that is not UTF-8, as JSON text must be (RFC
// 8259 §8.1) and as delta-rs does.
func checkUTF8(line []byte) error {
	if utf8.Valid(line) {
		return nil
	}
	at := 0
	for at < len(line) {
		r, n := utf8.DecodeRune(line[at:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		at += n
	}
	return fmt.Errorf("not UTF-8 (byte %#x at offset %d): JSON text must be UTF-8", line[at], at)
}

// checkText refuses a line whose strings encoding/json would "repair":
// bytes that are not UTF-8, a lone surrogate escape.
func checkText(line []byte) error {
	if err := checkUTF8(line); err != nil {
		return err
	}
	return checkSurrogates(line)
}

// parseLines is ParseLines, also returning how many lines it read (all
// of data's unless it stopped at an error).
func parseLines(data []byte, fn func(*Action) error) (lines int, err error) {
	sc := lineScanner{size: len(data)}
	for len(data) > 0 {
		lines++
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		var a Action
		sc.textToCheck = false
		scanned := sc.scanLine(raw, &a)
		if !scanned || sc.textToCheck { // a line of ASCII without \u escapes is text
			if err := checkText(raw); err != nil {
				return lines, &lineError{lines, err}
			}
		}
		if !scanned {
			a = Action{}
			if err := json.Unmarshal(raw, &a); err != nil {
				return lines, &lineError{lines, err}
			}
		}
		if err := a.validate(); err != nil {
			return lines, &lineError{lines, err}
		}
		if err := fn(&a); err != nil {
			return lines, err
		}
	}
	return lines, nil
}

// validate rejects actions missing the fields replay depends on.
func (a *Action) validate() error {
	switch {
	case a.Add != nil && a.Add.Path == "":
		return fmt.Errorf("add action without path")
	case a.Remove != nil && a.Remove.Path == "":
		return fmt.Errorf("remove action without path")
	case a.CDC != nil && a.CDC.Path == "":
		return fmt.Errorf("cdc action without path")
	case a.Txn != nil && a.Txn.AppID == "":
		return fmt.Errorf("txn action without appId")
	case a.DomainMetadata != nil && a.DomainMetadata.Domain == "":
		return fmt.Errorf("domainMetadata action without domain")
	case a.Sidecar != nil && a.Sidecar.Path == "":
		return fmt.Errorf("sidecar action without path")
	}
	if a.Add != nil {
		if err := a.Add.DeletionVector.validate(); err != nil {
			return err
		}
	}
	if a.Remove != nil {
		return a.Remove.DeletionVector.validate()
	}
	return nil
}

func (dv *DeletionVector) validate() error {
	if dv == nil {
		return nil
	}
	switch dv.StorageType {
	case "u", "i", "p":
	default:
		return fmt.Errorf("deletion vector with unknown storage type %q", dv.StorageType)
	}
	if dv.Cardinality < 0 || dv.SizeInBytes < 0 {
		return fmt.Errorf("deletion vector with negative size or cardinality")
	}
	return nil
}
