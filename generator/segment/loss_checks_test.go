package segment_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/generator/segment"
)

// The checks of the loss and fault tests beyond the count of repeats:
// what the allocators said.

// checkDeleted: New refused to seed the deleted row, naming the fix.
func checkDeleted(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, segment.ErrLost) || !strings.Contains(err.Error(), "INSERT its row with max_id above") {
		t.Fatalf("New after the row was deleted: %v, want ErrLost naming the operator's step", err)
	}
}

// checkSetBack: the fetches after the row was set back failed with
// ErrLost, naming how to clear it.
func checkSetBack(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, segment.ErrLost) || !errors.Is(err, segment.ErrUnavailable) || !strings.Contains(err.Error(), "SET ident = NULL") {
		t.Fatalf("Next after the row was set back: %v, want ErrUnavailable wrapping ErrLost", err)
	}
}

// checkFailover: the allocators handed out IDs again after the failover.
func checkFailover(t *testing.T, after int, err error) {
	t.Helper()
	if after == 0 {
		t.Fatalf("no id handed out after the failover; last error: %v", err)
	}
}

// checkSplit: New on the old primary, whose replica left, failed.
func checkSplit(t *testing.T, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "acknowledge") {
		t.Fatalf("New on the old primary: %v, want the replicas' acknowledgement refused", err)
	}
}

// checkRefused: New refused a MariaDB primary with an asynchronous
// replica, naming the setting and the option.
func checkRefused(t *testing.T, name string, err error) {
	t.Helper()
	if name != "mariadb-async" || !errors.Is(err, segment.ErrInvalidConfig) ||
		!strings.Contains(err.Error(), "rpl_semi_sync_master_enabled") || !strings.Contains(err.Error(), "AllowSplitBrain") {
		t.Fatalf("%s: New: %v", name, err)
	}
}
