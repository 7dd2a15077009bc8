package gormplugin_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// Columns has every column form.
type Columns struct {
	ID   types.Snowflake
	Obj  types.ObjectID
	NS   types.NullSnowflake
	NO   types.NullObjectID
	Hex  sqltypes.HexObjectID
	NHex sqltypes.NullHexObjectID
}

// HexKeyed is keyed by hex text, and referenced by HexChild.
type HexKeyed struct {
	ID sqltypes.HexObjectID
}

type HexChild struct {
	ID         types.ObjectID
	HexKeyedID sqltypes.HexObjectID
	HexKeyed   HexKeyed
}

// column is one column as the database's catalog describes it.
type column struct {
	Type     string
	Nullable bool
	Default  sql.NullString
	Extra    string // identity (PostgreSQL), EXTRA (MySQL), "autoincrement" (SQLite)
}

func describeColumn(t *testing.T, db *gorm.DB, table, name string) column {
	t.Helper()
	var c column
	var row *sql.Row
	switch db.Dialector.Name() {
	case "postgres":
		row = db.Raw(`SELECT format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
			pg_get_expr(d.adbin, d.adrelid), a.attidentity::text
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = ?::regclass AND a.attname = ?`, table, name).Row()
		require.NoError(t, row.Scan(&c.Type, &c.Nullable, &c.Default, &c.Extra), "%s.%s", table, name)
		var seq sql.NullString
		require.NoError(t, db.Raw(`SELECT pg_get_serial_sequence(?, ?)`, table, name).Row().Scan(&seq))
		if seq.Valid {
			c.Extra += " sequence " + seq.String
		}
	case "mysql":
		var nullable string
		row = db.Raw(`SELECT column_type, is_nullable, column_default, extra FROM information_schema.columns
			WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?`, table, name).Row()
		require.NoError(t, row.Scan(&c.Type, &nullable, &c.Default, &c.Extra), "%s.%s", table, name)
		c.Nullable = nullable == "YES"
		if c.Default.String == "NULL" { // MariaDB spells a NULL default so
			c.Default = sql.NullString{}
		}
	case "sqlite":
		var notNull, pk int
		row = db.Raw(`SELECT type, "notnull", dflt_value, pk FROM pragma_table_info(?) WHERE name = ?`, table, name).Row()
		require.NoError(t, row.Scan(&c.Type, &notNull, &c.Default, &pk), "%s.%s", table, name)
		c.Nullable = notNull == 0 && pk == 0
		var ddl string
		require.NoError(t, db.Raw(`SELECT sql FROM sqlite_master WHERE name = ?`, table).Row().Scan(&ddl))
		if strings.Contains(strings.ToUpper(ddl), "AUTOINCREMENT") {
			c.Extra = "autoincrement"
		}
	}
	c.Type = strings.ToLower(c.Type)
	return c
}

func foreignKeyCount(t *testing.T, db *gorm.DB, table string) int {
	t.Helper()
	var n int
	var q string
	switch db.Dialector.Name() {
	case "postgres":
		q = `SELECT count(*) FROM information_schema.table_constraints
			WHERE table_schema = current_schema() AND table_name = ? AND constraint_type = 'FOREIGN KEY'`
	case "mysql":
		q = `SELECT count(*) FROM information_schema.table_constraints
			WHERE table_schema = DATABASE() AND table_name = ? AND constraint_type = 'FOREIGN KEY'`
	case "sqlite":
		q = `SELECT count(*) FROM pragma_foreign_key_list(?)`
	}
	require.NoError(t, db.Raw(q, table).Row().Scan(&n))
	return n
}

func TestAutoMigrateDDL(t *testing.T) {
	want := map[string]map[string]string{ // form -> dialect -> column type
		"snowflake": {"postgres": "bigint", "mysql": "bigint(20)", "sqlite": "bigint"},
		"objectid":  {"postgres": "bytea", "mysql": "binary(12)", "sqlite": "blob"},
		"hex":       {"postgres": "character(24)", "mysql": "char(24)", "sqlite": "text"},
		// A tagged plain int64 key: SQLite's integer primary key is its rowid
		// (64-bit, with no AUTOINCREMENT).
		"int64": {"postgres": "bigint", "mysql": "bigint(20)", "sqlite": "integer"},
	}
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		models := []any{&Columns{}, &Company{}, &Tag{}, &User{}, &Profile{}, &Post{}, &Tagged{}, &HexKeyed{}, &HexChild{}}
		migrate(t, db, models...)
		migrate(t, db, models...) // a second run finds nothing to change
		dialect := db.Dialector.Name()
		table := func(model any) string {
			stmt := &gorm.Statement{DB: db}
			require.NoError(t, stmt.Parse(model))
			return stmt.Schema.Table
		}
		tests := []struct {
			table, column, form string
			nullable            bool
		}{
			{table(&Columns{}), "id", "snowflake", false},
			{table(&Columns{}), "obj", "objectid", true},
			{table(&Columns{}), "ns", "snowflake", true},
			{table(&Columns{}), "no", "objectid", true},
			{table(&Columns{}), "hex", "hex", true},
			{table(&Columns{}), "n_hex", "hex", true},
			{table(&User{}), "id", "snowflake", false},
			{table(&User{}), "company_id", "snowflake", true},
			{table(&User{}), "manager_id", "snowflake", true},
			{table(&Profile{}), "id", "objectid", false},
			{table(&Profile{}), "user_id", "snowflake", true},
			{table(&Post{}), "user_id", "snowflake", true},
			{table(&Tag{}), "id", "objectid", false},
			{db.NamingStrategy.JoinTableName("user_tags"), "user_id", "snowflake", false},
			{db.NamingStrategy.JoinTableName("user_tags"), "tag_id", "objectid", false},
			{table(&Tagged{}), "id", "int64", false},
			{table(&HexKeyed{}), "id", "hex", false},
			{table(&HexChild{}), "hex_keyed_id", "hex", true},
		}
		for _, tt := range tests {
			t.Run(tt.table+"."+tt.column, func(t *testing.T) {
				c := describeColumn(t, db, tt.table, tt.column)
				assert.Equal(t, want[tt.form][dialect], c.Type)
				assert.Equal(t, tt.nullable, c.Nullable, "nullable")
				assert.False(t, c.Default.Valid, "default %q", c.Default.String)
				assert.NotContains(t, strings.ToLower(c.Extra), "auto", "extra %q", c.Extra)
				assert.NotContains(t, c.Extra, "sequence", "extra %q", c.Extra)
				if dialect == "postgres" {
					assert.Equal(t, "", strings.TrimSpace(c.Extra), "identity")
				}
			})
		}
		for model, n := range map[string]int{
			table(&User{}): 2, table(&Profile{}): 1, table(&Post{}): 1,
			db.NamingStrategy.JoinTableName("user_tags"): 2, table(&HexChild{}): 1,
		} {
			assert.Equal(t, n, foreignKeyCount(t, db, model), "foreign keys of %s", model)
		}

		// Round trip of every form through the database's Scan.
		in := Columns{
			Obj: types.NewObjectID(), NS: types.NullSnowflake{ID: 12345, Valid: true},
			Hex: sqltypes.HexObjectID(types.NewObjectID()),
		}
		require.NoError(t, db.Create(&in).Error)
		var out Columns
		require.NoError(t, db.First(&out, in.ID).Error)
		assert.Equal(t, in, out)
	})
}

// LegacyParent has a tagged plain int64 key tagged autoIncrement:false,
// and children keyed the same way.
type LegacyParent struct {
	ID       int64 `gorm:"primaryKey;autoIncrement:false" idkit:"snowflake"`
	Children []LegacyChild
}

type LegacyChild struct {
	ID             int64 `gorm:"primaryKey;autoIncrement:false" idkit:"snowflake"`
	LegacyParentID int64
}

// TestPlainIntegerKeys checks that a tagged plain integer key tagged
// autoIncrement:false is a plain BIGINT, with no setup but AutoMigrate,
// and that one GORM makes auto-increment is refused, not filled.
func TestPlainIntegerKeys(t *testing.T) {
	intType := map[string]string{"postgres": "bigint", "mysql": "bigint(20)", "sqlite": "integer"}
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New(gormplugin.WithNode(1)))
			migrate(t, db, &LegacyParent{}, &LegacyChild{}, &AutoInc{})
			for _, model := range []any{&LegacyParent{}, &LegacyChild{}} {
				stmt := &gorm.Statement{DB: db}
				require.NoError(t, stmt.Parse(model))
				c := describeColumn(t, db, stmt.Schema.Table, "id")
				assert.Equal(t, intType[db.Dialector.Name()], c.Type)
				assert.False(t, c.Default.Valid, "default %q", c.Default.String)
				assert.NotContains(t, strings.ToLower(c.Extra), "auto")
				assert.NotContains(t, c.Extra, "sequence")
			}
			parent := &LegacyParent{Children: []LegacyChild{{}, {}}}
			require.NoError(t, db.Create(parent).Error)
			require.NotZero(t, parent.ID)
			for _, c := range parent.Children {
				assert.NotZero(t, c.ID)
				assert.Equal(t, parent.ID, c.LegacyParentID)
			}

			row := &AutoInc{Name: "a"}
			assert.ErrorIs(t, db.Create(row).Error, gormplugin.ErrUnsupportedField)
			assert.Zero(t, row.ID)
			assert.ErrorIs(t, db.Model(&AutoInc{}).Create(map[string]any{"name": "m"}).Error, gormplugin.ErrUnsupportedField)
			var n int64
			require.NoError(t, db.Model(&AutoInc{}).Count(&n).Error)
			assert.Zero(t, n, "rows stored")
		})
	}
}

// ddlRecorder is a GORM logger that records every statement run.
type ddlRecorder struct {
	logger.Interface
	mu   sync.Mutex
	stmt []string
}

func (r *ddlRecorder) LogMode(logger.LogLevel) logger.Interface { return r }

func (r *ddlRecorder) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	sql, _ := fc()
	r.mu.Lock()
	r.stmt = append(r.stmt, sql)
	r.mu.Unlock()
}

// ddl returns the recorded statements that change a schema.
func (r *ddlRecorder) ddl() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.stmt {
		verb, _, _ := strings.Cut(strings.TrimSpace(s), " ")
		switch strings.ToUpper(verb) {
		case "ALTER", "CREATE", "DROP", "RENAME", "COMMENT":
			out = append(out, s)
		}
	}
	return out
}

// TestAutoMigrateTwiceIssuesNoDDL migrates every model with idkit columns,
// then again, and checks that the second run changes nothing.
func TestAutoMigrateTwiceIssuesNoDDL(t *testing.T) {
	models := []any{
		&Columns{}, &Company{}, &Tag{}, &User{}, &Profile{}, &Post{}, &Tagged{},
		&HexKeyed{}, &HexChild{}, &Doc{}, &NullDoc{}, &RawDoc{}, &TextDoc{}, &HexDoc{}, &Order{},
		&Account{}, &Device{}, &Shop{}, &Branch{}, &Reading{},
		&Event{}, &Composite{}, &PtrKey{}, &Embedded{}, &EmbeddedPtr{}, &LegacyParent{}, &LegacyChild{},
	}
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New(gormplugin.WithNode(1)))
			first := &ddlRecorder{Interface: logger.Discard}
			require.NoError(t, db.Session(&gorm.Session{Logger: first}).AutoMigrate(models...))
			require.NotEmpty(t, first.ddl(), "the first run creates the tables")
			second := &ddlRecorder{Interface: logger.Discard}
			require.NoError(t, db.Session(&gorm.Session{Logger: second}).AutoMigrate(models...))
			assert.Empty(t, second.ddl(), "second AutoMigrate")
		})
	}
}

// TestKeyColumnsNotNull checks that AutoMigrate makes every idkit key column
// NOT NULL, so that a create that leaves the key out fails on every
// database instead of storing a NULL key.
func TestKeyColumnsNotNull(t *testing.T) {
	tests := []struct {
		name  string
		model any
		row   func() any
	}{
		{"Snowflake", &Order{}, func() any { return &Order{Name: "x"} }},
		{"ObjectID", &Doc{}, func() any { return &Doc{Name: "x"} }},
		{"NullObjectID", &NullDoc{}, func() any { return &NullDoc{Name: "x"} }},
		{"HexObjectID", &HexDoc{}, func() any { return &HexDoc{Name: "x"} }},
		{"tagged []byte", &RawDoc{}, func() any { return &RawDoc{Name: "x"} }},
		{"composite", &Composite{}, func() any { return &Composite{Tenant: 1, Name: "x"} }},
	}
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New(gormplugin.WithNode(1)))
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					migrate(t, db, tt.model)
					for range 2 {
						assert.Error(t, db.Omit("id").Create(tt.row()).Error, "a create without the key")
					}
					var n int64
					require.NoError(t, db.Model(tt.model).Count(&n).Error)
					assert.Zero(t, n, "rows stored")
				})
			}
		})
	}
}
