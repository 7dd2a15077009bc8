package gormplugin

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// SkipSetting is the statement setting that turns the fill off for one
// statement: db.Set(gormplugin.SkipSetting, true).Create(&row). Any value
// other than true leaves the fill on.
const SkipSetting = "idkit:skip"

// Callback names the plugin registers, on the Create processor.
const (
	// FillCallback fills zero keys; it runs before gorm:before_create.
	FillCallback = "idkit:fill_keys"
	// ReturningCallback keeps *[]map creates at the caller's rows; it runs
	// after gorm:create.
	ReturningCallback = "idkit:returning_rows"
)

// Plugin is a [gorm.Plugin] that fills zero primary keys (and tagged fields)
// before INSERT; see the package documentation for which fields and paths.
// Make it with [New] and register it with db.Use. One Plugin may serve
// several *gorm.DB; it is safe for concurrent use once registered.
type Plugin struct {
	snowflake    *generator.Snowflake
	objectID     *generator.ObjectID
	objectIDOnly bool
	nodeSource   node.Source
	nodeOpts     []generator.Option
	err          error
	initMu       sync.Mutex

	models sync.Map // *schema.Schema -> *modelKeys
}

var _ gorm.Plugin = (*Plugin)(nil)

// New returns a plugin configured by opts. It never fails: an option's error
// is returned by db.Use (from [Plugin.Initialize]). Without [WithObjectID]
// ObjectIDs come from [generator.DefaultObjectID]; a Snowflake generator
// must be given with [WithSnowflake] or [WithNode], or declared unneeded
// with [WithObjectIDOnly].
func New(opts ...Option) *Plugin {
	p := &Plugin{}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(p); err != nil {
			p.err = errors.Join(p.err, err)
		}
	}
	if p.objectID == nil {
		p.objectID = generator.DefaultObjectID()
	}
	return p
}

// Name returns "idkit", the plugin's name in GORM's registry.
func (p *Plugin) Name() string { return "idkit" }

// Initialize registers the plugin's callbacks on db (on the Create
// processor, and [KeyConditionCallback] on Query, Row, Update and Delete);
// db.Use calls it. It
// returns the options' errors (wrapping [ErrInvalidOption]),
// [ErrNoSnowflakeGenerator] when no Snowflake generator was configured and
// [WithObjectIDOnly] was not given (or the [WithNodeSource] source failed), and GORM's errors registering callbacks.
func (p *Plugin) Initialize(db *gorm.DB) error {
	if p.err != nil {
		return p.err
	}
	if err := p.snowflakeFromSource(db); err != nil {
		return err
	}
	if p.snowflake == nil && !p.objectIDOnly {
		return ErrNoSnowflakeGenerator
	}
	cb := db.Callback()
	create := cb.Create()
	if err := create.Before("gorm:before_create").Register(FillCallback, p.fill); err != nil {
		return err
	}
	if err := create.After("gorm:create").Register(ReturningCallback, p.keepMapRows); err != nil {
		return err
	}
	if err := create.Before("gorm:create").Register(UpsertReturningCallback, p.upsertReturning); err != nil {
		return err
	}
	if err := create.After("gorm:create").Before("gorm:save_after_associations").Register(UpsertKeysCallback, p.upsertKeys); err != nil {
		return err
	}
	if err := cb.Query().Before("gorm:query").Register(KeyConditionCallback, p.keyConditions); err != nil {
		return err
	}
	if err := cb.Row().Before("gorm:row").Register(KeyConditionCallback, p.keyConditions); err != nil {
		return err
	}
	if err := cb.Update().Before("gorm:update").Register(KeyConditionCallback, p.keyConditions); err != nil {
		return err
	}
	return cb.Delete().Before("gorm:delete").Register(KeyConditionCallback, p.keyConditions)
}

func (p *Plugin) snowflakeFromSource(db *gorm.DB) error {
	p.initMu.Lock()
	defer p.initMu.Unlock()
	if p.nodeSource == nil || p.snowflake != nil {
		return nil
	}
	ctx := context.Background()
	if db.Statement != nil && db.Statement.Context != nil {
		ctx = db.Statement.Context
	}
	id, err := p.nodeSource.NodeID(ctx)
	if err != nil {
		return fmt.Errorf("%w: node source: %w", ErrNoSnowflakeGenerator, err)
	}
	g, err := generator.NewSnowflake(id, p.nodeOpts...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	p.snowflake = g
	return nil
}

// Snowflake returns the plugin's Snowflake generator, or nil if it has none.
func (p *Plugin) Snowflake() *generator.Snowflake { return p.snowflake }

// ObjectID returns the plugin's ObjectID generator.
func (p *Plugin) ObjectID() *generator.ObjectID { return p.objectID }

// fill is the FillCallback.
func (p *Plugin) fill(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil || skipped(db) {
		return
	}
	mk := p.keysOf(stmt.Schema)
	if mk.err != nil {
		db.AddError(mk.err)
		return
	}
	if err := zeroUntagged(stmt, mk.untagged); err != nil {
		db.AddError(err)
		return
	}
	fields := selected(stmt, mk.fields)
	if len(fields) == 0 {
		return
	}
	u := p.noteUpsert(db, fields)
	if u != nil {
		defer u.filled()
	}
	switch dest := stmt.Dest.(type) {
	case map[string]any:
		p.fillMap(db, fields, dest)
	case *map[string]any:
		if dest == nil {
			return // GORM reports the nil pointer
		}
		if *dest == nil {
			*dest = map[string]any{}
		}
		p.fillMap(db, fields, *dest)
	case []map[string]any:
		p.fillMaps(db, fields, dest)
	case *[]map[string]any:
		if dest == nil {
			return
		}
		p.fillMaps(db, fields, *dest)
		db.InstanceSet(mapRowsKey, len(*dest))
	default:
		p.fillValue(db, fields, stmt.ReflectValue)
	}
}

func skipped(db *gorm.DB) bool {
	v, ok := db.Get(SkipSetting)
	return ok && v == true
}

// selected drops the fields that Select/Omit leave out of the INSERT.
func selected(stmt *gorm.Statement, fields []keyField) []keyField {
	if len(stmt.Selects) == 0 && len(stmt.Omits) == 0 {
		return fields
	}
	cols, restricted := stmt.SelectAndOmitColumns(true, false)
	out := make([]keyField, 0, len(fields))
	for _, f := range fields {
		if v, ok := cols[f.field.DBName]; (ok && v) || (!ok && !restricted) {
			out = append(out, f)
		}
	}
	return out
}

// keysOf returns the key fields of s, working them out (and adjusting s) on
// first sight.
func (p *Plugin) keysOf(s *schema.Schema) *modelKeys {
	if v, ok := p.models.Load(s); ok {
		mk := v.(*modelKeys)
		mk.once.Do(func() { mk.prepare(s) })
		return mk
	}
	v, _ := p.models.LoadOrStore(s, &modelKeys{plugin: p})
	mk := v.(*modelKeys)
	mk.once.Do(func() { mk.prepare(s) })
	return mk
}
