package gormplugin_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// The rows of the partitioned tables: the same columns, with and without a
// scatter form.
type (
	ScatterPartEvent struct {
		ID   types.Snowflake `idkit:"scatter=shard:4"`
		Body string
	}
	PlainPartEvent struct {
		ID   types.Snowflake
		Body string
	}
)

// partitionRows is how many rows TestScatterPartitionsPostgres inserts
// with scatter keys (fewer under the race detector: scatter_race_test.go).
var partitionRows = 1_000_000

// partitionDDL returns the PostgreSQL block of docs/distributed-sql.md that
// makes the partitioned table, for table instead of events.
func partitionDDL(t *testing.T, table string) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/distributed-sql.md")
	require.NoError(t, err)
	for _, block := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(block[1], "PARTITION BY RANGE") {
			return regexp.MustCompile(`\bevents`).ReplaceAllString(block[1], table)
		}
	}
	t.Fatal("docs/distributed-sql.md has no PARTITION BY RANGE block")
	return ""
}

// TestScatterPartitionsPostgres makes the table of docs/distributed-sql.md,
// partitioned by range on the key into 16 partitions, inserts 1,000,000
// rows through GORM with the plugin filling shard:4 keys, and counts the
// rows of each partition: each holds the mean +-10%. Then 100,000 rows with
// ordered keys all land in one partition.
func TestScatterPartitionsPostgres(t *testing.T) {
	db := openDB(t, dialects[1], gormplugin.New(gormplugin.WithNode(5)))
	rows := partitionRows
	counts := fillPartitions(t, db, &ScatterPartEvent{}, rows, func(n int) any {
		batch := make([]ScatterPartEvent, n)
		for i := range batch {
			batch[i].Body = "e"
		}
		return &batch
	})
	require.Len(t, counts, 16, "rows in %d partitions: %v", len(counts), counts)
	mean := rows / 16
	for p, n := range counts {
		if n < mean*9/10 || n > mean*11/10 {
			t.Errorf("partition %s holds %d rows; want %d +-10%% (all: %v)", p, n, mean, counts)
		}
	}
	t.Logf("shard:4 keys: rows per partition %v", counts)

	plain := fillPartitions(t, db, &PlainPartEvent{}, rows/10, func(n int) any {
		batch := make([]PlainPartEvent, n)
		for i := range batch {
			batch[i].Body = "e"
		}
		return &batch
	})
	most := 0
	for _, n := range plain {
		most = max(most, n)
	}
	if most < rows/10*99/100 {
		t.Errorf("ordered keys: the fullest partition holds %d of %d rows; want nearly all (%v)", most, rows/10, plain)
	}
	t.Logf("ordered keys: rows per partition %v", plain)
}

// fillPartitions makes model's table with the documented DDL, inserts rows
// rows in batches of 5,000 (made by batch) with CreateInBatches, and
// returns the row count of each partition, read with plain SQL.
func fillPartitions(t *testing.T, db *gorm.DB, model any, rows int, batch func(n int) any) map[string]int {
	t.Helper()
	table := tableOf(t, db, model)
	require.NoError(t, db.Exec(partitionDDL(t, table)).Error)
	const size = 5000
	for done := 0; done < rows; done += size {
		require.NoError(t, db.Model(model).CreateInBatches(batch(size), size).Error)
	}
	var parts []struct {
		Part string
		N    int
	}
	require.NoError(t, db.Raw("SELECT tableoid::regclass::text AS part, count(*) AS n FROM "+table+" GROUP BY 1").Scan(&parts).Error)
	counts := map[string]int{}
	total := 0
	for _, p := range parts {
		counts[p.Part] = p.N
		total += p.N
	}
	require.Equal(t, rows, total)
	return counts
}
