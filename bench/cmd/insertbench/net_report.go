package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// netLabel describes method m of scenario on db, for key kind k.
func netLabel(db, scenario, m string, seq bool) string {
	switch scenario + "/" + m {
	case "bulk/returning":
		return "multi-row `INSERT … RETURNING id`, keys read back"
	case "bulk/copy":
		if seq {
			return "`COPY` (pgx `CopyFrom`), no keys learned: the floor"
		}
		return "`COPY` (pgx `CopyFrom`), keys made first"
	case "bulk/insert":
		if seq {
			return "multi-row `INSERT`, keys from `LAST_INSERT_ID()`"
		}
		return "multi-row `INSERT`, keys made first"
	case "bulk/loaddata":
		if seq {
			return "`LOAD DATA LOCAL INFILE`, no keys learned: the floor"
		}
		return "`LOAD DATA LOCAL INFILE`, keys made first"
	case "bulk/gorm":
		return "GORM `CreateInBatches`, `SkipDefaultTransaction`"
	case "orders/two":
		return "order `INSERT`, its key back, then the lines: 2 round trips"
	case "orders/pipelined":
		if db == "postgres" {
			return "order and lines in one pgx `Batch`: 1 round trip"
		}
		return "order and lines in one multi-statement query: 1 round trip"
	case "orders/gorm":
		return "GORM `db.Create(&order)` with its `Lines`, default transaction"
	case "retry/insert":
		return "multi-row `INSERT` in a transaction, replayed as built"
	}
	return m
}

func keyLabel(name string) string {
	k, err := keyByName(name)
	if err != nil {
		return name
	}
	return k.label
}

func medianDur(v []time.Duration) time.Duration {
	slices.Sort(v)
	return v[len(v)/2]
}

func rttLabel(d time.Duration) string {
	if d == 0 {
		return "loopback"
	}
	return fmt.Sprintf("%g ms", float64(d)/float64(time.Millisecond))
}

// markdown returns a table per database and scenario: one row per method
// and key kind, per round trip the median rate over the repetitions and
// its ratio to the sequence's keyed path (INSERT … RETURNING, LAST_INSERT_ID,
// two round trips per order), or to the sequence by the same method when
// the runs have no keyed path; for retries, the rows duplicated.
func (rep *netReport) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Through a TCP proxy that delays every byte by half the round trip each way (loopback: straight to the server, no proxy); the round trip measured is the median of 21 `SELECT 1` (MariaDB: `DO 1`) on each run's connection. ")
	has := func(scenario string) bool {
		return slices.ContainsFunc(rep.Runs, func(r netRun) bool { return r.Scenario == scenario })
	}
	if has("bulk") {
		fmt.Fprintf(&b, "Bulk: %s rows of a %d-byte payload per run, %s rows per INSERT statement (each committed on its own), %s rows per `COPY`, `LOAD DATA` or `CreateInBatches` call. ", count(rep.Rows), rep.Payload, count(rep.Batch), count(rep.CopyBatch))
	}
	if has("orders") {
		fmt.Fprintf(&b, "Orders: %s orders of %d lines per run, each order and its lines one transaction. ", count(rep.Orders), rep.Lines)
	}
	if has("retry") {
		fmt.Fprintf(&b, "Retries: %d batches of %s rows of a %d-byte payload, each committed, the reply to its COMMIT lost, replayed once. ", rep.RetryBatches, count(rep.Batch), rep.Payload)
	}
	if rep.AsyncCommit {
		b.WriteString("On PostgreSQL every connection sets `synchronous_commit = off`: a COMMIT does not wait for its WAL flush. ")
	}
	if rep.Reps == 1 {
		b.WriteString("One run per configuration.\n")
	} else {
		fmt.Fprintf(&b, "Median of %d runs per configuration, the configurations taking turns.\n", rep.Reps)
	}
	fmt.Fprintf(&b, "%s, %s, %s/%s, %d CPUs. Load average %s before the runs and %s after them (%s, %s in all).\n",
		strings.Join(rep.Versions, ", "), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		rep.LoadBefore, rep.LoadAfter, rep.Start.UTC().Format("2006-01-02 15:04 MST"), rep.Elapsed.Round(time.Second))

	type group struct{ db, scenario string }
	type row struct{ method, key string }
	var groups []group
	var rtts []time.Duration
	for _, r := range rep.Runs {
		if g := (group{r.DB, r.Scenario}); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if !slices.Contains(rtts, r.RTT) {
			rtts = append(rtts, r.RTT)
		}
	}
	slices.Sort(rtts)
	for _, g := range groups {
		var rows []row
		runs := map[row]map[time.Duration][]netRun{}
		var measured = map[time.Duration][]time.Duration{}
		for _, r := range rep.Runs {
			if r.DB != g.db || r.Scenario != g.scenario {
				continue
			}
			k := row{r.Method, r.Key}
			if runs[k] == nil {
				rows = append(rows, k)
				runs[k] = map[time.Duration][]netRun{}
			}
			runs[k][r.RTT] = append(runs[k][r.RTT], r)
			measured[r.RTT] = append(measured[r.RTT], r.MeasuredRTT)
		}
		fmt.Fprintf(&b, "\n**%s, %s**\n\n", dbLabel(g.db), map[string]string{"bulk": "bulk load, keys known afterwards", "orders": "orders with their lines", "retry": "a batch replayed after its COMMIT's reply was lost"}[g.scenario])
		if g.scenario == "retry" {
			b.WriteString("| how | keys | round trip added | rows meant | rows duplicated | replays refused as duplicate keys |\n|---|---|---|---:|---:|---:|\n")
			for _, k := range rows {
				for _, rtt := range rtts {
					for _, r := range runs[k][rtt] {
						fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d of %d |\n", netLabel(g.db, g.scenario, k.method, r.Key == "seq"), keyLabel(k.key), retryRTT(rtt), count(r.Units), count(r.Duplicates), r.Refused, rep.RetryBatches)
					}
				}
			}
			continue
		}
		unit := "rows/s"
		base := row{"returning", "seq"}
		if g.db == "mariadb" {
			base = row{"insert", "seq"}
		}
		if g.scenario == "orders" {
			unit, base = "orders/s", row{"two", "seq"}
		}
		rate := func(k row, rtt time.Duration) float64 {
			var v []float64
			for _, r := range runs[k][rtt] {
				v = append(v, r.rate())
			}
			if len(v) == 0 {
				return 0
			}
			return median(v)
		}
		cols := []string{"how", "keys"}
		for _, rtt := range rtts {
			m := ""
			if len(measured[rtt]) > 0 {
				m = fmt.Sprintf(" (measured %.2f ms)", float64(medianDur(measured[rtt]))/1e6)
			}
			cols = append(cols, rttLabel(rtt)+m+" "+unit, "×")
		}
		b.WriteString("| " + strings.Join(cols, " | ") + " |\n|---|---|" + strings.Repeat("---:|", len(cols)-2) + "\n")
		for _, k := range rows {
			cells := []string{netLabel(g.db, g.scenario, k.method, k.key == "seq"), keyLabel(k.key)}
			for _, rtt := range rtts {
				v, bv := rate(k, rtt), rate(base, rtt)
				if len(runs[base]) == 0 { // a run of one method: against the sequence's
					bv = rate(row{k.method, "seq"}, rtt)
				}
				if v == 0 {
					cells = append(cells, "", "")
					continue
				}
				x := ""
				if bv > 0 {
					x = fmt.Sprintf("%.2f×", v/bv)
				}
				cells = append(cells, rateText(v), x)
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
	}
	return b.String()
}

// rateText writes a rate to three significant figures.
func rateText(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// retryRTT names a retry run's round trip: its connections always go
// through the proxy, which loses the reply.
func retryRTT(d time.Duration) string {
	if d == 0 {
		return "0 (through the proxy, no delay)"
	}
	return rttLabel(d)
}
