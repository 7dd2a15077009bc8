package gormplugin

import (
	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// Prepare checks models (and the models they relate to) now rather than at
// their first create, and marks the keys the plugin fills for AutoMigrate:
// plain NOT NULL BIGINT for tagged integer keys, NOT NULL for the others.
// Call it after db.Use, before AutoMigrate and before the models are used
// concurrently (it changes GORM's cached schemas). It returns GORM's parse
// errors, and errors wrapping [ErrUnsupportedField] or
// [ErrNoSnowflakeGenerator].
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
