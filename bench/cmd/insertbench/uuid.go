//go:build idkit_uuid

package main

import (
	"slices"

	"github.com/idkit-go/idkit/types"
)

// uuidRow is keyed by idkit's UUIDv7, which the plugin fills with no option.
type uuidRow struct {
	ID      types.UUID `gorm:"primaryKey"`
	Payload string
}

func init() {
	k := keyKind{
		name: "uuidv7", label: uuidv7Label,
		column: map[string]string{
			"postgres": "uuid PRIMARY KEY",
			"mariadb":  "BINARY(16) PRIMARY KEY",
			"sqlite":   "BLOB PRIMARY KEY",
		},
		newRaw: func() func() (any, error) {
			return func() (any, error) { return types.NewUUIDv7(), nil }
		},
		gorm: inserter(func(r *uuidRow) { r.ID = types.UUID{} }, func(r *uuidRow, p string) { r.Payload = p }),
	}
	i := slices.IndexFunc(allKeys, func(k keyKind) bool { return k.name == "objectid" })
	allKeys = slices.Insert(allKeys, i+1, k)
}
