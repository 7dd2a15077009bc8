package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// report is every run of one invocation.
type report struct {
	rows, batch, chunk, payload, reps int
	prepare, autocommit, perStmt      bool
	pgxRegister, interpolate          bool
	warmup                            int
	versions                          []string
	loadBefore, loadAfter             string
	start                             time.Time
	elapsed                           time.Duration
	results                           []result
}

// markdown returns the tables: one per database and mode, one row per key
// kind, each figure the median over the repetitions.
func (rep *report) markdown(kinds []keyKind) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rows of a %d-byte payload per run, %s-row INSERT statements; ", count(rep.rows), rep.payload, count(rep.batch))
	if rep.autocommit {
		b.WriteString("GORM inserts them all in one `CreateInBatches` call with `SkipDefaultTransaction` (each INSERT commits on its own)")
	} else {
		fmt.Fprintf(&b, "GORM inserts %s rows per `CreateInBatches` call (one transaction)", count(rep.chunk*rep.batch))
	}
	if rep.prepare {
		b.WriteString(", with `PrepareStmt`")
	}
	if rep.pgxRegister {
		b.WriteString("; on PostgreSQL every connection has `pgxtypes.Register`")
	}
	if rep.interpolate {
		b.WriteString("; the MariaDB DSN sets `interpolateParams=true`")
	}
	if rep.warmup > 0 {
		fmt.Fprintf(&b, "; a warm-up run of %s rows per key kind first, not counted", count(rep.warmup))
	}
	b.WriteString("; ")
	if rep.reps == 1 {
		b.WriteString("one run per key kind.\n")
	} else {
		fmt.Fprintf(&b, "median of %d runs per key kind, the kinds taking turns.\n", rep.reps)
	}
	fmt.Fprintf(&b, "%s, %s, %s/%s, %d CPUs. Load average %s before the runs and %s after them (%s, %s in all).\n",
		strings.Join(rep.versions, ", "), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		rep.loadBefore, rep.loadAfter, rep.start.UTC().Format("2006-01-02 15:04 MST"), rep.elapsed.Round(time.Second))
	type group struct{ db, mode string }
	var groups []group
	for _, r := range rep.results {
		if g := (group{r.db, r.mode}); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		fmt.Fprintf(&b, "\n**%s, %s**\n\n", dbLabel(g.db), modeLabel(g.mode, rep.perStmt))
		cols := []string{"keys", "rows/s", "× sequence", "last quarter rows/s", "× sequence"}
		if g.db != "sqlite" {
			cols = append(cols, "× sequence by CPU")
		}
		switch g.db {
		case "postgres":
			cols = append(cols, "PK index", "table", "WAL", "client CPU per row", "backend CPU per row", "wall − both CPUs per row")
		case "mariadb":
			cols = append(cols, "clustered index (PK + rows)", "client CPU per row", "server thread CPU per row", "wall − both CPUs per row")
		default:
			cols = append(cols, "file", "client CPU per row")
		}
		heap := slices.ContainsFunc(rep.results, func(r result) bool { return r.db == g.db && r.mode == g.mode && r.mallocs > 0 })
		if heap { // runs made before insertbench counted them have none
			cols = append(cols, "client heap per row", "client GCs per run")
		}
		b.WriteString("| " + strings.Join(cols, " | ") + " |\n|---|" + strings.Repeat("---:|", len(cols)-1) + "\n")
		for _, k := range kinds {
			var runs []result
			var ratio, lastRatio, cpuRatio []float64
			for _, r := range rep.results {
				if r.db != g.db || r.mode != g.mode || r.key != k.name {
					continue
				}
				runs = append(runs, r)
				if seq, ok := rep.find(r.db, r.mode, "seq", r.rep); ok {
					ratio = append(ratio, r.rate()/seq.rate())
					lastRatio = append(lastRatio, r.lastRate()/seq.lastRate())
					if c := r.clientCPU + r.srvCPU; c > 0 {
						cpuRatio = append(cpuRatio, (seq.clientCPU+seq.srvCPU)/c)
					}
				}
			}
			if len(runs) == 0 {
				continue
			}
			med := func(f func(result) float64) float64 {
				v := make([]float64, len(runs))
				for i, r := range runs {
					v[i] = f(r)
				}
				return median(v)
			}
			row := []string{k.label,
				rate(med(result.rate)), times(ratio, k.seq),
				rate(med(result.lastRate)), times(lastRatio, k.seq)}
			if g.db != "sqlite" {
				row = append(row, times(cpuRatio, k.seq))
			}
			perRow := func(f func(result) float64) string {
				v := med(func(r result) float64 { return f(r) / float64(r.rows) * 1e6 })
				if v == 0 {
					return "–"
				}
				return fmt.Sprintf("%.2f µs", v)
			}
			size := func(f func(result) int64) string {
				return fmt.Sprintf("%.0f MB", med(func(r result) float64 { return mb(f(r)) }))
			}
			client := perRow(func(r result) float64 { return r.clientCPU })
			server := perRow(func(r result) float64 { return r.srvCPU })
			// The time neither side was on a CPU, less the time both were.
			rest := fmt.Sprintf("%.2f µs", med(func(r result) float64 { return (r.secs - r.clientCPU - r.srvCPU) / float64(r.rows) * 1e6 }))
			switch g.db {
			case "postgres":
				row = append(row, size(func(r result) int64 { return r.pk }), size(func(r result) int64 { return r.total }),
					size(func(r result) int64 { return r.wal }), client, server, rest)
			case "mariadb":
				row = append(row, size(func(r result) int64 { return r.pk }), client, server, rest)
			default:
				row = append(row, size(func(r result) int64 { return r.total }), client)
			}
			if heap {
				row = append(row, fmt.Sprintf("%.0f B", med(func(r result) float64 { return float64(r.allocB) / float64(r.rows) })),
					fmt.Sprintf("%.0f", med(func(r result) float64 { return float64(r.gcs) })))
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	return b.String()
}

func (rep *report) find(db, mode, key string, n int) (result, bool) {
	for _, r := range rep.results {
		if r.db == db && r.mode == mode && r.key == key && r.rep == n {
			return r, true
		}
	}
	return result{}, false
}

func dbLabel(name string) string {
	switch name {
	case "postgres":
		return "PostgreSQL"
	case "mariadb":
		return "MariaDB (InnoDB)"
	}
	return "SQLite"
}

func modeLabel(mode string, perStmt bool) string {
	switch {
	case mode == "raw" && perStmt:
		return "multi-row INSERT through database/sql (each statement prepared, executed and closed, as GORM's are; autocommit)"
	case mode == "raw":
		return "multi-row INSERT through database/sql (one prepared statement per batch size, autocommit)"
	}
	return "GORM `CreateInBatches` with gormplugin registered"
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// rate formats rows per second in thousands.
func rate(v float64) string { return fmt.Sprintf("%.0fk", v/1000) }

// times formats the median ratio to the sequence.
func times(v []float64, isSeq bool) string {
	if isSeq {
		return "1"
	}
	if len(v) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", median(v))
}

// count formats n with thousands separators or as millions.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%100_000 == 0:
		return fmt.Sprintf("%gM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%d,%03d", n/1000, n%1000)
	}
	return fmt.Sprint(n)
}
