package gormplugin

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
)

// SkipSetting is the statement setting that turns the fill off for one
// statement: db.Set(gormplugin.SkipSetting, true).Create(&row). Any value
// other than true leaves the fill on.
const SkipSetting = "idkit:skip"

// Callback names the plugin registers, on the Create processor.
const (
	// fillCallback fills zero keys; it runs before gorm:before_create.
	fillCallback = "idkit:fill_keys"
	// returningCallback keeps *[]map creates at the caller's rows; it runs
	// after gorm:create.
	returningCallback = "idkit:returning_rows"
)

// Plugin is a [gorm.Plugin] that fills zero primary keys (and tagged fields)
// before INSERT; see the package documentation for which fields and paths.
// Make it with [New] and register it with db.Use. One Plugin may serve
// several *gorm.DB; it is safe for concurrent use once registered.
type Plugin struct {
	snowflake  *generator.Snowflake
	objectID   *generator.ObjectID
	keyFuncs   map[reflect.Type]*keyFunc // WithKeyFunc
	nodeSource generator.NodeSource
	nodeOpts   []generator.SnowflakeOption
	err        error
	initMu     sync.Mutex

	models sync.Map // *schema.Schema -> *modelKeys
}

var _ gorm.Plugin = (*Plugin)(nil)

// New returns a plugin configured by opts. It never fails: an option's error
// is returned by db.Use (from [Plugin.Initialize]). Without [WithObjectID]
// ObjectIDs come from [generator.DefaultObjectID]. Without [WithSnowflake],
// [WithNode] or [WithNodeSource] the plugin has no Snowflake generator: it
// serves models keyed by ObjectIDs, and a create that meets a Snowflake
// field to fill fails with [ErrNoSnowflakeGenerator] (a node is never
// silently 0).
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
	fillUUIDKeys(p)
	return p
}

// Name returns "idkit", the plugin's name in GORM's registry.
func (p *Plugin) Name() string { return "idkit" }

// Initialize registers the plugin's callbacks on db (on the Create
// processor, and its key-condition callback on Query, Row, Update and Delete);
// db.Use calls it. It
// returns the options' errors (wrapping [ErrInvalidConfig]),
// [ErrNoSnowflakeGenerator] when the [WithNodeSource] source failed, and
// GORM's errors registering callbacks.
func (p *Plugin) Initialize(db *gorm.DB) error {
	if p.err != nil {
		return p.err
	}
	if err := p.snowflakeFromSource(db); err != nil {
		return err
	}
	cb := db.Callback()
	create := cb.Create()
	if err := create.Before("gorm:before_create").Register(fillCallback, p.fill); err != nil {
		return err
	}
	if err := create.After("gorm:create").Register(returningCallback, p.keepMapRows); err != nil {
		return err
	}
	if err := create.Before("gorm:create").Register(upsertReturningCallback, p.upsertReturning); err != nil {
		return err
	}
	if err := create.After("gorm:create").Before("gorm:save_after_associations").Register(upsertKeysCallback, p.upsertKeys); err != nil {
		return err
	}
	if err := create.After("gorm:commit_or_rollback_transaction").Register(upsertCommittedKeysCallback, p.upsertCommittedKeys); err != nil {
		return err
	}
	if err := cb.Query().Before("gorm:query").Register(keyConditionCallback, p.keyConditions); err != nil {
		return err
	}
	if err := cb.Row().Before("gorm:row").Register(keyConditionCallback, p.keyConditions); err != nil {
		return err
	}
	if err := cb.Update().Before("gorm:update").Register(keyConditionCallback, p.keyConditions); err != nil {
		return err
	}
	return cb.Delete().Before("gorm:delete").Register(keyConditionCallback, p.keyConditions)
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
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	p.snowflake = g
	return nil
}

// Snowflake returns the plugin's Snowflake generator, or nil if it has none.
func (p *Plugin) Snowflake() *generator.Snowflake { return p.snowflake }

// ObjectID returns the plugin's ObjectID generator.
func (p *Plugin) ObjectID() *generator.ObjectID { return p.objectID }
