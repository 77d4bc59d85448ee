// Package prefault maps the pages of a large new slice before it is
// filled. Building a snapshot fills slices of millions of entries (a
// checkpoint's files, a large commit's actions) on several cores at once;
// faulting their pages one by one while the collector runs costs an
// interrupt to every other core per page (prefault_linux.go says why).
package prefault
