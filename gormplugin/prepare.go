package gormplugin

import (
	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// Prepare does now, for models and the models they relate to, what the
// plugin otherwise does at each model's first create: it parses them with
// db's schema cache, checks their idkit fields, clears GORM's implicit
// auto-increment on the plain integer keys the plugin fills and marks the
// primary keys it fills NOT NULL. Call it after db.Use and before
// AutoMigrate: AutoMigrate then makes plain NOT NULL BIGINT keys for tagged
// integer fields too (and NOT NULL keys for tagged []byte and string
// fields, which SQLite would otherwise let hold NULL), without an
// autoIncrement:false tag, and a bad model is reported at start-up rather
// than on its first create.
//
// It returns GORM's parse errors, and errors wrapping [ErrUnsupportedField]
// or [ErrNoSnowflakeGenerator]. Call it before the models are used
// concurrently: it changes GORM's cached schemas.
func (p *Plugin) Prepare(db *gorm.DB, models ...any) error {
	seen := map[*schema.Schema]bool{}
	for _, m := range models {
		stmt := &gorm.Statement{DB: db}
		if err := stmt.Parse(m); err != nil {
			return err
		}
		if err := p.prepareTree(stmt.Schema, seen); err != nil {
			return err
		}
	}
	return nil
}

func (p *Plugin) prepareTree(s *schema.Schema, seen map[*schema.Schema]bool) error {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	if mk := p.keysOf(s); mk.err != nil {
		return mk.err
	}
	for _, rel := range s.Relationships.Relations {
		if err := p.prepareTree(rel.FieldSchema, seen); err != nil {
			return err
		}
		if rel.JoinTable != nil {
			if err := p.prepareTree(rel.JoinTable, seen); err != nil {
				return err
			}
		}
	}
	return nil
}
