package main

import (
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// keyKind is one kind of primary key the benchmark inserts.
type keyKind struct {
	name  string // flag value
	label string // table row
	// column is the key column's DDL per database (the sequence's includes
	// its default).
	column map[string]string
	// seq means the database makes the key: the INSERT leaves the column out.
	seq bool
	// newRaw returns a maker of the next key, as the value database/sql is
	// given (the Go type a user would pass).
	newRaw func() func() (any, error)
	// gorm inserts rows [from, to) through GORM with the plugin; rows is a
	// buffer of the model kept between calls.
	gorm func() gormInserter
	// plugin returns the options of the plugin its GORM handle registers.
	plugin func() []gormplugin.Option
}

// gormInserter inserts n rows with the given payloads through db.
type gormInserter func(db *gorm.DB, payloads []string, batch int) error

var snowflakeGen = func() *generator.Snowflake {
	g, err := generator.NewSnowflake(1)
	if err != nil {
		panic(err)
	}
	return g
}()

// The GORM models: one per key kind, keyed as a user would declare them.
type (
	seqRow struct {
		ID      uint64 `gorm:"primaryKey"`
		Payload string
	}
	snowflakeRow struct {
		ID      types.Snowflake `gorm:"primaryKey"`
		Payload string
	}
	objectIDRow struct {
		ID      types.ObjectID `gorm:"primaryKey"`
		Payload string
	}
	uuidRow struct {
		ID      types.UUID `gorm:"primaryKey"` // filled by the plugin with no option
		Payload string
	}
	googleUUIDRow struct {
		ID      uuid.UUID `gorm:"primaryKey"`
		Payload string
	}
)

// inserter returns a gormInserter for model T, whose key the reset
// function zeroes and whose payload set writes.
func inserter[T any](reset func(*T), set func(*T, string)) func() gormInserter {
	return func() gormInserter {
		var rows []T
		return func(db *gorm.DB, payloads []string, batch int) error {
			if cap(rows) < len(payloads) {
				rows = make([]T, len(payloads))
			}
			rows = rows[:len(payloads)]
			for i := range rows {
				reset(&rows[i])
				set(&rows[i], payloads[i])
			}
			return db.CreateInBatches(&rows, batch).Error
		}
	}
}

var allKeys = []keyKind{
	{
		name: "seq", label: "database sequence (bigserial / AUTO_INCREMENT)", seq: true,
		column: map[string]string{
			"postgres": "bigserial PRIMARY KEY",
			"mariadb":  "BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY",
			"sqlite":   "INTEGER PRIMARY KEY",
		},
		gorm: inserter(func(r *seqRow) { r.ID = 0 }, func(r *seqRow, p string) { r.Payload = p }),
	},
	{
		name: "snowflake", label: "idkit Snowflake (bigint)",
		column: map[string]string{
			"postgres": "bigint PRIMARY KEY",
			"mariadb":  "BIGINT PRIMARY KEY",
			"sqlite":   "INTEGER PRIMARY KEY",
		},
		newRaw: func() func() (any, error) {
			return func() (any, error) { return snowflakeGen.Next() }
		},
		gorm:   inserter(func(r *snowflakeRow) { r.ID = 0 }, func(r *snowflakeRow, p string) { r.Payload = p }),
		plugin: func() []gormplugin.Option { return []gormplugin.Option{gormplugin.WithSnowflake(snowflakeGen)} },
	},
	{
		name: "objectid", label: "idkit ObjectID (bytea / BINARY(12))",
		column: map[string]string{
			"postgres": "bytea PRIMARY KEY",
			"mariadb":  "BINARY(12) PRIMARY KEY",
			"sqlite":   "BLOB PRIMARY KEY",
		},
		newRaw: func() func() (any, error) {
			g := generator.DefaultObjectID()
			return func() (any, error) { return g.Next(), nil }
		},
		gorm: inserter(func(r *objectIDRow) { r.ID = types.ObjectID{} }, func(r *objectIDRow, p string) { r.Payload = p }),
	},
	{
		name: "uuidv7", label: "idkit UUIDv7 (uuid / BINARY(16))",
		column: map[string]string{
			"postgres": "uuid PRIMARY KEY",
			"mariadb":  "BINARY(16) PRIMARY KEY",
			"sqlite":   "BLOB PRIMARY KEY",
		},
		newRaw: func() func() (any, error) {
			return func() (any, error) { return types.NewUUIDv7(), nil }
		},
		gorm: inserter(func(r *uuidRow) { r.ID = types.UUID{} }, func(r *uuidRow, p string) { r.Payload = p }),
	},
	{
		name: "guuidv7", label: "google/uuid v7 (uuid / UUID)",
		column: map[string]string{
			"postgres": "uuid PRIMARY KEY",
			"mariadb":  "UUID PRIMARY KEY",
			"sqlite":   "TEXT PRIMARY KEY",
		},
		newRaw: func() func() (any, error) {
			return func() (any, error) { return uuid.NewV7() }
		},
		gorm:   inserter(func(r *googleUUIDRow) { r.ID = uuid.UUID{} }, func(r *googleUUIDRow, p string) { r.Payload = p }),
		plugin: func() []gormplugin.Option { return []gormplugin.Option{gormplugin.WithKeyFunc(uuid.NewV7)} },
	},
	{
		name: "uuidv4", label: "google/uuid v4 (uuid / UUID)",
		column: map[string]string{
			"postgres": "uuid PRIMARY KEY",
			"mariadb":  "UUID PRIMARY KEY",
			"sqlite":   "TEXT PRIMARY KEY",
		},
		newRaw: func() func() (any, error) {
			return func() (any, error) { return uuid.NewRandom() }
		},
		gorm:   inserter(func(r *googleUUIDRow) { r.ID = uuid.UUID{} }, func(r *googleUUIDRow, p string) { r.Payload = p }),
		plugin: func() []gormplugin.Option { return []gormplugin.Option{gormplugin.WithKeyFunc(uuid.NewRandom)} },
	},
}

// keyByName returns the key kind called name.
func keyByName(name string) (keyKind, error) {
	for _, k := range allKeys {
		if k.name == name {
			return k, nil
		}
	}
	var names []string
	for _, k := range allKeys {
		names = append(names, k.name)
	}
	return keyKind{}, fmt.Errorf("unknown key kind %q (have %v)", name, names)
}
