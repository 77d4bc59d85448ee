package thriftcheck

import (
	"fmt"

	"github.com/parquet-go/parquet-go/format"
)

// maxSchemaDepth bounds how deep a footer's schema may nest groups:
// parquet-go lays out its columns' paths in memory growing with the
// square of the depth before checking it (30,000 levels, a 240 KB file,
// took 7 GB).
const maxSchemaDepth = 100

// MaxTypeLength bounds the width of a FIXED_LEN_BYTE_ARRAY: parquet-go
// sizes buffers from it (a width of 2^31-1 took gigabytes).
const MaxTypeLength = 1 << 20

// Schema checks a decoded footer's schema before parquet-go opens the
// file: a tree (every group's children present) nesting at most 100
// deep, its fixed-length byte arrays no wider than MaxTypeLength.
func Schema(elems []format.SchemaElement) error {
	if len(elems) == 0 {
		return fmt.Errorf("schema: no root")
	}
	left := []int{1} // per open group, the children still to come
	for i, e := range elems {
		if len(left) == 0 {
			return fmt.Errorf("schema: %d elements past the root's tree", len(elems)-i)
		}
		left[len(left)-1]--
		if t, _ := e.Type.Get(); t == format.FixedLenByteArray {
			if w, _ := e.TypeLength.Get(); w < 0 || w > MaxTypeLength {
				return fmt.Errorf("schema: %q has values of %d bytes (at most %d)", e.Name, w, MaxTypeLength)
			}
		}
		if n32, _ := e.NumChildren.Get(); n32 > 0 {
			n := int(n32)
			if n > len(elems)-i-1 {
				return fmt.Errorf("schema: %q claims %d children, %d elements follow", e.Name, n, len(elems)-i-1)
			}
			if len(left) >= maxSchemaDepth {
				return fmt.Errorf("schema: groups nest more than %d deep", maxSchemaDepth)
			}
			left = append(left, n)
		}
		for len(left) > 0 && left[len(left)-1] == 0 {
			left = left[:len(left)-1]
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("schema: a group lacks %d children", left[len(left)-1])
	}
	return nil
}
