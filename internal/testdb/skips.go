package testdb

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// EnvSkipReport names the environment variable that, when set to a file
// name, makes [Main] also append its summary line to that file, so a run
// over many packages (whose output go test hides when they pass) can list
// every skip at the end.
const EnvSkipReport = "IDKIT_SKIP_REPORT"

// skips counts, per server, the tests skipped because it is missing.
var skips struct {
	mu     sync.Mutex
	count  map[string]int
	reason map[string]error // the first error seen
}

func recordSkip(server string, err error) {
	skips.mu.Lock()
	defer skips.mu.Unlock()
	if skips.count == nil {
		skips.count, skips.reason = map[string]int{}, map[string]error{}
	}
	skips.count[server]++
	if _, ok := skips.reason[server]; !ok {
		skips.reason[server] = err
	}
}

// down returns the error that made server unavailable earlier in this test
// binary, or nil.
func down(server string) error {
	skips.mu.Lock()
	defer skips.mu.Unlock()
	return skips.reason[server]
}

// SkipIfDown skips t, as [Unavailable] does, if server was found
// unavailable earlier in this test binary.
func SkipIfDown(t testing.TB, server string) {
	t.Helper()
	if err := down(server); err != nil {
		Unavailable(t, server, err)
	}
}

// EnvFaults names the environment variable that runs the store-fault
// tests, which start private database servers (a replica to promote, a
// primary to kill) and take minutes: IDKIT_FAULTS=1 go test ./... runs
// them, as CI does. Without it each such test skips, naming the variable,
// and [SkipSummary] counts them.
const EnvFaults = "IDKIT_FAULTS"

// RequireFaults skips t, a store-fault test, unless [EnvFaults] is set.
func RequireFaults(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvFaults) != "" {
		return
	}
	recordSkip("store-fault servers", fmt.Errorf("%s=1 runs them", EnvFaults))
	t.Skipf("a store-fault test, which starts private servers: %s=1 runs it", EnvFaults)
}

// SkipSummary returns one line naming, per missing server, how many tests
// (and subtests) it skipped and the first error, or "" if none was skipped.
func SkipSummary() string {
	skips.mu.Lock()
	defer skips.mu.Unlock()
	if len(skips.count) == 0 {
		return ""
	}
	servers := make([]string, 0, len(skips.count))
	total := 0
	for s, n := range skips.count {
		servers = append(servers, s)
		total += n
	}
	slices.Sort(servers)
	parts := make([]string, len(servers))
	for i, s := range servers {
		reason := strings.Join(strings.Fields(skips.reason[s].Error()), " ")
		parts[i] = fmt.Sprintf("%s unavailable, %d skipped (%s)", s, skips.count[s], reason)
		if s == "store-fault servers" {
			parts[i] = fmt.Sprintf("%d store-fault tests (%s)", skips.count[s], reason)
		}
	}
	return fmt.Sprintf("testdb: %d tests skipped: %s", total, strings.Join(parts, "; "))
}

// Main runs the tests of m and then, if any test was skipped for a missing
// server, prints [SkipSummary] (go test shows it with -v, or for a package
// that fails); with IDKIT_SKIP_REPORT set it also appends the line, after
// the package's directory, to that file.
// Call it from TestMain: os.Exit(testdb.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if s := SkipSummary(); s != "" {
		fmt.Println(s)
		if path := os.Getenv(EnvSkipReport); path != "" {
			line := s + "\n"
			if wd, err := os.Getwd(); err == nil {
				line = wd + ": " + line
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				_, err = f.WriteString(line)
				err = errors.Join(err, f.Close())
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "testdb: writing %s: %v\n", EnvSkipReport, err)
			}
		}
	}
	return code
}
