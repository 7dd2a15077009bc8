package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// idkitKeys are the key kinds the README's sentence speaks for.
var idkitKeys = []string{"snowflake", "objectid", "uuidv7"}

// results holds every saved run of the -net scenarios, by file.
type results map[string][]run

func loadResults(dir string, files ...string) (results, error) {
	res := results{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if errors.Is(err, fs.ErrNotExist) && strings.HasSuffix(f, "-async.json") {
			continue // optional
		}
		if err != nil {
			return nil, err
		}
		var rep report
		if err := json.Unmarshal(b, &rep); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		res[f] = rep.Runs
	}
	return res, nil
}

// rate returns the median rate of method with key on db at rtt in file.
func (res results) rate(file, db, method, key string, rtt time.Duration) float64 {
	var v []float64
	for _, r := range res[file] {
		if r.DB == db && r.Method == method && r.Key == key && r.RTT == rtt && r.Secs > 0 {
			v = append(v, float64(r.Units)/r.Secs)
		}
	}
	if len(v) == 0 {
		return 0
	}
	return median(v)
}

// measured returns the median round trip measured on db's runs at rtt in
// file, in ms.
func (res results) measured(file, db string, rtt time.Duration) float64 {
	var v []float64
	for _, r := range res[file] {
		if r.DB == db && r.RTT == rtt {
			v = append(v, float64(r.MeasuredRTT)/float64(time.Millisecond))
		}
	}
	if len(v) == 0 {
		return 0
	}
	return median(v)
}

// span returns "a–b×": the least and greatest ratio over idkit's keys of
// method to the sequence's base method.
func (res results) span(file, db, method, base string, rtt time.Duration) string {
	b := res.rate(file, db, base, "seq", rtt)
	var v []float64
	for _, k := range idkitKeys {
		if r := res.rate(file, db, method, k, rtt); r > 0 && b > 0 {
			v = append(v, r/b)
		}
	}
	if len(v) == 0 {
		return "?"
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if fmt.Sprintf("%.1f", lo) == fmt.Sprintf("%.1f", hi) {
		return fmt.Sprintf("%.1f×", lo)
	}
	return fmt.Sprintf("%.1f–%.1f×", lo, hi)
}

// duplicates returns the rows the retry runs duplicated with the sequence
// and with every client key, on every database.
func (res results) duplicates() (seq, client, meant int) {
	for _, r := range res["net-retry.json"] {
		if r.Key == "seq" {
			seq += r.Duplicates
			meant += r.Units
		} else {
			client += r.Duplicates
		}
	}
	return seq, client, meant
}

// readme returns the README's sentence on the network figures.
func readme(res results) string {
	const half, two = 500 * time.Microsecond, 2 * time.Millisecond
	var b strings.Builder
	seq, client, meant := res.duplicates()
	async := ""
	if len(res["net-orders-async.json"]) > 0 {
		async = " (" + res.span("net-orders-async.json", "postgres", "pipelined", "two", two) + " when its COMMIT does not wait for the disk)"
	}
	fmt.Fprintf(&b, "Over a network, where the sequence costs round trips, idkit's keys win: "+
		"at a round trip of %.2f ms (measured), a bulk load that keeps its keys ran %s the rows/s of the sequence's keyed path on PostgreSQL "+
		"(`COPY` against `INSERT … RETURNING`) and %s on MariaDB (`LOAD DATA` against multi-row `INSERT`); "+
		"at %.2f ms, an order with its 10 lines in one round trip ran %s the orders/s of the sequence's two on PostgreSQL%s and %s on MariaDB; "+
		"batches replayed after the reply to their COMMIT was lost duplicated %s of %s rows with the sequence and %d with client keys "+
		"([chart and tables](docs/benchmarks.md#over-a-network-where-keys-made-before-the-insert-win)).\n",
		res.measured("net-bulk.json", "postgres", half), res.span("net-bulk.json", "postgres", "copy", "returning", half),
		res.span("net-bulk.json", "mariadb", "loaddata", "insert", half),
		res.measured("net-orders.json", "postgres", two), res.span("net-orders.json", "postgres", "pipelined", "two", two), async,
		res.span("net-orders.json", "mariadb", "pipelined", "two", two),
		thousands(seq), thousands(meant), client)
	return b.String()
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
