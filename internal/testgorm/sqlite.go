package testgorm

import (
	"errors"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/internal/testdb"
)

// SQLite returns a GORM dialector for the SQLite database at dsn, opened
// through the pure-Go driver of [testdb.SQLiteDriver] (modernc.org/sqlite),
// so tests need no C compiler.
//
// gorm.io/driver/sqlite reads error codes by JSON-encoding the driver's
// error, which finds none in modernc.org/sqlite's errors; this dialector
// reads the code through their Code method instead, so that with
// gorm.Config.TranslateError a duplicate key is [gorm.ErrDuplicatedKey] and
// a foreign-key violation [gorm.ErrForeignKeyViolated], as with
// mattn/go-sqlite3.
func SQLite(dsn string) gorm.Dialector {
	return pureSQLite{sqlite.New(sqlite.Config{DriverName: testdb.SQLiteDriver, DSN: dsn}).(*sqlite.Dialector)}
}

type pureSQLite struct{ *sqlite.Dialector }

// sqliteErrors maps SQLite extended result codes
// (https://www.sqlite.org/rescode.html) to GORM's errors.
var sqliteErrors = map[int]error{
	1555: gorm.ErrDuplicatedKey,      // SQLITE_CONSTRAINT_PRIMARYKEY
	2067: gorm.ErrDuplicatedKey,      // SQLITE_CONSTRAINT_UNIQUE
	787:  gorm.ErrForeignKeyViolated, // SQLITE_CONSTRAINT_FOREIGNKEY
}

// Translate maps a driver error to GORM's error for its SQLite code.
func (d pureSQLite) Translate(err error) error {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		if e, ok := sqliteErrors[coded.Code()]; ok {
			return e
		}
	}
	return d.Dialector.Translate(err)
}
