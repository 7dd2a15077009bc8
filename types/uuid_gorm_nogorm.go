//go:build idkit_nogorm

package types

// GormDataType returns GORM's "bytes" data type.
func (UUID) GormDataType() string { return "bytes" }

// GormDataType returns GORM's "bytes" data type.
func (NullUUID) GormDataType() string { return "bytes" }
