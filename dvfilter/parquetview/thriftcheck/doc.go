// Package thriftcheck walks a Thrift struct in the compact protocol, the
// encoding of a Parquet footer and page header, before parquet-go decodes
// it, and refuses one whose decoding could not end well.
//
// parquet-go's decoder trusts the sizes it reads. It allocates a list of
// as many elements as the list's header claims (2^31 structs of 560 bytes
// from a 9-byte footer: the process dies, out of memory) and recurses
// into nested structs without a limit (20 MB of struct headers overflow
// the goroutine's stack: the process dies again). Struct checks that
// every list, set and map claims no more elements than the bytes left
// could hold (each takes at least one), that nesting stays shallow, and
// tells how much memory decoding may take, so that every caller can
// refuse what is too big. It imports nothing of deltafs.
package thriftcheck
