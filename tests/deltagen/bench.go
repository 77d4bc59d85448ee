package deltagen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/deltafs/deltafs/replay/action"
)

// BenchSchema is the schema of bench tables: id, value, ts and the
// partition column date.
const BenchSchema = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":false,"metadata":{}},` +
	`{"name":"value","type":"string","nullable":true,"metadata":{}},` +
	`{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},` +
	`{"name":"date","type":"string","nullable":true,"metadata":{}}]}`

// BenchOptions shape a bench table. Zero fields take the defaults.
type BenchOptions struct {
	Files             int // add actions in the checkpoint (default 1,000,000)
	Partitions        int // distinct date partitions (default 100)
	CheckpointVersion int64
	TailCommits       int // JSON commits after the checkpoint (default 9, negative: none)
	RowGroupRows      int // checkpoint row-group size (default 128Ki)
	DataPageVersion   int // checkpoint data pages: 1, or 2 (the default)
	Parts             int // >1: multi-part checkpoint in that many parts
	Seed              uint64
	// ColumnMapping writes a column-mapped table ('name' mode): physical
	// column names col-*, partition values keyed by them, files under
	// random two-letter prefixes as Spark writes them.
	ColumnMapping bool
	// EscapedPaths puts the files under folders of a timestamp-like value,
	// escaped in the log as Spark writes a partition value with a space
	// and ':' ("date=2024-01-01%2000%253A00/part-..." for the folder
	// "date=2024-01-01 00%3A00").
	EscapedPaths bool
}

// BenchSchemaMapped is BenchSchema under column mapping.
const BenchSchemaMapped = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":false,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-0b7c2d1e-id"}},` +
	`{"name":"value","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-5e9f-value"}},` +
	`{"name":"ts","type":"timestamp","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-8a1c-ts"}},` +
	`{"name":"date","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":4,"delta.columnMapping.physicalName":"col-3d4e-date"}}]}`

// BenchInfo describes a bench table written by WriteBenchTable.
type BenchInfo struct {
	Checkpoint    *CheckpointInfo
	LatestVersion int64
	LiveFiles     int64 // live add actions at LatestVersion
}

// BenchTable writes a log-only table under dir whose classic checkpoint at
// version 10 holds files add actions spread over partitions date partitions,
// with realistic stats, followed by 9 JSON commits and _last_checkpoint.
// No data files are written. files <= 0 means 1,000,000.
func BenchTable(dir string, files, partitions int) error {
	_, err := WriteBenchTable(dir, BenchOptions{Files: files, Partitions: partitions})
	return err
}

// WriteBenchTable is BenchTable with all options. The log holds the
// checkpoint at CheckpointVersion (default 10), a commit file at that version
// carrying only commitInfo (earlier commits count as cleaned up), then
// TailCommits commits, each adding one file and removing one checkpointed
// file, and _last_checkpoint.
func WriteBenchTable(dir string, o BenchOptions) (*BenchInfo, error) {
	if o.Files <= 0 {
		o.Files = 1_000_000
	}
	if o.Partitions <= 0 {
		o.Partitions = 100
	}
	if o.CheckpointVersion <= 0 {
		o.CheckpointVersion = 10
	}
	if o.TailCommits < 0 {
		o.TailCommits = 0
	} else if o.TailCommits == 0 {
		o.TailCommits = 9
	}
	g := newBenchGen(o)
	t := New(dir)
	cv := o.CheckpointVersion
	var opts []CheckpointOption
	if o.RowGroupRows > 0 {
		opts = append(opts, WithRowGroupRows(o.RowGroupRows))
	}
	if o.DataPageVersion > 0 {
		opts = append(opts, WithDataPageVersion(o.DataPageVersion))
	}
	cfg := newPQConfig(opts)

	proto, meta := Protocol(1, 2, nil, nil), Metadata(BenchSchema, []string{"date"}, nil)
	if o.ColumnMapping {
		proto, meta = MappedProtocol(), Metadata(BenchSchemaMapped, []string{"date"}, MappedConfig("name"))
	}
	head := toCpRows([]action.Action{proto, meta})
	info := &CheckpointInfo{Version: cv, Size: int64(len(head) + o.Files), NumAdds: int64(o.Files)}
	parts := max(o.Parts, 1)
	for p := 1; p <= parts; p++ {
		lo, hi := split(o.Files, parts, p-1)
		pending := []cpRow(nil)
		if p == 1 {
			pending = head
		}
		next := lo
		src := func(buf []cpRow) int {
			n := copy(buf, pending)
			pending = pending[n:]
			for ; n < len(buf) && next < hi; n++ {
				buf[n] = cpRow{Add: g.add(next)}
				next++
			}
			return n
		}
		name := t.ClassicCheckpointPath(cv)
		if o.Parts > 1 {
			name = t.CheckpointPartPath(cv, p, parts)
			info.Parts = parts
		}
		size, err := writeParquet(name, cfg, src)
		if err != nil {
			return nil, fmt.Errorf("deltagen: bench checkpoint: %w", err)
		}
		info.Files = append(info.Files, name)
		info.SizeInBytes += size
	}

	// The in-memory history is only the tail: the checkpoint stands for the rest.
	ts := g.baseTime.UnixMilli()
	if err := t.CommitAt(cv, CommitInfo("WRITE", ts+cv*1000)); err != nil {
		return nil, err
	}
	for i := 1; i <= o.TailCommits; i++ {
		a := g.add(o.Files + i - 1)
		add := action.Action{Add: &action.Add{
			Path: a.Path, PartitionValues: a.PartitionValues, Size: a.Size,
			ModificationTime: a.ModificationTime, DataChange: true, Stats: a.Stats,
		}}
		rm := Remove(g.add(i-1).Path, ts+(cv+int64(i))*1000)
		if _, err := t.Commit(CommitInfo("MERGE", ts+(cv+int64(i))*1000), add, rm); err != nil {
			return nil, err
		}
	}
	if err := t.WriteLastCheckpointFor(info); err != nil {
		return nil, err
	}
	return &BenchInfo{Checkpoint: info, LatestVersion: t.NextVersion() - 1, LiveFiles: int64(o.Files)}, nil
}

// benchGen produces the i-th add action of a bench table deterministically.
type benchGen struct {
	o        BenchOptions
	parts    []map[string]*string
	dates    []string
	baseTime time.Time
	buf      []byte
}

func newBenchGen(o BenchOptions) *benchGen {
	g := &benchGen{o: o,
		baseTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	for p := 0; p < o.Partitions; p++ {
		d := g.baseTime.AddDate(0, 0, p).Format("2006-01-02")
		g.dates = append(g.dates, d)
		key := "date"
		if o.ColumnMapping {
			key = "col-3d4e-date"
		}
		g.parts = append(g.parts, map[string]*string{key: Str(d)})
	}
	return g
}

// add returns the checkpoint add for file i: path
// date=<d>/part-<i>-<uuid>.c000.snappy.parquet and stats on id, value, ts.
func (g *benchGen) add(i int) *cpAdd {
	p := i % g.o.Partitions
	// A generator seeded by (seed, i), so file i is the same on every call.
	rng := rand.New(rand.NewPCG(g.o.Seed, uint64(i)))
	var id [16]byte
	for k := 0; k < 16; k += 8 {
		v := rng.Uint64()
		for j := 0; j < 8; j++ {
			id[k+j] = byte(v >> (8 * j))
		}
	}
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	path := "date=" + g.dates[p] + "/part-" + pad5(i) + "-" + formatUUID(id) + ".c000.snappy.parquet"
	if g.o.EscapedPaths {
		path = "date=" + g.dates[p] + "%2000%253A00/part-" + pad5(i) + "-" + formatUUID(id) + ".c000.snappy.parquet"
	}
	if g.o.ColumnMapping {
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		path = string(letters[id[0]%52]) + string(letters[id[1]%52]) + "/part-" + pad5(i) + "-" + formatUUID(id) + ".c000.snappy.parquet"
	}
	rows := int64(1000 + rng.IntN(100000))
	lo := int64(i) * 1_000_000
	hi := lo + rows - 1
	day := g.baseTime.AddDate(0, 0, p)
	tsLo := day.Add(time.Duration(rng.IntN(3600)) * time.Second).Format("2006-01-02T15:04:05.000Z")
	tsHi := day.Add(time.Duration(20*3600+rng.IntN(3600)) * time.Second).Format("2006-01-02T15:04:05.000Z")
	b := g.buf[:0]
	b = append(b, `{"numRecords":`...)
	b = strconv.AppendInt(b, rows, 10)
	b = append(b, `,"minValues":{"id":`...)
	b = strconv.AppendInt(b, lo, 10)
	b = append(b, `,"value":"a`...)
	b = strconv.AppendInt(b, lo%997, 10)
	b = append(b, `","ts":"`...)
	b = append(b, tsLo...)
	b = append(b, `"},"maxValues":{"id":`...)
	b = strconv.AppendInt(b, hi, 10)
	b = append(b, `,"value":"z`...)
	b = strconv.AppendInt(b, hi%997, 10)
	b = append(b, `","ts":"`...)
	b = append(b, tsHi...)
	b = append(b, `"},"nullCount":{"id":0,"value":`...)
	b = strconv.AppendInt(b, int64(rng.IntN(50)), 10)
	b = append(b, `,"ts":0}}`...)
	g.buf = b
	return &cpAdd{
		Path:             path,
		PartitionValues:  g.parts[p],
		Size:             rows*48 + 4096,
		ModificationTime: g.baseTime.UnixMilli() + int64(i),
		DataChange:       false,
		Stats:            string(b),
	}
}

func pad5(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 5 {
		s = "0" + s
	}
	return s
}

// LongLog writes a table of commits commit files (versions 0..commits-1):
// version 0 creates the table, every later version adds one file (and every
// tenth also removes an earlier one). With checkpointEvery > 0 it writes a
// classic checkpoint at every multiple of checkpointEvery and
// _last_checkpoint for the newest. No data files are written.
func LongLog(dir string, commits, checkpointEvery int) (*Table, error) {
	t := New(dir)
	base := int64(1704067200000) // 2024-01-01
	if commits < 1 {
		return t, nil
	}
	if _, err := t.Commit(CommitInfo("CREATE TABLE", base), Protocol(1, 2, nil, nil), Metadata(SimpleSchema, nil, nil)); err != nil {
		return nil, err
	}
	var last *CheckpointInfo
	for v := int64(1); v < int64(commits); v++ {
		ts := base + v*1000
		acts := []action.Action{
			CommitInfo("WRITE", ts),
			AddFile(longLogPath(v), 1024+v, ts, nil, Stats(v*100, v*100+99)),
		}
		if v%10 == 0 {
			acts = append(acts, Remove(longLogPath(v-5), ts))
		}
		if _, err := t.Commit(acts...); err != nil {
			return nil, err
		}
		if checkpointEvery > 0 && v%int64(checkpointEvery) == 0 {
			info, err := t.Checkpoint(v)
			if err != nil {
				return nil, err
			}
			last = info
		}
	}
	if last != nil {
		if err := t.WriteLastCheckpointFor(last); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// longLogPath is the path of the file LongLog adds at version v.
func longLogPath(v int64) string {
	return fmt.Sprintf("part-%08d.parquet", v)
}

// WriteJSONLog writes a table whose log is commits JSON commits and no
// checkpoint, each commit adding addsPerCommit files of a bench table
// (paths under 100 date partitions, Spark-like stats): the shape of a
// table that never checkpoints. No data files are written.
func WriteJSONLog(dir string, commits, addsPerCommit int) error {
	g := newBenchGen(BenchOptions{Partitions: 100})
	t := New(dir)
	ts := g.baseTime.UnixMilli()
	for v := 0; v < commits; v++ {
		acts := []action.Action{CommitInfo("WRITE", ts+int64(v)*1000)}
		if v == 0 {
			acts = append(acts, Protocol(1, 2, nil, nil), Metadata(BenchSchema, []string{"date"}, nil))
		}
		for k := 0; k < addsPerCommit; k++ {
			a := g.add(v*addsPerCommit + k)
			acts = append(acts, AddFile(EncodePath(a.Path), a.Size, a.ModificationTime, a.PartitionValues, a.Stats))
		}
		if _, err := t.Commit(acts...); err != nil {
			return err
		}
	}
	return nil
}
