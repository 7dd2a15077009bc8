package types_test

import (
	"os/exec"
	"strings"
	"testing"
)

// deps returns the packages `go list -deps` lists for pkg with the given
// build tags (comma-separated, may be empty).
func deps(t *testing.T, pkg, tags string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-tags", tags, pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// The package doc and README: importing types pulls in no SQL driver and no
// MongoDB driver; GORM's interface packages only, and none with the
// idkit_nogorm build tag.
func TestClaimTypesImportsNoDriver(t *testing.T) {
	drivers := []string{"go.mongodb.org/", "gorm.io/driver/", "github.com/jackc/", "github.com/lib/pq",
		"github.com/go-sql-driver/", "github.com/mattn/go-sqlite3", "modernc.org/", "github.com/glebarez/"}
	for _, tags := range []string{"", "idkit_nogorm"} {
		for _, p := range deps(t, "github.com/idkit-go/idkit/types", tags) {
			for _, d := range drivers {
				if strings.HasPrefix(p, d) {
					t.Errorf("tags %q: types compiles %s", tags, p)
				}
			}
			if tags != "" && strings.HasPrefix(p, "gorm.io/") {
				t.Errorf("tags %q: types compiles %s", tags, p)
			}
		}
	}
}
