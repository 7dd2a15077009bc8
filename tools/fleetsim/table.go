package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// unset is a figure a report does not have.
var unset = regexp.MustCompile(`\{[a-z0-9_]+\}`)

type column struct{ head, f string }

// runColumns are the columns of every run.
var runColumns = []column{
	{"run", "{file}"},
	{"server", "{server}"},
	{"holders / processes", "{holders} / {workers}"},
	{"TTL", "{ttl}"},
	{"length", "{duration}"},
	{"churn: partitions, pauses, kills", "{partitions}, {pauses}, {kills}"},
	{"IDs checked", "{ids}"},
	{"duplicates", "{duplicates}"},
	{"claim at start p50 / p99 / all", "{start_claim_p50} / {start_claim_p99} / {start_all_claimed_after}"},
	{"heal p50 / p99 (healed / fenced)", "{heal_p50} / {heal_p99} ({healed} / {fence_episodes}, {not_healed} not healed)"},
	{"ErrExhausted: holders, wait p50 / max", "{exhausted_holders}, {exhausted_wait_p50} / {exhausted_wait_max}"},
	{"store calls/s (per holder)", "{store_calls_per_s} ({store_calls_per_holder_s})"},
	{"server CPU (per call)", "{server_cpu_pct_of_core}% of a core ({server_cpu_per_call})"},
}

// failoverColumns are the columns of the -failover runs' own table.
var failoverColumns = []column{
	{"failover run", "{file}"},
	{"store", "{store}"},
	{"failover at (replication cut before)", "{failover_at} ({failover_replication_cut_before})"},
	{"promoted, proxies moved after", "{failover_moved_after}"},
	{"IDs checked", "{ids}"},
	{"duplicates", "{duplicates}"},
	{"holders issuing after the failover", "{failover_holders_issuing_after}"},
	{"first ID after the failover p50 / p99 / max", "{failover_first_id_p50} / {failover_first_id_p99} / {failover_first_id_max}"},
	{"fenced by the failover: heal p50 / p99 (healed / fenced)", "{failover_heal_p50} / {failover_heal_p99} ({failover_healed} / {failover_fenced}, {failover_not_healed} not healed)"},
}

// faultColumns are the columns of the -fault runs' own table.
var faultColumns = []column{
	{"fault run", "{file}"},
	{"engine", "{engine}"},
	{"fault", "{fault_mode}"},
	{"holders, TTL", "{holders}, {ttl}"},
	{"IDs checked", "{ids}"},
	{"duplicates", "{duplicates}"},
	{"fault window (from the start)", "{fault_window}"},
	{"IDs/s before", "{rate_before_ids_per_s}"},
	{"IDs/s during / after / first 5 s after, of before", "{rate_during_fraction} / {rate_after_fraction} / {rate_after_first_5s_fraction}"},
	{"IDs/s without the bursts (each write once) during / after / first 5 s after, of before", "{writes_during_fraction} / {writes_after_fraction} / {writes_after_first_5s_fraction}"},
	{"holders issuing during / after, of before", "{holders_issuing_during_fraction} / {holders_issuing_after_fraction}"},
	{"holder-seconds without an ID", "{holder_seconds_without_id}"},
	{"first ID after the fault's end p50 / p99 / every holder", "{first_id_after_fault_p50} / {first_id_after_fault_p99} / {every_holder_issuing_after}"},
	{"holders stopped; every one issuing again after the fault's end", "{holders_stopped_by_fault}; {every_holder_issuing_again_after}"},
}

// printTable prints a markdown table of the reports (*.txt) in dir, and,
// if some are -failover runs, a second table of those runs' failover; the
// -fault runs have a table of their own instead.
func printTable(w io.Writer, dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no reports in %s", dir)
	}
	var runs, failovers, faults []map[string]string
	for _, p := range paths {
		kv := map[string]string{"file": strings.TrimSuffix(filepath.Base(p), ".txt")}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok {
				kv[k] = v
			}
		}
		if kv["fault_mode"] != "" {
			if kv["engine"] == "" {
				kv["engine"] = "unknown"
			}
			faults = append(faults, kv)
			continue
		}
		runs = append(runs, kv)
		if kv["failover"] != "" {
			failovers = append(failovers, kv)
		}
	}
	if len(runs) > 0 {
		writeTable(w, runColumns, runs)
	}
	if len(failovers) > 0 {
		fmt.Fprintln(w)
		writeTable(w, failoverColumns, failovers)
	}
	if len(faults) > 0 {
		if len(runs) > 0 {
			fmt.Fprintln(w)
		}
		writeTable(w, faultColumns, faults)
	}
	return nil
}

func writeTable(w io.Writer, cols []column, rows []map[string]string) {
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(heads, " | "), strings.Repeat("---|", len(cols)))
	for _, kv := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cell := c.f
			for k, v := range kv {
				cell = strings.ReplaceAll(cell, "{"+k+"}", v)
			}
			cells[i] = unset.ReplaceAllString(cell, "n/a") // a figure the report predates
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}
