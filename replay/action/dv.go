package action

import "strconv"

// DeletionVector is a deletion-vector descriptor as stored in add and remove
// actions. Decoding the vector itself is dvfilter's job.
type DeletionVector struct {
	StorageType    string `json:"storageType"`
	PathOrInlineDv string `json:"pathOrInlineDv"`
	Offset         *int32 `json:"offset,omitempty"`
	SizeInBytes    int32  `json:"sizeInBytes"`
	Cardinality    int64  `json:"cardinality"`
	MaxRowIndex    *int64 `json:"maxRowIndex,omitempty"`
}

// UniqueID identifies the vector for reconciliation: the storage type and
// path or inline data, and "@offset" when an offset is set.
func (dv *DeletionVector) UniqueID() string {
	if dv == nil {
		return ""
	}
	id := dv.StorageType + dv.PathOrInlineDv
	if dv.Offset != nil {
		id += "@" + strconv.FormatInt(int64(*dv.Offset), 10)
	}
	return id
}
