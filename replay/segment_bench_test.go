package replay

import "testing"

// BenchmarkHead: what a refresh that finds a commit spends on the listing
// of a long log (100,000 commits, a checkpoint every 10), under the
// table's lock.
func BenchmarkHead(b *testing.B) {
	var files []LogFile
	for v := int64(0); v < 100_000; v++ {
		if v%10 == 0 && v > 0 {
			f, _ := ParseLogFile(LogDir+Padded(v)+".checkpoint.parquet", 1000, v)
			files = append(files, f)
		}
		f, _ := ParseLogFile(CommitKey(v), 100, v)
		files = append(files, f)
	}
	b.ResetTimer()
	for b.Loop() {
		if Head(files) != 99_999 {
			b.Fatal("wrong head")
		}
	}
}
