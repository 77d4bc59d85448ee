// Package stopsignal catches SIGINT, SIGTERM, SIGHUP and SIGQUIT from the
// first moment it can: its init runs before the packages main imports have
// done their own (about 16 ms of gRPC, AWS and GCS set-up), where main's
// own signal.Notify came after them. A shell starts a background job with
// SIGINT ignored, so a Ctrl-C or kill -INT in that window was dropped and
// the mount went on serving; in a foreground one it killed the process
// without a word.
//
// The package imports only os, os/signal and syscall, which keeps it near
// the front of Go's initialization order (packages are initialized in
// import path order, each once its imports are).
package stopsignal
