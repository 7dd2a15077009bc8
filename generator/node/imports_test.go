package node_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The package doc and README: importing generator/node compiles no
// go-redis; only package redislease does.
func TestClaimNodeCompilesNoRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	count := func(pkg string) int {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		n := 0
		for _, p := range strings.Fields(string(out)) {
			if strings.HasPrefix(p, "github.com/redis/") {
				n++
			}
		}
		return n
	}
	if n := count("github.com/idkit-go/idkit/generator/node"); n != 0 {
		t.Errorf("generator/node compiles %d go-redis packages", n)
	}
	if n := count("github.com/idkit-go/idkit/generator/node/redislease"); n == 0 {
		t.Error("redislease compiles no go-redis package")
	}
}
