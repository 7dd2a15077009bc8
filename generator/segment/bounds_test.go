package segment_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/generator/segment"
)

// TestMaxIDOutOfRange: a tag's max_id so large that the next fetch would
// overflow BIGINT (PostgreSQL and MariaDB then failed every fetch with
// "bigint out of range", SQLite turned the sum into a REAL the scan
// refused) fails the fetch with ErrLost naming the field, and the tag
// fetches again once the operator sets max_id right.
func TestMaxIDOutOfRange(t *testing.T) {
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			db := d.open(t)
			tb := table(t, db)
			ctx := context.Background()
			o := segment.Options{Table: tb, Step: 10, MaxStep: 10}
			a, err := segment.New(ctx, db, "orders", o)
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
			if _, err := db.Exec("UPDATE " + tb + " SET max_id = 9223372036854775800 WHERE biz_tag = 'orders'"); err != nil {
				t.Fatal(err)
			}
			_, err = segment.New(ctx, db, "orders", o)
			t.Logf("New over a max_id of 9223372036854775800: %v", err)
			if !errors.Is(err, segment.ErrLost) || !strings.Contains(err.Error(), "max_id of tag \"orders\" holds 9223372036854775800") {
				t.Fatalf("New over a max_id the fetch would overflow: %v; want ErrLost naming max_id", err)
			}
			if _, err := db.Exec("UPDATE " + tb + " SET max_id = 1000 WHERE biz_tag = 'orders'"); err != nil {
				t.Fatal(err)
			}
			a, err = segment.New(ctx, db, "orders", o)
			if err != nil {
				t.Fatalf("New after the repair: %v", err)
			}
			defer a.Close()
			id, err := a.Next(ctx)
			if err != nil || id != 1001 {
				t.Fatalf("the first ID after the repair: %d, %v; want 1001", id, err)
			}
		})
	}
}
