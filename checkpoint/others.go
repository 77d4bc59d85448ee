package checkpoint

import (
	"github.com/deltafs/deltafs/replay/action"
)

// others decodes the rows that are not file actions. They are few (one
// protocol, one metaData, a handful of txn and domain rows, the sidecars), so
// clarity wins over speed here.
func (g *rowGroup) others(rows int, res *Result) error {
	c := g.c
	present := func(l *leaf) bool { return l.hasValues() }
	if present(g.leaves[c.protoReader]) {
		r, w := g.cur(c.protoReader), g.cur(c.protoWriter)
		rf, wf := g.rep(c.protoReaderFeatures), g.rep(c.protoWriterFeatures)
		for i := 0; i < rows; i++ {
			minR, ok := r.int(i)
			if !ok {
				continue
			}
			minW, _ := w.int(i)
			p := &action.Protocol{MinReaderVersion: int(minR), MinWriterVersion: int(minW)}
			if rf.l != nil {
				p.ReaderFeatures = rf.strings(i)
			}
			if wf.l != nil {
				p.WriterFeatures = wf.strings(i)
			}
			res.Actions = append(res.Actions, action.Action{Protocol: p})
		}
	}
	if present(g.leaves[c.mdID]) {
		id, name, desc, prov, schema := g.cur(c.mdID), g.cur(c.mdName), g.cur(c.mdDescription), g.cur(c.mdProvider), g.cur(c.mdSchema)
		created := g.cur(c.mdCreated)
		pcols, ck, cv := g.rep(c.mdPartitionColumns), g.rep(c.mdConfKey), g.rep(c.mdConfValue)
		for i := 0; i < rows; i++ {
			idv, ok := id.str(i)
			if !ok {
				continue
			}
			m := &action.Metadata{ID: idv, PartitionColumns: []string{}}
			m.Name, _ = name.str(i)
			m.Description, _ = desc.str(i)
			m.Format.Provider, _ = prov.str(i)
			m.SchemaString, _ = schema.str(i)
			if t, ok := created.int(i); ok {
				m.CreatedTime = &t
			}
			if pcols.l != nil {
				m.PartitionColumns = append(m.PartitionColumns, pcols.strings(i)...)
			}
			if ck.l != nil {
				m.Configuration = stringMap(ck, cv, i)
			}
			res.Actions = append(res.Actions, action.Action{Metadata: m})
		}
	}
	if present(g.leaves[c.txnAppID]) {
		app, ver, last := g.cur(c.txnAppID), g.cur(c.txnVersion), g.cur(c.txnLastUpdated)
		for i := 0; i < rows; i++ {
			a, ok := app.str(i)
			if !ok {
				continue
			}
			t := &action.Txn{AppID: a}
			t.Version, _ = ver.int(i)
			if lu, ok := last.int(i); ok {
				t.LastUpdated = &lu
			}
			res.Actions = append(res.Actions, action.Action{Txn: t})
		}
	}
	if present(g.leaves[c.dmDomain]) {
		dom, conf, rem := g.cur(c.dmDomain), g.cur(c.dmConfig), g.cur(c.dmRemoved)
		for i := 0; i < rows; i++ {
			d, ok := dom.str(i)
			if !ok {
				continue
			}
			dm := &action.DomainMetadata{Domain: d, Removed: rem.bool(i)}
			dm.Configuration, _ = conf.str(i)
			res.Actions = append(res.Actions, action.Action{DomainMetadata: dm})
		}
	}
	g.sidecars(rows, res)
	if present(g.leaves[c.cmVersion]) {
		ver := g.cur(c.cmVersion)
		for i := 0; i < rows; i++ {
			if v, ok := ver.int(i); ok {
				res.Actions = append(res.Actions, action.Action{CheckpointMetadata: &action.CheckpointMetadata{Version: v}})
			}
		}
	}
	return nil
}

// sidecars decodes the sidecar rows.
func (g *rowGroup) sidecars(rows int, res *Result) {
	c := g.c
	if !g.leaves[c.scPath].hasValues() {
		return
	}
	path, size, mtime := g.cur(c.scPath), g.cur(c.scSize), g.cur(c.scModTime)
	for i := 0; i < rows; i++ {
		p, ok := path.str(i)
		if !ok {
			continue
		}
		s := &action.Sidecar{Path: p}
		s.SizeInBytes, _ = size.int(i)
		s.ModificationTime, _ = mtime.int(i)
		res.Actions = append(res.Actions, action.Action{Sidecar: s})
	}
}

// stringMap reads row i of a map<string,string> column.
func stringMap(keys, vals *repCursor, i int) map[string]string {
	ks, ke, kv := keys.rowAt(i)
	_, _, vv := vals.rowAt(i)
	m := map[string]string{}
	for j := ks; j < ke; j++ {
		if !keys.l.present(j) {
			continue
		}
		k := keys.l.str(kv)
		kv++
		if vals.l.present(j) {
			m[k] = vals.l.str(vv)
			vv++
		} else {
			m[k] = ""
		}
	}
	return m
}
