package replay

import "testing"

func FuzzParseLogFile(f *testing.F) {
	for _, s := range []string{
		"_delta_log/00000000000000000010.json",
		"_delta_log/00000000000000000010.checkpoint.parquet",
		"_delta_log/00000000000000000010.checkpoint.0000000001.0000000003.parquet",
		"_delta_log/00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
		"_delta_log/00000000000000000010.00000000000000000020.compacted.json",
		"_delta_log/._00000000000000000010.json",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		lf, ok := ParseLogFile(key, 1, 1)
		if !ok {
			return
		}
		if lf.Version < 0 || lf.Key != key {
			t.Fatalf("%q: %+v", key, lf)
		}
		if lf.Kind == Commit && CommitKey(lf.Version) != key {
			t.Fatalf("%q parsed as commit %d", key, lf.Version)
		}
		if lf.Part < 0 || lf.Part > lf.Parts {
			t.Fatalf("%q: part %d of %d", key, lf.Part, lf.Parts)
		}
	})
}
