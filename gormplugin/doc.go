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
// [sqltypes.NullHexObjectID], [types.UUID] (filled by [types.NewUUIDv7]
// unless WithKeyFunc gives it another function), a type given to
// [WithKeyFunc] (a ULID, ...), or a pointer to one of these. Any other column,
// and plain Go types, are filled when tagged:
//
//	ID   int64  `gorm:"primaryKey" idkit:"snowflake"` // int64, int, uint64, ...
//	Ref  string `idkit:"objectid"`                     // string (hex) or []byte
//	Code types.Snowflake `gorm:"primaryKey" idkit:"-"` // never filled
//
// A tagged plain [12]byte field (or a struct without a Value method) cannot
// be stored through database/sql, which has no Go arrays: a create of such a
// model fails with [ErrUnsupportedField] before anything is written. Use
// [types.ObjectID], a [12]byte with a Value method.
//
// In a composite primary key only tagged fields are filled; a create with a
// zero untagged part of an idkit type fails with [ErrUntaggedKey], which
// names the field and the tag, before anything is written. Foreign keys are
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
// # Looking rows up by key
//
// GORM's inline primary-key forms take a slice or array as a list of keys,
// and an ObjectID's SQL value is 12 bytes, so db.First(&doc, id) would ask
// for "id IN (107,3,240,...)": twelve one-byte keys, no row (and an encode
// error on PostgreSQL). The plugin registers its key-condition callback on the
// Query, Row, Update and Delete processors and rewrites such a condition
// into "id = key" when the model's primary key holds an ObjectID
// ([types.ObjectID], [types.NullObjectID], [sqltypes.HexObjectID],
// [sqltypes.NullHexObjectID], or a []byte or string field tagged
// idkit:"objectid"). So First, Take, Last, Find, Delete, Where, Not, Or,
// Count, Pluck, Row and Update select exactly the row with the key, given
// as an ObjectID, a pointer to one, a valid NullObjectID, a HexObjectID, a
// [12]byte or a 12-byte []byte; a slice of ObjectIDs selects the rows with
// those keys. A key of a [WithKeyFunc] type whose SQL value is bytes
// (a ULID's 16 bytes, a [types.UUID]) gets the same rewrite of one inline
// key, and a [types.UUID] key may also be given as a string [types.ParseUUID]
// reads. GORM runs an
// inline string that is not a number as SQL; for an ObjectID-keyed model a
// string of exactly 24 hex digits (db.First(&doc, c.Param("id"))) is taken
// as the key instead, and never run as SQL. Other strings are left to GORM.
// Snowflake keys need no rewrite. Without the plugin, write the condition
// out: db.First(&doc, "id = ?", id).
//
// For any model, a zero idkit ID given as a key (a request that carried
// no ID) fails the statement with an error wrapping [types.ErrZeroID]
// before anything is read, updated or deleted; so does a list of keys
// holding one. The repository's docs/gorm-errors.md describes each error
// and which Scan forms read an ObjectID.
//
// # Upserts
//
// A create with a clause.OnConflict of a model whose single primary key the
// plugin fills is an upsert: on a conflict the database keeps the stored
// row's key, not the one the row held. After the create each struct (or
// map) holds the key of the row stored for it, whoever made the key it held
// before: the plugin, the plugin on an earlier attempt of a retried
// transaction, or the caller. This stage runs after the fill and apart from
// it. With an update on conflict (UpdateAll or DoUpdates) the plugin asks
// PostgreSQL for the keys with RETURNING (a callback before gorm:create), and
// SQLite too for a single row. Otherwise (a callback after gorm:create) a single
// row the database reports as inserted needs nothing more, and the other
// rows are read back in one query (per 480 SELECTs it unites): each row's
// stored key by the conflict
// columns (clause.OnConflict.Columns, else the model's unique indexes in
// turn), else by its own key. On MySQL/MariaDB that read runs after GORM's
// own transaction commits when the model has no associations to save and
// no AfterCreate or AfterSave hook (which see the keys before the commit), so
// the INSERT's locks are held no longer than without the plugin; otherwise
// it runs right after the INSERT, in the transaction. A row that DoNothing
// skipped gets a zero key: no row holds the key it was given. A row whose
// stored key cannot be found also gets a zero key, and the create an error
// wrapping [ErrUpsertKey] (when the read ran in GORM's transaction, the
// create is rolled back). This covers struct, pointer, slice and map
// creates. An upsert whose conflict target is the primary key alone, as
// GORM's association saves are, needs none of this and costs no extra
// query, except on MySQL/MariaDB when the model has another unique index.
//
// # Key columns
//
// The idkit types make AutoMigrate write NOT NULL on primary key columns on
// every dialect (SQLite lets a non-integer primary key hold NULL otherwise),
// and [Plugin.Prepare] does the same for the tagged plain fields it fills.
// A zero Snowflake or ObjectID is never written: its Value is an error
// wrapping [types.ErrZeroID], so a zero non-null foreign key fails the
// create. Use [types.NullSnowflake] or [types.NullObjectID] for a reference
// that may be unset: Valid false stores NULL.
//
// # Opting out and errors
//
// db.Set([SkipSetting], true) turns the fill off for that statement (and the
// association creates it makes). Problems are reported through db.AddError,
// never a panic: an unusable tagged field wraps [ErrUnsupportedField], a
// zero untagged composite key part wraps [ErrUntaggedKey], a
// generator failure wraps [ErrGenerate], a value that cannot be set wraps
// [ErrNotAddressable], an upsert row whose stored key is unknown wraps
// [ErrUpsertKey]. With no options the plugin fills ObjectID and UUID keys: a
// create that meets a Snowflake field to fill fails with an error wrapping
// [ErrNoSnowflakeGenerator] unless a Snowflake generator ([WithSnowflake],
// for example a leased one from node.NewSnowflake), a node ([WithNode]) or
// a node source ([WithNodeSource], for example node.FromEnv) was given: a
// node is never silently 0.
package gormplugin
