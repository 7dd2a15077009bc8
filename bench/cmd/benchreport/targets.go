package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// target is one row of the target table: idkit's result against one peer's
// (or another idkit configuration's) from the same run.
type target struct {
	what        string
	ours, peer  ref
	unit        string
	lowerBetter bool
	limit       float64 // the ratio ours/peer must be at most (lowerBetter) or at least this
	zeroDups    bool    // also: ours reported 0 dups in every run
}

// ref names one benchmark result set.
type ref struct{ group, kind, impl, variant string }

func (r ref) key() key { return key{r.group, r.kind, r.variant} }

// label is how a reference is shown in the target table.
func (r ref) label() string {
	s := r.impl
	if r.variant != "" {
		s += " (" + r.variant + ")"
	}
	return s
}

// targets lists the rows whose ratio has a target, in the order shown.
func targets(parallel string) []target {
	oid := func(group, impl string) ref { return ref{group, "ObjectID", impl, ""} }
	uuid := func(group, impl string) ref { return ref{group, "UUIDv7", impl, ""} }
	sustained := func(impl string) ref { return ref{"Sustained", "ObjectID", impl, "goroutines=" + parallel} }
	leased := func(impl, variant string) ref { return ref{"Leased", "Snowflake", impl, variant} }
	return []target{
		{"ObjectID per ID over 4M IDs, 1 goroutine, strict order (default)", oid("Generate", "idkit"), oid("Generate", "mongo-v2"), "ns/op", true, 0.2, false},
		{"ObjectID per ID, all cores, strict order (default)", oid("GenerateParallel", "idkit"), oid("GenerateParallel", "mongo-v2"), "ns/op", true, 0.5, false},
		{"ObjectID per ID, all cores, per-CPU blocks", oid("GenerateParallel", "idkit-percpu"), oid("GenerateParallel", "mongo-v2"), "ns/op", true, 0.25, false},
		{"ObjectID sustained 2 s, all cores, strict order (default)", sustained("idkit"), sustained("mongo-v2"), "ids/s", false, 1.0, true},
		{"ObjectID sustained 2 s, all cores, per-CPU blocks", sustained("idkit-percpu"), sustained("mongo-v2"), "ids/s", false, 1.0, true},
		{"UUIDv7 per ID, 1 goroutine (`types.NewUUIDv7` vs Go 1.27's `uuid.NewV7`)", uuid("Generate", "idkit"), uuid("Generate", "std"), "ns/op", true, 0.25, false},
		{"UUIDv7 per ID, all cores (`types.NewUUIDv7` vs Go 1.27's `uuid.NewV7`)", uuid("GenerateParallel", "idkit"), uuid("GenerateParallel", "std"), "ns/op", true, 0.25, false},
		{"`Hex()`", oid("HexEncode", "idkit"), oid("HexEncode", "mongo-v2"), "ns/op", true, 0.9, false},
		{"hex decode", oid("HexDecode", "idkit"), oid("HexDecode", "mongo-v2"), "ns/op", true, 0.6, false},
		{"JSON marshal of `{id, name}`, ObjectID", oid("JSONMarshal", "idkit"), oid("JSONMarshal", "mongo-v2"), "ns/op", true, 0.75, false},
		{"JSON marshal of `{id, name}`, Snowflake", ref{"JSONMarshal", "Snowflake", "idkit", ""}, ref{"JSONMarshal", "Snowflake", "bwmarrin", ""}, "ns/op", true, 0.75, false},
		{"leased Snowflake vs plain, borrow-ahead, 1 goroutine", leased("idkit-leased", "borrow"), leased("plain", "borrow"), "ns/op", true, 1.2, false},
		{"leased Snowflake vs plain, borrow-ahead, all cores", leased("idkit-leased", "borrow/parallel"), leased("plain", "borrow/parallel"), "ns/op", true, 1.2, false},
		{"leased Snowflake vs plain, defaults (at the 4096/ms cap)", leased("idkit-leased", "cap"), leased("plain", "cap"), "ns/op", true, 1.2, false},
	}
}

// parallelism returns the goroutine count of the sustained ObjectID rows
// (GOMAXPROCS of the run).
func (t *table) parallelism() string {
	for _, k := range t.order {
		if k.group == "Sustained" && k.kind == "ObjectID" {
			if n, ok := strings.CutPrefix(k.variant, "goroutines="); ok {
				return n
			}
		}
	}
	return "?"
}

func (t *table) get(r ref) []result { return t.runs[r.key()][r.impl] }

// verdict is the table's last column.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// targetTable prints the target rows, then the rate rows (see rateTable).
func (t *table) targetTable(w io.Writer) {
	fmt.Fprintln(w, "| what | idkit | peer | metric | idkit | peer | ratio | target | |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---|---|")
	for _, tg := range targets(t.parallelism()) {
		a, ok1 := median(t.get(tg.ours), tg.unit)
		b, ok2 := median(t.get(tg.peer), tg.unit)
		if !ok1 || !ok2 || b == 0 {
			fmt.Fprintf(w, "| %s | %s | %s | %s | — | — | — | | not measured |\n", tg.what, tg.ours.label(), tg.peer.label(), tg.unit)
			continue
		}
		ratio := a / b
		ok := ratio <= tg.limit
		cmp := "≤"
		if !tg.lowerBetter {
			ok = ratio >= tg.limit
			cmp = "≥"
		}
		goal := fmt.Sprintf("%s %.2g", cmp, tg.limit)
		ourS, peerS := num(a), num(b)
		if tg.zeroDups {
			ourDups, peerDups := maxOf(t.get(tg.ours), "dups"), maxOf(t.get(tg.peer), "dups")
			ourS += fmt.Sprintf(", %.0f dups", ourDups)
			peerS += fmt.Sprintf(", %.0f dups", peerDups)
			goal += ", 0 dups"
			ok = ok && ourDups == 0
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.2f | %s | %s |\n",
			tg.what, tg.ours.label(), tg.peer.label(), tg.unit, ourS, peerS, ratio, goal, verdict(ok))
	}
	t.rateTargets(w)
}

// maxOf returns the largest value of unit over rs (0 if none).
func maxOf(rs []result, unit string) float64 {
	m := 0.0
	for _, r := range rs {
		m = max(m, r[unit])
	}
	return m
}

// spread returns max-min of unit over rs.
func spread(rs []result, unit string) float64 {
	var vs []float64
	for _, r := range rs {
		if v, ok := r[unit]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0
	}
	return slices.Max(vs) - slices.Min(vs)
}

// ratePeers are the rate rows compared: idkit's generator, its peer.
var ratePeers = [][2]string{
	{"Snowflake-idkit", "Snowflake-bwmarrin"},
	{"ObjectID-idkit", "ObjectID-mongo-v2"},
}

// rateOrder lists the rates in the order BenchmarkRate runs them.
func (t *table) rateOrder() []string {
	var rates []string
	for _, k := range t.order {
		if k.group == "Rate" && !slices.Contains(rates, k.kind) {
			rates = append(rates, k.kind)
		}
	}
	return rates
}

// rateTargets prints one target row per rate and generator: process CPU
// per ID, less the no-generator row's, idkit's over the peer's.
//
// Each figure is the median over the run's counts of the row's CPU per ID
// (cpu-ns/ID). The baseline B is the median of the "none" row; idkit's
// generator cost is I-B and the peer's P-B, and the ratio is (I-B)/(P-B).
// Noise is the larger spread (max-min over the counts) of the idkit and
// peer rows. The target (≤ 1.0) counts as met when I ≤ P, and also when
// I-P is within the noise: such rows say "met (within noise)", and that is
// a deliberate reading, since at low rates a few microseconds of runtime
// background work per second dwarf a generator's nanoseconds. The ratio is
// printed only when the peer's cost stands out of the noise.
func (t *table) rateTargets(w io.Writer) {
	for _, rate := range t.rateOrder() {
		k := key{"Rate", rate, ""}
		base, okB := median(t.runs[k]["none"], "cpu-ns/ID")
		for _, pair := range ratePeers {
			ours, peer := t.runs[k][pair[0]], t.runs[k][pair[1]]
			i, ok1 := median(ours, "cpu-ns/ID")
			p, ok2 := median(peer, "cpu-ns/ID")
			what := fmt.Sprintf("CPU per ID at %s, %s, after the no-generator baseline", rateName(rate), strings.Split(pair[0], "-")[0])
			if !okB || !ok1 || !ok2 {
				fmt.Fprintf(w, "| %s | %s | %s | cpu-ns/ID − base | — | — | — | ≤ 1.0 | not measured |\n", what, pair[0], pair[1])
				continue
			}
			noise := max(spread(ours, "cpu-ns/ID"), spread(peer, "cpu-ns/ID"))
			ratio := "—"
			if p-base > noise {
				ratio = fmt.Sprintf("%.2f", (i-base)/(p-base))
			}
			v := verdict(i <= p)
			if i > p && i-p <= noise {
				v = "met (within noise)"
			}
			fmt.Fprintf(w, "| %s | idkit | %s | cpu-ns/ID − B (B %s, noise %s) | %s | %s | %s | ≤ 1.0 | %s |\n",
				what, strings.TrimPrefix(pair[1], strings.Split(pair[1], "-")[0]+"-"), num(base), num(noise), num(i-base), num(p-base), ratio, v)
		}
	}
}

// rateName turns a BenchmarkRate sub-benchmark name into words.
func rateName(r string) string {
	switch r {
	case "1perSec":
		return "1 ID/s"
	case "10perSec":
		return "10 IDs/s"
	case "1kPerSec":
		return "1k IDs/s"
	case "100kPerSec":
		return "100k IDs/s"
	case "flatOut":
		return "flat out"
	}
	return r
}

// rateTable prints every rate row: IDs/s reached, CPU per ID, and that
// less the no-generator row's, as medians over the counts.
func (t *table) rateTable(w io.Writer) {
	rates := t.rateOrder()
	if len(rates) == 0 {
		return
	}
	fmt.Fprintln(w, "| rate | generator | IDs/s | CPU ns/ID (min–max) | minus no-generator |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	for _, rate := range rates {
		k := key{"Rate", rate, ""}
		base, _ := median(t.runs[k]["none"], "cpu-ns/ID")
		impls := make([]string, 0, len(t.runs[k]))
		for impl := range t.runs[k] {
			impls = append(impls, impl)
		}
		slices.SortFunc(impls, func(a, b string) int {
			if a == "none" || b == "none" {
				return map[bool]int{true: -1, false: 1}[a == "none"]
			}
			return strings.Compare(a, b)
		})
		for _, impl := range impls {
			rs := t.runs[k][impl]
			ids, _ := median(rs, "IDs/s")
			c, _ := median(rs, "cpu-ns/ID")
			lo, hi := minOf(rs, "cpu-ns/ID"), maxOf(rs, "cpu-ns/ID")
			fmt.Fprintf(w, "| %s | %s | %s | %s (%s–%s) | %s |\n", rateName(rate), impl, num(ids), num(c), num(lo), num(hi), num(c-base))
		}
	}
}

func minOf(rs []result, unit string) float64 {
	m := 0.0
	for i, r := range rs {
		if i == 0 || r[unit] < m {
			m = r[unit]
		}
	}
	return m
}
