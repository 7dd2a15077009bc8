// Package gormplugin is a GORM plugin that gives rows their primary keys on
// the client, before the INSERT, the way MongoDB drivers make _id:
//
//	db.Use(gormplugin.New(gormplugin.WithNode(7)))
//
// It fills a model's zero primary key of an idkit type ([types.Snowflake],
// [types.ObjectID], their Null forms, [sqltypes.HexObjectID],
// [sqltypes.NullHexObjectID], [types.UUID], [types.NullUUID] and, on Go
// 1.27 and later, Go's uuid.UUID with [types.NewUUIDv7] unless WithKeyFunc
// gives another function), of a type given to [WithKeyFunc], plain fields
// tagged idkit:"snowflake" or idkit:"objectid", and UUID parts of a
// composite key tagged idkit:"uuid", on every create path
// (structs, slices, maps, batches, associations, gorm.G[T]), before
// BeforeCreate hooks run. A set key is never overwritten; foreign keys are
// left to GORM. It also makes lookups by an ObjectID or UUID key
// (db.First(&doc, id), or the key's string) select that row, and leaves each row of an upsert holding the key of the
// row stored for it.
//
// A key field opts into a scatter form ([types.Form]) with a scatter part in
// its tag: idkit:"scatter=reversed" on a types.Snowflake key,
// idkit:"snowflake,scatter=shard:4", idkit:"uuid,scatter=shard:8". The
// plugin then fills the key of each new ID in that form; a form the field's
// kind, the generator or its layout cannot take fails the first create
// with [generator.ErrInvalidConfig] or [ErrUnsupportedField], naming the field.
//
// db.Set([SkipSetting], true) turns the fill off for one statement. Problems
// are reported through db.AddError, never a panic, with the sentinels below;
// a zero ID given as a key fails with [types.ErrZeroID], and an update that
// sets a non-nullable ID field to NULL (association Delete, Clear) with
// [types.ErrNull]. Without [WithNode]
// or [WithSnowflake] the plugin fills ObjectID and UUID keys only: a Snowflake key to
// fill fails with [generator.ErrNoSnowflakeGenerator], since a node is never silently 0.
//
// How each path works, and each error with its remedy:
// https://github.com/idkit-go/idkit/blob/main/docs/gorm.md and
// https://github.com/idkit-go/idkit/blob/main/docs/gorm-errors.md.
package gormplugin
