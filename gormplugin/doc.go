// Package gormplugin is a GORM plugin that gives rows their primary keys on
// the client, before the INSERT, the way MongoDB drivers make _id:
//
//	db.Use(gormplugin.New(gormplugin.WithNode(7)))
//
// # Which fields
//
// A model's only primary key is filled when its type is
// [types.Snowflake], [types.ObjectID], their nullable forms
// ([types.NullSnowflake], [types.NullObjectID]), [sqltypes.HexObjectID] or
// [sqltypes.NullHexObjectID], or a pointer to one of these. Any other column,
// and plain Go types, are filled when tagged:
//
//	ID   int64  `gorm:"primaryKey" idkit:"snowflake"` // int64, int, uint64, ...
//	Ref  string `idkit:"objectid"`                     // string (hex), []byte, [12]byte
//	Code types.Snowflake `gorm:"primaryKey" idkit:"-"` // never filled
//
// In a composite primary key only tagged fields are filled. Foreign keys are
// never filled: GORM sets them from the parent's key. A field is filled only
// when it is zero (a Null form with Valid false counts as zero): a set key is
// never overwritten. Columns left out by Omit or Select, and fields GORM may
// not create (`gorm:"<-:false"`, `gorm:"->"`), are left alone.
//
// # Every create path
//
// The fill runs as a Create callback registered before gorm:before_create,
// so BeforeCreate and BeforeSave hooks see the key, and it runs with
// SkipHooks too. It covers struct pointers, slices and arrays of structs or
// pointers, CreateInBatches, Save and FirstOrCreate when they create,
// map[string]any, *map, []map and *[]map creates through Model, the generic
// gorm.G[T] API, associations (each child gets its own key before GORM
// copies it into foreign keys), embedded structs (a nil embedded pointer is
// allocated), transactions and Unscoped.
//
// GORM makes an integer primary key auto-increment unless told otherwise.
// The idkit types declare themselves "bigint"/"bytes" to GORM, so
// AutoMigrate makes a plain column and GORM never asks the database for the
// key. For a tagged plain integer key the plugin clears GORM's
// auto-increment flag on the model's parsed schema at its first create, so
// inserts add no RETURNING and take no LastInsertId over the key. AutoMigrate
// runs no create callback: call [Plugin.Prepare] before it, or tag such
// fields `gorm:"autoIncrement:false"`, so that it makes a plain BIGINT too. When another column's
// database default makes GORM add RETURNING to a *[]map create, the plugin
// merges the returned rows into the caller's maps instead of letting GORM
// append them, so the slice keeps exactly the rows the caller passed.
//
// # Opting out and errors
//
// db.Set([SkipSetting], true) turns the fill off for that statement (and the
// association creates it makes). Problems are reported through db.AddError,
// never a panic: an unusable tagged field wraps [ErrUnsupportedField], a
// generator failure wraps [ErrGenerate], a value that cannot be set wraps
// [ErrNotAddressable]. [Plugin.Initialize] (run by db.Use) fails with
// [ErrNoSnowflakeGenerator] unless a Snowflake generator ([WithSnowflake],
// for example a leased one from node.NewSnowflake), a node ([WithNode]) or
// a node source ([WithNodeSource], for example node.FromEnv) was given, or
// [WithObjectIDOnly] says none is needed: a node is never silently 0.
package gormplugin
