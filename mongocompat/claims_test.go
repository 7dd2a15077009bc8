package mongocompat_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The package docs and README: mongocompat imports neither MongoDB driver,
// mongov2 compiles no v1 package and mongov1 no v2 package.
func TestClaimEachPackageCompilesOneDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	drivers := func(pkg string) (v1, v2 int) {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, p := range strings.Fields(string(out)) {
			switch {
			case strings.HasPrefix(p, "go.mongodb.org/mongo-driver/v2/"):
				v2++
			case strings.HasPrefix(p, "go.mongodb.org/mongo-driver/"):
				v1++
			}
		}
		return v1, v2
	}
	const mod = "github.com/idkit-go/idkit/mongocompat"
	for _, c := range []struct {
		pkg    string
		v1, v2 bool
	}{{mod, false, false}, {mod + "/mongov2", false, true}, {mod + "/mongov1", true, false}} {
		v1, v2 := drivers(c.pkg)
		if (v1 > 0) != c.v1 || (v2 > 0) != c.v2 {
			t.Errorf("%s compiles %d v1 and %d v2 driver packages; want v1 %v, v2 %v", c.pkg, v1, v2, c.v1, c.v2)
		}
	}
}
