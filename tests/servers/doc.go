// Package servers runs real object-store servers on 127.0.0.1 for tests:
// versitygw (S3, posix backend over a temporary folder), fake-gcs-server
// (Google Cloud Storage) and Azurite (Azure Blob Storage).
//
// The binaries live in a project-local cache (.cache/servers, or
// $DELTAFS_SERVERS_DIR) filled by install.sh, which `make servers` runs; a
// test that finds a binary missing runs install.sh itself. Each server is
// started at most once per test process, on a free port, the first time a
// test asks for it, and lives until StopAll or the end of the process (the
// kernel kills it when the test binary exits, even on a crash).
//
// Start also sets, in this process, the environment variables the cloud
// SDKs read for that server (credentials, STORAGE_EMULATOR_HOST): they are
// listed in Server.Env for child processes such as bin/deltafs.
package servers
