package main

import "fmt"

// plural is a count with its noun, in the singular for exactly one:
// plural(1, "file", "files") is "1 file", plural(0, ...) "0 files". Both
// forms are given: English plurals are not all an added "s" (entries),
// and a noun may carry its verb ("file lacks", "files lack"). For text
// only; JSON keeps its numbers.
func plural[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
