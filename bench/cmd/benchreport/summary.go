package main

import (
	"fmt"
	"io"
	"strings"
)

// extras are rows the summary shows beside the target rows, without a
// target.
func extras(parallel string) []target {
	sustained := func(impl string) ref { return ref{"Sustained", "ObjectID", impl, "goroutines=" + parallel} }
	sf := func(group, impl string) ref { return ref{group, "Snowflake", impl, ""} }
	return []target{
		{what: "ObjectID per ID over 4M IDs, 1 goroutine, per-CPU blocks", ours: ref{"Generate", "ObjectID", "idkit-percpu", ""}, peer: ref{"Generate", "ObjectID", "mongo-v2", ""}, unit: "ns/op"},
		{what: "ObjectID sustained 2 s, all cores, vs mongo-driver v1", ours: sustained("idkit"), peer: sustained("mongo-v1"), unit: "ids/s", zeroDups: true},
		{what: "ObjectID sustained 2 s, all cores, vs xid", ours: sustained("idkit"), peer: sustained("xid"), unit: "ids/s", zeroDups: true},
		{what: "Snowflake per ID over 8M IDs, 1 goroutine, defaults (4096 per ms)", ours: sf("Generate", "idkit"), peer: sf("Generate", "bwmarrin"), unit: "ns/op"},
		{what: "Snowflake per ID over 8M IDs, 1 goroutine, borrow-ahead", ours: sf("Generate", "idkit-borrow"), peer: sf("Generate", "bwmarrin"), unit: "ns/op"},
		{what: "Snowflake per ID over 8M IDs, all cores, borrow-ahead", ours: sf("GenerateParallel", "idkit-borrow"), peer: sf("GenerateParallel", "bwmarrin"), unit: "ns/op"},
		{what: "Snowflake per ID over 8M IDs, all cores, borrow-ahead, per-CPU blocks", ours: sf("GenerateParallel", "idkit-borrow-percpu"), peer: sf("GenerateParallel", "bwmarrin"), unit: "ns/op"},
		{what: "BSON round trip of `{_id, name}`, driver v2, no registry", ours: ref{"BSON", "ObjectID", "idkit", ""}, peer: ref{"BSON", "ObjectID", "mongo-v2", ""}, unit: "ns/op"},
	}
}

// unitName is how the summary names a unit.
func unitName(u string) string {
	switch u {
	case "ns/op":
		return "ns"
	case "ids/s":
		return "IDs/s"
	}
	return u
}

// summary prints the user-facing table the README shows: the target rows
// and extras with their values and ratios, no targets, then CPU per ID at
// each rate.
func (t *table) summary(w io.Writer) {
	fmt.Fprintln(w, "| what | idkit | peer | idkit / peer |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	par := t.parallelism()
	for _, tg := range append(targets(par), extras(par)...) {
		a, ok1 := median(t.get(tg.ours), tg.unit)
		b, ok2 := median(t.get(tg.peer), tg.unit)
		if !ok1 || !ok2 || b == 0 {
			continue
		}
		ourS, peerS := num(a)+" "+unitName(tg.unit), num(b)+" "+unitName(tg.unit)
		if tg.zeroDups {
			ourS += fmt.Sprintf(", %.0f dups", maxOf(t.get(tg.ours), "dups"))
			peerS += fmt.Sprintf(", %.0f dups", maxOf(t.get(tg.peer), "dups"))
		}
		fmt.Fprintf(w, "| %s | %s | %s %s | %.2f |\n", tg.what, ourS, peerName(tg.peer.impl), peerS, a/b)
	}
	for _, rate := range t.rateOrder() {
		k := key{"Rate", rate, ""}
		base, okB := median(t.runs[k]["none"], "cpu-ns/ID")
		for _, pair := range ratePeers {
			ours, peer := t.runs[k][pair[0]], t.runs[k][pair[1]]
			i, ok1 := median(ours, "cpu-ns/ID")
			p, ok2 := median(peer, "cpu-ns/ID")
			if !okB || !ok1 || !ok2 {
				continue
			}
			noise := max(spread(ours, "cpu-ns/ID"), spread(peer, "cpu-ns/ID"))
			var ratio string
			switch {
			case p-base > noise:
				ratio = fmt.Sprintf("%.2f", (i-base)/(p-base))
			case i-p > noise:
				ratio = fmt.Sprintf("higher by %s ns", num(i-p))
			case p-i > noise:
				ratio = fmt.Sprintf("lower by %s ns", num(p-i))
			default:
				ratio = "same within noise"
			}
			kind := strings.Split(pair[0], "-")[0]
			fmt.Fprintf(w, "| process CPU per %s at %s (no generator: %s ns; run-to-run spread %s ns) | %s ns | %s %s ns | %s |\n",
				kind, rateName(rate), num(base), num(noise), num(i), peerName(strings.TrimPrefix(pair[1], kind+"-")), num(p), ratio)
		}
	}
}

// peerName is how the summary names a peer.
func peerName(impl string) string {
	switch impl {
	case "mongo-v1":
		return "mongo-driver v1"
	case "mongo-v2":
		return "mongo-driver v2"
	case "plain":
		return "plain"
	}
	return impl
}
