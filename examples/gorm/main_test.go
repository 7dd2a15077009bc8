package main

import (
	"os"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
)

// TestMain prints how many tests each missing database server skipped.
func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

func TestGormExampleRuns(t *testing.T) {
	cases := []struct{ driver, dsn string }{
		{"sqlite", ""},
		{"postgres", testdb.PostgresDSN()},
		{"mysql", testdb.MySQLDSN()},
	}
	for _, c := range cases {
		t.Run(c.driver, func(t *testing.T) {
			switch c.driver {
			case "postgres":
				testdb.Postgres(t) // skips, or fails under CI, without a server
			case "mysql":
				testdb.MySQL(t)
			}
			if err := run(c.driver, c.dsn, 1, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}
