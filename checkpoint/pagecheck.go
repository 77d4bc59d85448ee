package checkpoint

import (
	"bytes"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// checkPages walks the page headers of a column chunk and checks that every
// page lies inside the chunk and decompresses to a sane size, before
// parquet-go sizes its buffers from those same headers: a corrupt or hostile
// checkpoint then fails with an error instead of allocating gigabytes.
func checkPages(chunk []byte) error {
	r := bytes.NewReader(chunk)
	var proto thrift.CompactProtocol
	dec := thrift.NewDecoder(proto.NewReader(r))
	for r.Len() > 0 {
		var h format.PageHeader
		if err := dec.Decode(&h); err != nil {
			return fmt.Errorf("page header at byte %d: %w", len(chunk)-r.Len(), err)
		}
		size, full := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		if size < 0 || size > int64(r.Len()) {
			return fmt.Errorf("page of %d bytes overruns its column chunk (%d bytes left)", size, r.Len())
		}
		if full < 0 || full > maxExpansion*size+1<<20 {
			return fmt.Errorf("page of %d bytes claims %d bytes uncompressed", size, full)
		}
		// Levels are sized from the value count; run-length encoding lets
		// a small page hold many values, but not billions.
		if n := pageValues(&h); n < 0 || n > 64*full+1<<20 {
			return fmt.Errorf("page of %d bytes claims %d values", full, n)
		}
		if _, err := r.Seek(size, 1); err != nil {
			return err
		}
	}
	return nil
}

// checkChunks runs checkPages on the needed column chunks of a file.
func checkChunks(sf *sparseFile, chunks [][2]int64) error {
	for _, c := range chunks {
		s, ok := sf.covering(c[0], c[1])
		if !ok {
			return fmt.Errorf("column chunk at %d was not fetched", c[0])
		}
		if err := checkPages(s.data[c[0]-s.off : c[0]-s.off+c[1]]); err != nil {
			return fmt.Errorf("column chunk at %d: %w", c[0], err)
		}
	}
	return nil
}

func pageValues(h *format.PageHeader) int64 {
	switch {
	case h.DataPageHeader.Valid:
		return int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		v2 := h.DataPageHeaderV2.V
		return max(int64(v2.NumValues), int64(v2.NumRows), int64(v2.NumNulls))
	case h.DictionaryPageHeader.Valid:
		return int64(h.DictionaryPageHeader.V.NumValues)
	}
	return 0
}
