package tests

// deltafs against real object-store servers on 127.0.0.1 (tests/servers):
// versitygw (s3://), fake-gcs-server (gs://) and Azurite (azblob://). A
// representative set of the shared tables is uploaded to each and must pass
// the oracle checks of oracle_test.go read through the server; the built
// binary mounts and lists tables from each, with the URL forms and
// environment variables README.md documents.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
	"github.com/deltafs/deltafs/versions"
)

// TestMain stops the object-store servers tests/servers started (they would
// die with this process anyway) and removes their folders.
func TestMain(m *testing.M) {
	code := m.Run()
	servers.StopAll()
	os.Exit(code)
}

// objectStoreTables cover each way a table can be laid out.
var objectStoreTables = []string{
	"delta-rs/data/simple_table",                                  // plain, many commits
	"dat/reader_tests/generated/basic_partitioned/delta",          // partition folders, a null partition
	"delta-rs/data/simple_table_with_checkpoint",                  // classic checkpoint + _last_checkpoint
	"delta-kernel-rs/golden_data/multi-part-checkpoint/delta",     // multi-part checkpoint
	"delta-kernel-rs/golden_data/v2-checkpoint-parquet/delta",     // v2 checkpoint, Parquet sidecars
	"delta-kernel-rs/golden_data/v2-checkpoint-json/delta",        // v2 checkpoint, JSON manifest
	"delta-rs/data/table_with_deletion_logs",                      // deletion vectors (files)
	"delta-kernel-rs/data/table-with-dv-small",                    // deletion vectors
	"delta-rs/data/checkpoints_vacuumed",                          // early commits cleaned up
	"delta-kernel-rs/golden_data/data-reader-escaped-chars/delta", // '%', '+', '"' in object keys
}

// uploadTable copies every file of a local table folder to st, keys
// relative to the folder.
func uploadTable(t testing.TB, st *blobstore.Store, dir string) int {
	t.Helper()
	var keys []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		keys = append(keys, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, 8)
	for _, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(k)))
			if err == nil {
				err = st.Write(ctx, k, data)
			}
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("upload %s: %v", dir, firstErr)
	}
	return len(keys)
}

// openAt opens a location and closes it when the test ends.
func openAt(t testing.TB, location string) *blobstore.Store {
	t.Helper()
	st, err := blobstore.Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestObjectStoreTables uploads the representative tables to each server
// and runs the oracle checks (every version: live files, visible rows from
// the Parquet footers read with ranged reads) through it.
func TestObjectStoreTables(t *testing.T) {
	dir := TestdataDir(t)
	inventory := map[string]InventoryTable{}
	for _, it := range LoadInventory(t, dir) {
		inventory[it.Table] = it
	}
	for _, name := range servers.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := servers.Start(t, name)
			for _, table := range objectStoreTables {
				it, ok := inventory[table]
				if !ok {
					t.Fatalf("%s is not in inventory.jsonl", table)
				}
				t.Run(table, func(t *testing.T) {
					t.Parallel()
					st := openAt(t, srv.Location("oracle/"+table))
					n := uploadTable(t, st, filepath.Join(dir, table))
					before := st.Counts()
					reason, refused := refusedTables[table]
					checkStore(t, st, it, refused, reason)
					c := st.Counts().Sub(before)
					t.Logf("%d objects uploaded; checking %d versions took %d GETs, %d LISTs, %d HEADs",
						n, len(it.Expects), c.Gets, c.Lists, c.Heads)
				})
			}
		})
	}
}

// TestObjectStoreMount mounts a table from each server with bin/deltafs
// (the URL forms of README.md) and compares every live file of latest, read
// through the mount, with the source bytes. The table has '%', '+' and '"'
// in its keys.
func TestObjectStoreMount(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	const table = "delta-kernel-rs/golden_data/data-reader-escaped-chars/delta"
	src := filepath.Join(TestdataDir(t), table)
	for _, name := range servers.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := servers.Start(t, name)
			location := srv.Location("mount/" + table)
			st := openAt(t, location)
			uploadTable(t, st, src)
			tbl, err := versions.Open(context.Background(), st, versions.Options{})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := tbl.Snapshot(context.Background(), tbl.Latest())
			if err != nil {
				t.Fatal(err)
			}
			if len(snap.Files) == 0 {
				t.Fatalf("%s: no live files at v%d", table, tbl.Latest())
			}

			mp := t.TempDir()
			p := startMount(t, bin, location, mp)
			p.ready(t)
			// Served under logical folders: found by their base names,
			// which the table's files do not share.
			names, err := walkFiles(filepath.Join(mp, "latest"))
			if err != nil {
				t.Fatal(err)
			}
			served := map[string]string{}
			for _, n := range names {
				served[path.Base(n)] = filepath.Join(mp, "latest", filepath.FromSlash(n))
			}
			for _, f := range snap.Files {
				want, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f.Path)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(served[path.Base(f.Path)])
				if err != nil {
					t.Errorf("read %s through the mount: %v", f.Path, err)
				} else if !bytes.Equal(got, want) {
					t.Errorf("%s through the mount: %d bytes differ from the source's %d", f.Path, len(got), len(want))
				}
			}
			p.stop(t, syscall.SIGTERM)
		})
	}
}

// TestObjectStoreMountServesViews: the same through each server for a
// table whose files are served as views (delta-rs's issue_1374: its
// timestamps stored as local date-times, served as instants), their
// footers read as the blocks the reads then find: each file reads whole,
// in its stored size, as Parquet whose timestamps are instants.
func TestObjectStoreMountServesViews(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	const table = "delta-rs/data/issue_1374"
	src := filepath.Join(TestdataDir(t), table)
	for _, name := range servers.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := servers.Start(t, name)
			location := srv.Location("views/" + table)
			uploadTable(t, openAt(t, location), src)
			mp := t.TempDir()
			p := startMount(t, bin, location, mp)
			p.ready(t)
			names, err := walkFiles(filepath.Join(mp, "latest"))
			if err != nil || len(names) == 0 {
				t.Fatalf("files %v: %v", names, err)
			}
			for _, n := range names {
				stored, err := os.Stat(filepath.Join(src, filepath.FromSlash(n)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join(mp, "latest", filepath.FromSlash(n)))
				if err != nil || int64(len(got)) != stored.Size() {
					t.Fatalf("%s through the mount: %d bytes (%v), stored %d", n, len(got), err, stored.Size())
				}
				pf, err := parquet.OpenFile(bytes.NewReader(got), int64(len(got)))
				if err != nil {
					t.Fatalf("%s: %v", n, err)
				}
				ts, ok := pf.Metadata().Schema[1].LogicalType.Value.(*format.TimestampType)
				if name := pf.Metadata().Schema[1].Name; !ok || !ts.IsAdjustedToUTC {
					t.Errorf("%s: first column %s served as %v, want an instant", n, name, pf.Metadata().Schema[1].LogicalType)
				}
			}
			p.stop(t, syscall.SIGTERM)
		})
	}
}

// TestObjectStoreURLForms runs `deltafs ls` with each location form README.md
// documents, settings given by URL query or by environment variables only.
func TestObjectStoreURLForms(t *testing.T) {
	bin := deltafsBin(t)
	const table = "dat/reader_tests/generated/basic_partitioned/delta"
	src := filepath.Join(TestdataDir(t), table)
	prefix := "forms/" + table

	type form struct {
		name     string
		server   string
		location func(srv *servers.Server) string
		env      func(srv *servers.Server) []string
	}
	forms := []form{
		{"s3 query", servers.VersityGW, func(s *servers.Server) string { return s.Location(prefix) }, nil},
		{"s3 legacy s3ForcePathStyle", servers.VersityGW, func(s *servers.Server) string {
			return "s3://" + servers.Bucket + "/" + prefix + "?endpoint=http://" + s.Addr + "&region=us-east-1&s3ForcePathStyle=true"
		}, nil},
		{"s3 endpoint and region from env", servers.VersityGW, func(s *servers.Server) string {
			return "s3://" + servers.Bucket + "/" + prefix + "?use_path_style=true"
		}, func(s *servers.Server) []string {
			return []string{"AWS_ENDPOINT_URL_S3=http://" + s.Addr, "AWS_REGION=us-east-1"}
		}},
		{"gs env", servers.FakeGCSServer, func(s *servers.Server) string { return s.Location(prefix) }, nil},
		{"azblob query", servers.Azurite, func(s *servers.Server) string { return s.Location(prefix) }, nil},
		{"azblob env", servers.Azurite, func(s *servers.Server) string {
			return "azblob://" + servers.Bucket + "/" + prefix
		}, func(s *servers.Server) []string {
			return []string{"AZURE_STORAGE_IS_LOCAL_EMULATOR=true", "AZURE_STORAGE_PROTOCOL=http", "AZURE_STORAGE_DOMAIN=" + s.Addr}
		}},
		{"azblob connection string", servers.Azurite, func(s *servers.Server) string {
			return "azblob://" + servers.Bucket + "/" + prefix + "?localemu=true&domain=" + s.Addr
		}, func(s *servers.Server) []string {
			return []string{"AZURE_STORAGE_KEY=", "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=http;AccountName=" +
				servers.AzuriteAccount + ";AccountKey=" + servers.AzuriteKey + ";BlobEndpoint=http://" + s.Addr + "/" + servers.AzuriteAccount + ";"}
		}},
	}
	want, err := exec.Command(bin, "ls", src).Output()
	if err != nil || len(want) == 0 {
		t.Fatalf("deltafs ls %s: %v", src, err)
	}
	uploaded := map[string]bool{}
	var mu sync.Mutex
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			srv := servers.Start(t, f.server)
			mu.Lock()
			if !uploaded[f.server] {
				uploadTable(t, openAt(t, srv.Location(prefix)), src)
				uploaded[f.server] = true
			}
			mu.Unlock()
			var extra []string
			if f.env != nil {
				extra = f.env(srv)
			}
			cmd := exec.Command(bin, "ls", f.location(srv))
			cmd.Env = append(os.Environ(), extra...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("deltafs ls %s: %v\n%s", f.location(srv), err, stderr.String())
			}
			if !bytes.Equal(got, want) {
				t.Errorf("deltafs ls %s:\n%s\nwant (from the local folder):\n%s", f.location(srv), got, want)
			}
			t.Logf("ok: %s %s", strings.Join(extra, " "), f.location(srv))
		})
	}
}

// TestObjectStoreMissingBucket: `deltafs ls` of a location whose bucket
// (container) does not exist says so, naming it, in one line and exit 1;
// it said "object not found", which sent users looking for a file.
func TestObjectStoreMissingBucket(t *testing.T) {
	bin := deltafsBin(t)
	for _, name := range servers.All {
		t.Run(name, func(t *testing.T) {
			srv := servers.Start(t, name)
			const bucket = "no-such-bucket"
			location := strings.Replace(srv.Location("t/events"), "://"+servers.Bucket+"/", "://"+bucket+"/", 1)
			want := `: bucket "` + bucket + `" does not exist`
			if name == servers.Azurite {
				want = `: container "` + bucket + `" does not exist`
			}
			cmd := exec.Command(bin, "ls", location)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if cmd.ProcessState.ExitCode() != 1 || len(out) != 0 || !strings.HasSuffix(stderr.String(), want+"\n") || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("deltafs ls %s: %v, stdout %q, stderr %q; want exit 1 and one line ending %q", location, err, out, stderr.String(), want)
			}
			t.Logf("%s", stderr.String())
		})
	}
}

// TestObjectStoreRefusedCredentials: a store refusing the credentials
// is said in one line, its status, code and message, and is not tried
// again (Azure's SDK text spans a dozen lines; versitygw answers an
// unknown key with a 404 gocloud calls Unknown, which was tried six
// times). The GCS emulator takes any credentials.
func TestObjectStoreRefusedCredentials(t *testing.T) {
	bin := deltafsBin(t)
	for _, c := range []struct{ server, env, want string }{
		{servers.VersityGW, "AWS_ACCESS_KEY_ID=no-such-key", ": the store answered 404 XAdminUserNotFound: No user exists with the provided access key ID."},
		{servers.Azurite, "AZURE_STORAGE_KEY=d3Jvbmcga2V5", ": the store answered 403 AuthorizationFailure: Server failed to authenticate the request."},
	} {
		t.Run(c.server, func(t *testing.T) {
			srv := servers.Start(t, c.server)
			cmd := exec.Command(bin, "ls", srv.Location("t/refused"))
			cmd.Env = append(os.Environ(), c.env)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if cmd.ProcessState.ExitCode() != 1 || len(out) != 0 || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("deltafs ls with %s: %v, stdout %q, stderr %q; want exit 1 and one line saying %q", c.env, err, out, stderr.String(), c.want)
			}
		})
	}
}

// TestObjectStoreLongLog serves a generated log of 2,100 commits
// (checkpoints at 1,000 and 2,000) from each server and opens its latest
// version, with _last_checkpoint and then without it, comparing with the
// local folder. Request counts are logged: Azure cannot start a listing at a
// key, so it pays for pages the others skip.
func TestObjectStoreLongLog(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads thousands of objects")
	}
	src := t.TempDir()
	if _, err := deltagen.LongLog(src, 2100, 1000); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	openLatest := func(t *testing.T, st *blobstore.Store) (int64, int, blobstore.Counts) {
		t.Helper()
		before := st.Counts()
		tbl, err := versions.Open(ctx, st, versions.Options{})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := tbl.Snapshot(ctx, tbl.Latest())
		if err != nil {
			t.Fatal(err)
		}
		return tbl.Latest(), len(snap.Files), st.Counts().Sub(before)
	}
	wantV, wantFiles, _ := openLatest(t, openAt(t, src))
	if wantV != 2099 {
		t.Fatalf("generated log: latest %d, want 2099", wantV)
	}
	for _, name := range servers.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := servers.Start(t, name)
			location := srv.Location("longlog")
			uploadTable(t, openAt(t, location), src)
			for _, hint := range []bool{true, false} {
				if !hint {
					if err := openAt(t, location).Delete(ctx, "_delta_log/_last_checkpoint"); err != nil {
						t.Fatal(err)
					}
				}
				v, files, c := openLatest(t, openAt(t, location))
				if v != wantV || files != wantFiles {
					t.Errorf("_last_checkpoint %v: latest v%d with %d files, want v%d with %d", hint, v, files, wantV, wantFiles)
				}
				// A whole listing of this log is 3 pages; probing may list more
				// pages in parallel, but a store that ignores start keys
				// (every probe reading from v0) costs hundreds.
				if c.Lists > 64 {
					t.Errorf("_last_checkpoint %v: %d LIST pages: does %s ignore the start key?", hint, c.Lists, name)
				}
				t.Logf("_last_checkpoint %-5v: open + snapshot of v%d: %d round trips, %d GETs, %d LISTs, %d HEADs, %d KiB",
					hint, v, c.Rounds, c.Gets, c.Lists, c.Heads, c.Bytes>>10)
			}
		})
	}
}
