package layout

import (
	"bytes"
	"encoding/json"
	"strings"
)

// sparkFields gives the top-level fields of a Delta schema, by name, as
// Spark's schema JSON has them (Delta's schema is Spark's StructType in
// JSON), each field's metadata left out at every depth: column mapping's
// ids and physical names say nothing of a served file. Spark's reader
// takes a file's schema from them (parquetview.Column.SparkField).
func sparkFields(schemaString string) (map[string]string, error) {
	var schema struct {
		Fields []json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal([]byte(schemaString), &schema); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(schema.Fields))
	for _, raw := range schema.Fields {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber() // numbers as written
		var field map[string]any
		if err := d.Decode(&field); err != nil {
			return nil, err
		}
		withoutMetadata(field)
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if err := e.Encode(field); err != nil {
			return nil, err
		}
		name, _ := field["name"].(string)
		out[name] = strings.TrimSuffix(b.String(), "\n")
	}
	return out, nil
}

// withoutMetadata empties the metadata of every field in v.
func withoutMetadata(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if k == "metadata" {
				v[k] = map[string]any{}
			} else {
				withoutMetadata(c)
			}
		}
	case []any:
		for _, c := range v {
			withoutMetadata(c)
		}
	}
}
