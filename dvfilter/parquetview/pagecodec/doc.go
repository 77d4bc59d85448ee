// Package pagecodec checks the compressed body of a Parquet page before
// parquet-go decodes it, and the counts its encoded levels and values
// claim (CheckValues, values.go), decodes zstd pages into no more than the room
// their header gives, and decodes and encodes the codec parquet-go lacks:
// LZ4 in Hadoop's framing (Spark's "lz4", hadooplz4.go), writing for
// parquet-go a copy of a file with those pages stored uncompressed
// (uncompressed.go).
//
// parquet-go's decoders trust what a page says. Its LZ4 decoder doubles
// its buffer for as long as a block fails to decode, without end; its
// Snappy decoder allocates the length a block claims; its zstd decoder
// allocates what a frame claims and, for a frame that does not say, grows
// with whatever the frame's blocks give (an RLE block gives 128 KiB from
// 4 bytes). One corrupt or hostile page could take all memory. Both
// readers of Parquet, the checkpoint reader and parquetview, check every
// page parquet-go will decode with Check and CheckValues; the package imports nothing of
// deltafs but thriftcheck.
package pagecodec
