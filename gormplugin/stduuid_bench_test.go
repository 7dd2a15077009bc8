//go:build go1.27

package gormplugin_test

import (
	"testing"
	"uuid"

	"gorm.io/gorm"
)

type fillStdUUID struct {
	ID   uuid.UUID
	Name string
}

func init() {
	moreFillBenchmarks = append(moreFillBenchmarks, func(b *testing.B, db *gorm.DB) {
		b.Run("stduuid", func(b *testing.B) {
			benchFill(b, db, func(r *fillStdUUID) { r.ID = uuid.UUID{} })
		})
	})
}
