package gormplugin_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// rivalKit is keyed by the plugin, rivalSerial by the database; both are
// unique by Email.
type rivalKit struct {
	ID    types.Snowflake
	Email string `gorm:"size:64;uniqueIndex"`
	Name  string
	N     int
}

type rivalSerial struct {
	ID    int64  `gorm:"primaryKey;autoIncrement"`
	Email string `gorm:"size:64;uniqueIndex"`
	Name  string
	N     int
}

const (
	contentionWorkers = 8
	contentionEach    = 40 // statements per worker and round: 320 a round
	contentionRounds  = 6
	contentionEmails  = 24
)

// contentionOps are the four upsert forms of the workload: UpdateAll and
// DoUpdates, one row and a batch of four.
var contentionOps = []struct {
	oc    clause.OnConflict
	batch int
}{
	{clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}, 1},
	{clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name", "n"})}, 1},
	{clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}, 4},
	{clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name", "n"})}, 4},
}

// contentionRun runs one round of the workload on model T (made by mk) and
// returns how many statements failed. Workers use distinct seeds; the same
// seeds serve both models so the two see the same statements.
func contentionRun[T any](db *gorm.DB, round int, mk func(email string, n int) T) int64 {
	var failed atomic.Int64
	var wg sync.WaitGroup
	for w := range contentionWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(round), uint64(w)))
			for i := range contentionEach {
				op := contentionOps[(w+i)%len(contentionOps)]
				rows := make([]T, 0, op.batch)
				for _, e := range r.Perm(contentionEmails)[:op.batch] {
					rows = append(rows, mk(fmt.Sprintf("e%02d@x", e), i))
				}
				var err error
				if op.batch == 1 {
					err = db.Clauses(op.oc).Create(&rows[0]).Error
				} else {
					err = db.Clauses(op.oc).Create(&rows).Error
				}
				if err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return failed.Load()
}

// TestUpsertContention runs the same concurrent upsert workload (8
// goroutines, UpdateAll and DoUpdates, single rows and batches of four, on
// a unique email column) on a plugin-keyed model and on an auto-increment
// model, round by round in one run, and compares failed statements
// (deadlocks, serialization failures). The plugin's model may fail at most
// 1.5 times as often as the auto-increment one plus 8 statements on
// MariaDB. On PostgreSQL the plugin adds no statement to these upserts
// (RETURNING does the work; checked first, statement by statement), so the
// two counts differ by chance alone; deadlocks come in bursts, and the
// ratio seen over runs on a busy 2-core machine spread from 0.6 to 1.7, so
// the bound there is 2 times plus 10: it catches a plugin that adds
// failures wholesale, not a few.
func TestUpsertContention(t *testing.T) {
	if testing.Short() {
		t.Skip("contention workload")
	}
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, quickDeadlocks(d), gormplugin.New(gormplugin.WithNode(1)))
			if d.Name == "sqlite" {
				sqlDB, err := db.DB()
				if err != nil {
					t.Fatal(err)
				}
				sqlDB.SetMaxOpenConns(1) // one writer: SQLite's own rule
			}
			migrate(t, db, &rivalKit{}, &rivalSerial{})
			if d.Name == "postgres" {
				oneStatementEach(t, db)
			}
			var kit, serial int64
			for round := range contentionRounds {
				runKit := func() {
					kit += contentionRun(db, round, func(e string, n int) rivalKit { return rivalKit{Email: e, Name: "k", N: n} })
				}
				runSerial := func() {
					serial += contentionRun(db, round, func(e string, n int) rivalSerial { return rivalSerial{Email: e, Name: "s", N: n} })
				}
				if round%2 == 0 { // alternate, so neither runs on a warmer server
					runKit()
					runSerial()
				} else {
					runSerial()
					runKit()
				}
			}
			total := contentionRounds * contentionWorkers * contentionEach
			t.Logf("%s: failed statements over %d×%d: idkit key %d, auto-increment %d",
				d.Name, contentionRounds, contentionWorkers*contentionEach, kit, serial)
			limit := 2*float64(serial) + 10
			if d.Name == "mariadb" {
				limit = 1.5*float64(serial) + 8
			}
			if float64(kit) > limit {
				t.Errorf("idkit key: %d of %d failed, more than %.0f (auto-increment: %d)", kit, total, limit, serial)
			}
			checkStoredKeys(t, db)
		})
	}
}

// checkStoredKeys checks the rows of rivalKit are distinct by key and email.
func checkStoredKeys(t *testing.T, db *gorm.DB) {
	t.Helper()
	var rows []rivalKit
	if err := db.Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	keys := make([]types.Snowflake, 0, len(rows))
	for _, r := range rows {
		keys = append(keys, r.ID)
	}
	slices.Sort(keys)
	if len(slices.Compact(keys)) != len(rows) || len(rows) > contentionEmails {
		t.Errorf("%d rows, keys not distinct or more rows than emails", len(rows))
	}
}

// quickDeadlocks returns d, on PostgreSQL with connections that detect
// deadlocks after 50ms instead of the server's 1s (a session setting), so
// the workload does not wait out each deadlock.
func quickDeadlocks(d dialect) dialect {
	if d.Name != "postgres" {
		return d
	}
	open := func(t testing.TB) gorm.Dialector {
		cfg, err := pgx.ParseConfig(testdb.PostgresDSN())
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["deadlock_timeout"] = "50ms"
		return postgres.New(postgres.Config{Conn: stdlib.OpenDB(*cfg)})
	}
	return dialect{Name: d.Name, Server: d.Server, Open: open}
}

// oneStatementEach checks that on PostgreSQL each upsert form of the
// workload, single and batch, with a conflict, runs one statement: the
// plugin adds none.
func oneStatementEach(t *testing.T, db *gorm.DB) {
	t.Helper()
	require.NoError(t, db.Create(&rivalKit{Email: "seen@x"}).Error)
	for i, op := range contentionOps {
		rows := []rivalKit{{Email: "seen@x", N: i}, {Email: fmt.Sprintf("new%d@x", i)}, {Email: fmt.Sprintf("new%d@y", i)}, {Email: fmt.Sprintf("new%d@z", i)}}[:op.batch]
		r := &ddlRecorder{Interface: logger.Discard}
		tx := db.Session(&gorm.Session{Logger: r, SkipDefaultTransaction: true}).Clauses(op.oc)
		if op.batch == 1 {
			require.NoError(t, tx.Create(&rows[0]).Error)
		} else {
			require.NoError(t, tx.Create(&rows).Error)
		}
		require.Len(t, r.stmt, 1, "op %d: %q", i, r.stmt)
		var seen rivalKit
		require.NoError(t, db.First(&seen, "email = ?", "seen@x").Error)
		require.Equal(t, seen.ID, rows[0].ID, "op %d", i)
	}
	require.NoError(t, db.Where("1 = 1").Delete(&rivalKit{}).Error)
}
