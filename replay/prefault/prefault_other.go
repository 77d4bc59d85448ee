//go:build !linux

package prefault

// Slice does nothing here (see prefault_linux.go).
func Slice[T any](s []T) {}
