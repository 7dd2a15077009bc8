package gormplugin

import (
	"errors"
	"reflect"
	"sync"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
)

// SkipSetting turns the fill off for one statement:
// db.Set(gormplugin.SkipSetting, true).Create(&row).
const SkipSetting = "idkit:skip"

// Callback names the plugin registers, on the Create processor.
const (
	// fillCallback fills zero keys; it runs before gorm:before_create.
	fillCallback = "idkit:fill_keys"
	// returningCallback keeps *[]map creates at the caller's rows; it runs
	// after gorm:create.
	returningCallback = "idkit:returning_rows"
)

// Plugin is a [gorm.Plugin] that fills zero primary keys before INSERT.
// Make it with [New] and register it with db.Use. One Plugin may serve
// several *gorm.DB; it is safe for concurrent use once registered.
type Plugin struct {
	snowflake *generator.Snowflake
	objectID  *generator.ObjectID
	keyFuncs  map[reflect.Type]*keyFunc // WithKeyFunc
	err       error

	models sync.Map // *schema.Schema -> *modelKeys
}

var _ gorm.Plugin = (*Plugin)(nil)

// New returns a plugin configured by opts; later options override earlier
// ones. It never fails: an option's error is returned by db.Use. Without
// [WithSnowflake] or [WithNode] the plugin has no Snowflake generator, and a
// create that meets a Snowflake field to fill fails with
// [generator.ErrNoSnowflakeGenerator] (a node is never silently 0).
func New(opts ...Option) *Plugin {
	p := &Plugin{}
	for _, opt := range opts {
		if opt.apply == nil {
			continue
		}
		if err := opt.apply(p); err != nil {
			p.err = errors.Join(p.err, err)
		}
	}
	if p.objectID == nil {
		p.objectID = generator.DefaultObjectID()
	}
	fillUUIDKeys(p)
	fillStdUUIDKeys(p)
	return p
}

// Name returns "idkit", the plugin's name in GORM's registry.
func (p *Plugin) Name() string { return "idkit" }

// Initialize registers the plugin's callbacks on db; db.Use calls it. It
// returns the options' errors (wrapping [generator.ErrInvalidConfig]) and GORM's
// errors registering callbacks.
func (p *Plugin) Initialize(db *gorm.DB) error {
	if p.err != nil {
		return p.err
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
	if err := cb.Delete().Before("gorm:delete").Register(keyConditionCallback, p.keyConditions); err != nil {
		return err
	}
	if err := cb.Update().Before("gorm:update").Register(nullIDCallback, refuseNullIDs); err != nil {
		return err
	}
	return registerStdUUIDArgs(db)
}
