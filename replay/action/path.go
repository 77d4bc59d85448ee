package action

import (
	"fmt"
	"net/url"
	"strings"
)

// CleanPath turns the path of an add or remove action into the path of the
// file relative to the table root, '/'-separated and URI-decoded.
//
// An absolute path ("scheme://host/p", "file:/p", or "/p", which is
// qualified with the root's scheme and host as Delta writers do) that lies
// under root (the table root URL, no trailing slash) becomes relative too.
// One that lies elsewhere is returned in canonical form
// "scheme://host/decoded/path": an external file (see IsExternal), which the
// reader must not mistake for a file under the root. Empty elements are
// folded away ("a//b" is "a/b"); a path with ".." or "." elements is an
// error: no action may climb out of the table root.
func CleanPath(raw, root string) (string, error) {
	if plainRelative(raw) {
		return raw, nil
	}
	if p, ok := escapedRelative(raw); ok {
		return p, nil
	}
	return cleanPath(raw, root)
}

// escapedRelative is the common case after plainRelative: a relative
// path whose escapes are its only oddity (Spark's, for partition values
// with a space, a ':' or a '%'), decoded in one pass, as cleanPath would
// decode it. ok is false for anything else, a bad escape included: the
// careful path then says what is wrong.
func escapedRelative(raw string) (p string, ok bool) {
	if raw == "" || raw[0] == '/' || strings.IndexByte(raw, ':') >= 0 {
		return "", false // empty, absolute, or perhaps a scheme
	}
	var b strings.Builder
	b.Grow(len(raw))
	for rest := raw; rest != ""; {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			b.WriteString(rest)
			break
		}
		if i+2 >= len(rest) {
			return "", false
		}
		hi, lo := unhex(rest[i+1]), unhex(rest[i+2])
		if hi > 0xf || lo > 0xf {
			return "", false
		}
		b.WriteString(rest[:i])
		b.WriteByte(hi<<4 | lo)
		rest = rest[i+3:]
	}
	p = b.String()
	// What checkRelative's fast path accepts as it is.
	ok = p != "" && p[0] != '/' && p[0] != '.' && p[len(p)-1] != '/' && strings.IndexByte(p, 0) < 0 &&
		!strings.Contains(p, "/.") && !strings.Contains(p, "//")
	return p, ok
}

// unhex is the value of the hex digit c, or 0xff if c is none.
func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0xff
}

// cleanPath is CleanPath for any path, the careful way.
func cleanPath(raw, root string) (string, error) {
	if raw == "" {
		return "", fmt.Errorf("empty path")
	}
	if raw[0] == '/' {
		r, err := url.Parse(root)
		if err != nil {
			return "", fmt.Errorf("table root %q: %w", root, err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return "", fmt.Errorf("path %q: %w", raw, err)
		}
		u.Scheme, u.Host = r.Scheme, r.Host
		return absoluteUnder(raw, u, root)
	}
	if strings.Contains(raw, ":") {
		// Only "scheme:/..." is absolute; Spark encodes ':' in relative paths.
		if u, err := url.Parse(raw); err == nil && len(u.Scheme) > 1 && strings.HasPrefix(raw[len(u.Scheme):], ":/") {
			return absoluteUnder(raw, u, root)
		}
	}
	p := raw
	if strings.IndexByte(raw, '%') >= 0 {
		dec, err := url.PathUnescape(raw)
		if err != nil {
			return "", fmt.Errorf("path %q: %w", raw, err)
		}
		p = dec
	}
	return checkRelative(raw, p)
}

// plainRelative reports whether p is already a clean relative path, the
// common case, with a few byte scans: nothing to decode ('%'), no ':' that
// could start a scheme, no NUL, no trailing '/', and no element that is
// empty or starts with '.' (which covers "." and ".."). Anything else takes
// the careful path.
func plainRelative(p string) bool {
	if p == "" || p[0] == '.' || p[0] == '/' || p[len(p)-1] == '/' {
		return false
	}
	if strings.IndexByte(p, '%') >= 0 || strings.IndexByte(p, ':') >= 0 || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	for i := strings.IndexByte(p, '/'); i >= 0; {
		if c := p[i+1]; c == '.' || c == '/' { // p does not end in '/'
			return false
		}
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}

// checkRelative checks the decoded relative path p of raw. Empty elements
// are folded away ("a//b" is "a/b"), as Hadoop's Path (Spark) and delta-rs
// do, so that an add and a remove spelling one file either way match; "."
// and ".." are refused, as delta-rs refuses them.
func checkRelative(raw, p string) (string, error) {
	if p == "" || p[0] == '/' {
		return "", fmt.Errorf("path %q is not a relative path", raw)
	}
	if strings.HasSuffix(p, "/") {
		return "", fmt.Errorf("path %q names a directory", raw)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", raw)
	}
	// Fast path for the common case (called once per file of a
	// checkpoint): no element can be empty, "." or ".." when no element
	// starts with '.' and no "//" occurs.
	if p[0] != '.' && !strings.Contains(p, "/.") && !strings.Contains(p, "//") {
		return p, nil
	}
	depth, dotdot := 0, false
	for rest := p; rest != ""; {
		elem := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			elem, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch elem {
		case "":
		case ".":
			return "", fmt.Errorf("path %q has a \".\" element (not canonical)", raw)
		case "..":
			if depth--; depth < 0 {
				return "", fmt.Errorf("path %q leaves the table root (a \"..\" element)", raw)
			}
			dotdot = true
		default:
			depth++
		}
	}
	if dotdot {
		return "", fmt.Errorf("path %q has a \"..\" element (not canonical)", raw)
	}
	return foldEmptyElements(p), nil
}

// foldEmptyElements turns each run of '/' in p into one.
func foldEmptyElements(p string) string {
	if !strings.Contains(p, "//") {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i > 0 && p[i-1] == '/' {
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// absoluteUnder maps an absolute URI under root to a relative path, and
// one elsewhere to its canonical external form.
func absoluteUnder(raw string, u *url.URL, root string) (string, error) {
	r, err := url.Parse(root)
	if err != nil {
		return "", fmt.Errorf("table root %q: %w", root, err)
	}
	u.Path = foldEmptyElements(u.Path) // as for a relative path: "/t//p" is "/t/p"
	rootPath := strings.TrimSuffix(r.Path, "/") + "/"
	if sameLocation(u, r) && strings.HasPrefix(u.Path, rootPath) {
		return checkRelative(raw, u.Path[len(rootPath):])
	}
	if u.Path == "" || u.Path[0] != '/' || strings.Contains(u.Path, "/../") || strings.HasSuffix(u.Path, "/..") {
		return "", fmt.Errorf("path %q is not a canonical absolute path", raw)
	}
	external := u.Scheme + "://"
	if u.User != nil { // an Azure container (abfss://container@account...)
		external += u.User.String() + "@"
	}
	return external + u.Host + u.Path, nil
}

// KeyUnder maps an absolute path or URI (a 'p' deletion vector's
// pathOrInlineDv) to the key of a file under root, the table root URL; one
// that lies outside the root is refused.
func KeyUnder(uri, root string) (string, error) {
	rel, err := CleanPath(uri, root)
	if err != nil {
		return "", err
	}
	if IsExternal(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("%s lies outside the table root", uri)
	}
	return rel, nil
}

// IsExternal reports whether a cleaned path names a file outside the table
// root (an absolute URI).
func IsExternal(path string) bool { return strings.Contains(path, "://") }

// sameLocation reports whether the absolute URI u names the bucket or
// container of the table root r.
func sameLocation(u, r *url.URL) bool {
	a, b := storeOf(u), storeOf(r)
	return a.kind == b.kind && a.bucket == b.bucket && (a.account == "" || b.account == "" || a.account == b.account)
}

// store is the bucket or container a URI names, whatever the scheme
// spelling it: s3a:// and s3n:// name the buckets of s3://; Azure writers
// spell the container of azblob://container (the account from
// ?storage_account=, or not said) as abfss://container@account.dfs... or
// wasbs://container@account.blob...
type store struct{ kind, bucket, account string }

func storeOf(u *url.URL) store {
	switch scheme := strings.ToLower(u.Scheme); scheme {
	case "s3", "s3a", "s3n":
		return store{kind: "s3", bucket: u.Host}
	case "azblob":
		return store{kind: "azure", bucket: u.Host, account: u.Query().Get("storage_account")}
	case "abfs", "abfss", "wasb", "wasbs":
		account, _, _ := strings.Cut(u.Hostname(), ".")
		return store{kind: "azure", bucket: u.User.Username(), account: account}
	default:
		if u.User != nil {
			return store{kind: scheme, bucket: u.User.String() + "@" + u.Host}
		}
		return store{kind: scheme, bucket: u.Host}
	}
}

// LogicalKey is the reconciliation key of a file action: its raw path and,
// when it has one, its deletion vector's unique id.
func LogicalKey(rawPath, dvID string) string {
	if dvID == "" {
		return rawPath
	}
	return rawPath + "\x00" + dvID
}
