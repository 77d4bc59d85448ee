package replay

import (
	"strconv"
	"strings"

	"github.com/deltafs/deltafs/checkpoint"
)

// LogDir is the folder of the transaction log under the table root.
const LogDir = "_delta_log/"

// FileKind tells what a file in _delta_log is.
type FileKind int

const (
	Commit FileKind = iota
	CheckpointFile
	Compaction
)

// LogFile is a recognised file of _delta_log.
type LogFile struct {
	Key     string // under the table root, e.g. _delta_log/00000000000000000042.json
	Version int64
	Kind    FileKind
	Size    int64
	ModTime int64 // milliseconds since the epoch

	// For checkpoints: which kind, and for multi-part ones the part number
	// and the number of parts.
	Checkpoint  checkpoint.Kind
	Part, Parts int
	// For compactions: the last version covered (Version is the first).
	EndVersion int64
}

// CommitKey is the key of the commit file of version v.
func CommitKey(v int64) string { return LogDir + Padded(v) + ".json" }

// Padded is a version as the log spells it: 20 digits, zero-padded.
func Padded(v int64) string {
	s := strconv.FormatInt(v, 10)
	return strings.Repeat("0", 20-len(s)) + s
}

// ParseLogFile recognises a key of _delta_log. Files it does not know (CRC
// files, temporary files, "._" files from macOS) give ok == false.
func ParseLogFile(key string, size, modTime int64) (LogFile, bool) {
	name, found := strings.CutPrefix(key, LogDir)
	if !found || len(name) < 21 || name[20] != '.' {
		return LogFile{}, false
	}
	v, ok := parseDigits(name[:20])
	if !ok {
		return LogFile{}, false
	}
	f := LogFile{Key: key, Version: v, Size: size, ModTime: modTime}
	rest := name[21:]
	switch {
	case rest == "json":
		f.Kind = Commit
		return f, true
	case rest == "checkpoint.parquet":
		f.Kind, f.Checkpoint, f.Part, f.Parts = CheckpointFile, checkpoint.Classic, 1, 1
		return f, true
	case strings.HasPrefix(rest, "checkpoint."):
		return parseCheckpointSuffix(f, rest[len("checkpoint."):])
	case strings.HasSuffix(rest, ".compacted.json") && len(rest) == 20+len(".compacted.json"):
		end, ok := parseDigits(rest[:20])
		if !ok || end < v {
			return LogFile{}, false
		}
		f.Kind, f.EndVersion = Compaction, end
		return f, true
	}
	return LogFile{}, false
}

func parseCheckpointSuffix(f LogFile, s string) (LogFile, bool) {
	f.Kind = CheckpointFile
	// Multi-part: %010d.%010d.parquet
	if len(s) == 10+1+10+len(".parquet") && s[10] == '.' && strings.HasSuffix(s, ".parquet") {
		part, ok1 := parseDigits(s[:10])
		parts, ok2 := parseDigits(s[11:21])
		if !ok1 || !ok2 || part < 1 || part > parts {
			return LogFile{}, false
		}
		f.Checkpoint, f.Part, f.Parts = checkpoint.MultiPart, int(part), int(parts)
		return f, true
	}
	// V2: <uuid>.json or <uuid>.parquet
	uuid, ext, ok := strings.Cut(s, ".")
	if !ok || !isUUID(uuid) {
		return LogFile{}, false
	}
	switch ext {
	case "json":
		f.Checkpoint = checkpoint.V2JSON
	case "parquet":
		f.Checkpoint = checkpoint.V2Parquet
	default:
		return LogFile{}, false
	}
	f.Part, f.Parts = 1, 1
	return f, true
}

func parseDigits(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 19 && s[0] != '0' {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
		if n < 0 {
			return 0, false
		}
	}
	return n, true
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return true
}
