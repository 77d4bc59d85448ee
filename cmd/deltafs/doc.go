// Command deltafs mounts a Delta Lake table as a read-only filesystem and
// inspects tables from the shell.
//
// main.go dispatches the commands and turns signals into exit codes
// (quitdump.go: the goroutine dump of SIGQUIT). Each command has a file of
// its own: mount.go (with mountpoint.go, serving.go and unmount.go:
// checking the mountpoint, waiting for the kernel, leaving), demo.go,
// inspect.go (versions, ls, history), schema.go, diff.go, doctor*.go and
// version.go. Shared by them: flags.go and choice.go (the command line,
// --version and --at), external.go (which files outside the table root
// are served), dv.go (served sizes of files with deletion vectors),
// logsink.go and retrylog.go (what reaches stderr), plural.go and
// interval.go.
package main
