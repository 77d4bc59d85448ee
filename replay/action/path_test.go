package action

import (
	"strings"
	"testing"
)

func TestCleanPath(t *testing.T) {
	const root = "file:///data/t"
	cases := []struct {
		raw, want string
		bad       bool
	}{
		{raw: "part-0.parquet", want: "part-0.parquet"},
		{raw: "date=2024-01-01/part%200.parquet", want: "date=2024-01-01/part 0.parquet"},
		{raw: "a%2Fb/c", want: "a/b/c"},
		{raw: "x=a%3Ab/p", want: "x=a:b/p"},
		{raw: "file:///data/t/sub/p.parquet", want: "sub/p.parquet"},
		{raw: "file:/data/t/sub/p%20q.parquet", want: "sub/p q.parquet"},
		{raw: "/data/t/p.parquet", want: "p.parquet"},
		{raw: "/elsewhere/p.parquet", want: "file:///elsewhere/p.parquet"},
		{raw: "file:/elsewhere/with%20space/p@%23h", want: "file:///elsewhere/with space/p@#h"},
		{raw: "s3://other/t/p.parquet", want: "s3://other/t/p.parquet"},
		{raw: "../p.parquet", bad: true},
		{raw: "..//Users/x/p.parquet", bad: true},
		{raw: "a/../../p", bad: true},
		{raw: "a/./p", bad: true},
		{raw: "a//p", want: "a/p"},
		{raw: "part=1//f.parquet", want: "part=1/f.parquet"},
		{raw: "a///b//c%20d", want: "a/b/c d"},
		{raw: "a%2F%2Fp", want: "a/p"},
		{raw: "file:///data/t//sub//p.parquet", want: "sub/p.parquet"},
		{raw: "/data/t//p.parquet", want: "p.parquet"},
		{raw: "a//./p", bad: true},
		{raw: "a//../p", bad: true},
		{raw: "a//", bad: true},
		{raw: "%2E%2E/p", bad: true},
		{raw: "a%2F..%2F..%2Fp", bad: true},
		{raw: "dir/", bad: true},
		{raw: "", bad: true},
		{raw: "bad%zz", bad: true},
		{raw: "file:///data/t/../u/p", bad: true},
		{raw: "file:///elsewhere/../etc/passwd", bad: true},
	}
	for _, c := range cases {
		got, err := CleanPath(c.raw, root)
		if c.bad {
			if err == nil {
				t.Errorf("CleanPath(%q) = %q, want an error", c.raw, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", c.raw, got, err, c.want)
		}
	}
	if !IsExternal("file:///elsewhere/p") || IsExternal("a/b") {
		t.Error("IsExternal")
	}
}

// A refused path says what is wrong with it: "a/./b" does not leave the
// table root.
func TestCleanPathSaysWhy(t *testing.T) {
	for _, c := range []struct{ raw, why string }{
		{"a/./p", `"." element`},
		{"../p", `leaves the table root (a ".." element)`},
		{"a/../../p", "leaves the table root"},
		{"a/../p", `has a ".." element (not canonical)`},
		{"dir/", "names a directory"},
		{"a%00b", "NUL"},
	} {
		_, err := CleanPath(c.raw, "file:///data/t")
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("CleanPath(%q): %v, want an error saying %s", c.raw, err, c.why)
		}
	}
}

func TestCleanPathS3Root(t *testing.T) {
	got, err := CleanPath("s3a://bucket/tables/t/p.parquet", "s3://bucket/tables/t")
	if err != nil || got != "p.parquet" {
		t.Errorf("got %q, %v", got, err)
	}
	got, err = CleanPath("/tables/t/p.parquet", "s3://bucket/tables/t")
	if err != nil || got != "p.parquet" {
		t.Errorf("got %q, %v", got, err)
	}
}

// Azure writers spell the container of an azblob:// root as
// abfss://container@account.dfs.core.windows.net (or wasbs://...blob...);
// outside the root, the container stays part of a file's identity.
func TestCleanPathAzureRoot(t *testing.T) {
	for _, c := range []struct{ raw, root, want string }{
		{"abfss://c@acct.dfs.core.windows.net/w/t/p.parquet", "azblob://c/w/t", "p.parquet"},
		{"wasbs://c@acct.blob.core.windows.net/w/t/d/p.parquet", "azblob://c/w/t", "d/p.parquet"},
		{"abfss://c@acct.dfs.core.windows.net/w/t/p.parquet", "azblob://c/w/t?storage_account=acct", "p.parquet"},
		{"abfss://c@other.dfs.core.windows.net/w/t/p.parquet", "azblob://c/w/t?storage_account=acct", "abfss://c@other.dfs.core.windows.net/w/t/p.parquet"},
		{"abfss://c2@acct.dfs.core.windows.net/w/t/p.parquet", "azblob://c/w/t", "abfss://c2@acct.dfs.core.windows.net/w/t/p.parquet"},
		{"abfss://c1@acct.dfs.core.windows.net/w/t/p.parquet", "s3://c1/w/t", "abfss://c1@acct.dfs.core.windows.net/w/t/p.parquet"},
	} {
		got, err := CleanPath(c.raw, c.root)
		if err != nil || got != c.want {
			t.Errorf("CleanPath(%q, %q) = %q, %v; want %q", c.raw, c.root, got, err, c.want)
		}
	}
	if _, err := KeyUnder("abfss://c@acct.dfs.core.windows.net/w/t/dv.bin", "azblob://c/w/t"); err != nil {
		t.Errorf("a deletion vector under the root: %v", err)
	}
}

func TestKeyUnder(t *testing.T) {
	for _, c := range []struct{ uri, want string }{
		{"file:///t/deletion_vector_1.bin", "deletion_vector_1.bin"},
		{"/t/dv/x%20y.bin", "dv/x y.bin"},
		{"file:/t/a.bin", "a.bin"},
		{"dv/rel.bin", "dv/rel.bin"},
		{"file:///elsewhere/dv.bin", ""},
		{"s3://bucket/t/dv.bin", ""},
		{"/t/../etc/passwd", ""},
	} {
		got, err := KeyUnder(c.uri, "file:///t")
		if c.want == "" {
			if err == nil {
				t.Errorf("KeyUnder(%q) = %q, want an error", c.uri, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("KeyUnder(%q) = %q, %v; want %q", c.uri, got, err, c.want)
		}
	}
}
