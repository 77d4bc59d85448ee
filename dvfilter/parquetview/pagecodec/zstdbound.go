package pagecodec

import (
	"github.com/klauspost/compress/zstd"
)

// zstdBlockMax is the most one zstd block decodes to (RFC 8878, 3.1.1.2.4).
const zstdBlockMax = 128 << 10

// ZstdBound walks the frames of src, reading headers only, and returns
// the most they can decode to: a frame's content size where it gives one,
// else what its blocks can give (a raw or RLE block its size, a
// compressed one zstdBlockMax). The decoder fails a frame at the first
// block that takes it past its content size, so it may hold one block
// more before it stops. ok is false when src is not a sequence of whole
// frames.
func ZstdBound(src []byte) (n uint64, ok bool) {
	for len(src) > 0 {
		var h zstd.Header
		rest, err := h.DecodeAndStrip(src)
		if err != nil {
			return 0, false
		}
		if h.Skippable {
			if uint64(h.SkippableSize) > uint64(len(rest)) {
				return 0, false
			}
			src = rest[h.SkippableSize:]
			continue
		}
		blocks, rest, ok := blocksBound(rest)
		if !ok {
			return 0, false
		}
		if h.HasCheckSum {
			if len(rest) < 4 {
				return 0, false
			}
			rest = rest[4:]
		}
		if h.HasFCS {
			blocks = h.FrameContentSize
		}
		if n+blocks < n {
			return 0, false // overflows: no page is that large
		}
		n, src = n+blocks, rest
	}
	return n, true
}

// blocksBound walks the blocks of one frame, src starting at its first
// block header, and returns the most they decode to and the bytes after
// the last block.
func blocksBound(src []byte) (n uint64, rest []byte, ok bool) {
	for {
		if len(src) < 3 {
			return 0, nil, false
		}
		h := uint32(src[0]) | uint32(src[1])<<8 | uint32(src[2])<<16
		last, kind, size := h&1 != 0, (h>>1)&3, int(h>>3)
		src = src[3:]
		if size > zstdBlockMax {
			return 0, nil, false
		}
		stored := size
		switch kind {
		case 0: // raw
			n += uint64(size)
		case 1: // RLE: one byte, repeated size times
			n, stored = n+uint64(size), 1
		case 2: // compressed
			n += zstdBlockMax
		default:
			return 0, nil, false
		}
		if stored > len(src) {
			return 0, nil, false
		}
		src = src[stored:]
		if last {
			return n, src, true
		}
	}
}
