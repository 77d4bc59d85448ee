package replay

import (
	"fmt"
	"strings"

	"github.com/deltafs/deltafs/replay/action"
)

// supportedReaderFeatures are the reader features deltafs implements.
// Features that only change how a reader decodes rows inside a file do not
// change which files and rows are live; of those, column names (column
// mapping) and widened types (type widening) are served as the table has
// them by versions/layout and dvfilter/parquetview, the others (new types)
// are the stored bytes. Deletion vectors are applied by dvfilter; v2
// checkpoints are read by checkpoint. Anything else, including
// catalog-managed tables whose newest commits live in a catalog, is refused.
var supportedReaderFeatures = map[string]bool{
	"columnMapping":            true,
	"deletionVectors":          true,
	"timestampNtz":             true,
	"v2Checkpoint":             true,
	"vacuumProtocolCheck":      true,
	"typeWidening":             true,
	"typeWidening-preview":     true,
	"variantType":              true,
	"variantType-preview":      true,
	"variantShredding":         true,
	"variantShredding-preview": true,
	"geospatial":               true,
}

// UnsupportedFeatureError names the reader features a table needs that
// deltafs does not implement.
type UnsupportedFeatureError struct {
	Features []string
}

func (e *UnsupportedFeatureError) Error() string {
	return fmt.Sprintf("table requires unsupported reader feature(s): %s", strings.Join(e.Features, ", "))
}

// CheckProtocol refuses a protocol deltafs cannot read correctly.
func CheckProtocol(p *action.Protocol) error {
	switch {
	case p.MinReaderVersion < 1:
		return fmt.Errorf("invalid protocol: minReaderVersion %d", p.MinReaderVersion)
	case p.MinWriterVersion < 1:
		return fmt.Errorf("invalid protocol: minWriterVersion %d", p.MinWriterVersion)
	case p.MinReaderVersion < 3:
		return nil
	}
	var missing []string
	for _, f := range p.ReaderFeatures {
		if !supportedReaderFeatures[f] {
			missing = append(missing, f)
		}
	}
	if p.MinReaderVersion > 3 {
		err := fmt.Errorf("unsupported protocol: minReaderVersion %d (deltafs reads up to 3)", p.MinReaderVersion)
		if len(missing) > 0 {
			err = fmt.Errorf("%w; %w", err, &UnsupportedFeatureError{Features: missing})
		}
		return err
	}
	if len(missing) > 0 {
		return &UnsupportedFeatureError{Features: missing}
	}
	return nil
}
