package layout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// NullPartition is the folder value of a null (or empty) partition value,
// as Spark and Hive write it.
const NullPartition = "__HIVE_DEFAULT_PARTITION__"

// partitionDirs returns, for a partitioned table, the function giving file
// i its folders ("year=2024/month=1/"); for another table, one giving "".
func partitionDirs(md *action.Metadata, p *action.Protocol, parts []*replay.Partition, files int) (func(int) (string, error), error) {
	if len(md.PartitionColumns) == 0 {
		return func(int) (string, error) { return "", nil }, nil
	}
	if len(parts) != files {
		return nil, fmt.Errorf("partition values of %d files for %d files", len(parts), files)
	}
	fields, err := ParseSchema(md.SchemaString)
	if err != nil {
		return nil, err
	}
	mapped := mappingMode(md, p) != ""
	// Each partition column: its folder prefix and the key its values have
	// in partitionValues (the physical name under column mapping).
	type column struct{ prefix, key string }
	cols := make([]column, len(md.PartitionColumns))
	for i, name := range md.PartitionColumns {
		cols[i] = column{prefix: escapeColumnName(name) + "=", key: name}
		if f := Find(fields, name); f != nil {
			cols[i].prefix = escapeColumnName(f.Name) + "=" // the schema's case
			if mapped {
				cols[i].key = f.Physical
			}
		}
	}
	// Interned partitions repeat: build each one's folders once.
	memo := map[*replay.Partition]string{}
	return func(i int) (string, error) {
		p := parts[i]
		if d, ok := memo[p]; ok {
			return d, nil
		}
		var b strings.Builder
		for _, c := range cols {
			value, null := lookup(p, c.key)
			b.WriteString(c.prefix)
			switch {
			case null || value == "":
				b.WriteString(NullPartition)
			case value == NullPartition:
				// The string itself, not a null: its first byte escaped.
				// DuckDB and Spark compare a folder's value with the
				// null name before decoding it, so they read the string;
				// pyarrow and Polars decode first and read a null, as
				// they would from the folder Spark writes.
				b.WriteString("%5F" + NullPartition[1:])
			default:
				b.WriteString(escapeValue(value))
			}
			b.WriteByte('/')
		}
		memo[p] = b.String()
		return memo[p], nil
	}, nil
}

// IsPartitionColumn reports whether the top-level column name is one of
// the table's partition columns, named in any case.
func IsPartitionColumn(md *action.Metadata, name string) bool {
	return slices.ContainsFunc(md.PartitionColumns, func(c string) bool { return strings.EqualFold(c, name) })
}

// lookup finds a partition column's value, under a key that differs in
// case alone where none is exact; a column absent from the map is null, as
// PROTOCOL.md allows.
func lookup(p *replay.Partition, key string) (value string, null bool) {
	if p == nil {
		return "", true
	}
	if i := indexOfName(len(p.Values), func(i int) string { return p.Values[i].Column }, key); i >= 0 {
		return p.Values[i].Value, p.Values[i].Null
	}
	return "", true
}

// escapeValue escapes a partition value for a folder name as Spark
// does (ExternalCatalogUtils.escapePathName): control characters (NUL too,
// which no file name can hold) and "#%'*/:=?\{[]^ and DEL become %XX;
// everything else, non-ASCII included, stays. Every reader decodes values.
func escapeValue(s string) string {
	return escapeBytes(s, func(_ int, c byte) bool {
		return isControl(c) || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0
	})
}

// escapeColumnName escapes a partition column's name for its folder, less
// than a value: DuckDB and Polars do not decode names ("p%23h=" is their
// column "p%23h"), so only what some reader misreads unescaped is escaped:
// "%" (pyarrow and Spark decode it), "/" and "=" (the folder's own
// syntax), "\" (DuckDB finds no file under it), "?" (DuckDB drops the
// column), control characters, and a leading "_" or "." (pyarrow skips
// such folders and every file in them).
func escapeColumnName(s string) string {
	return escapeBytes(s, func(i int, c byte) bool {
		return isControl(c) || strings.IndexByte("%/=\\?", c) >= 0 || i == 0 && (c == '_' || c == '.')
	})
}

func isControl(c byte) bool { return c <= 0x1f || c == 0x7f }

// escapeBytes writes the bytes at which escape holds as %XX.
func escapeBytes(s string, escape func(i int, c byte) bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; escape(i, c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
