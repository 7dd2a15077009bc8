//go:build idkitdeps

// Package deps pins the modules the integration packages use while they are
// being written, so go.mod and go.sum stay complete. It is never built.
package deps

import (
	_ "github.com/FerretDB/FerretDB/ferretdb"
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/redis/go-redis/v9"
	_ "github.com/stretchr/testify/assert"
	_ "github.com/stretchr/testify/require"
	_ "go.mongodb.org/mongo-driver/bson"
	_ "go.mongodb.org/mongo-driver/bson/bsoncodec"
	_ "go.mongodb.org/mongo-driver/bson/primitive"
	_ "go.mongodb.org/mongo-driver/mongo"
	_ "go.mongodb.org/mongo-driver/v2/bson"
	_ "go.mongodb.org/mongo-driver/v2/mongo"
	_ "gorm.io/driver/mysql"
	_ "gorm.io/driver/postgres"
	_ "gorm.io/driver/sqlite"
	_ "gorm.io/gorm"
	_ "gorm.io/gorm/clause"
	_ "gorm.io/gorm/schema"
)
