// Command benchreport reads `go test -bench` output of the bench module (as
// bench/run.sh writes it) and prints markdown tables: the rows that have a
// target ratio, each marked met or missed; process CPU per ID at fixed rates
// (BenchmarkRate); and every comparison of idkit's results with each peer's
// from the same run, as ratios. With -svg it also draws a chart of
// generation throughput and of CPU per ID at fixed rates.
//
//	go run ./cmd/benchreport -svg throughput.svg < results/latest.txt
//
// Benchmark names are Benchmark<Group>/<Kind>/<Implementation>[/<Variant>];
// results with the same group, kind and variant are compared. With -count N,
// the median of the N results is used.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// result is one benchmark line's metrics by unit, such as "ns/op".
type result map[string]float64

// key identifies what is compared: everything in a name but the
// implementation.
type key struct{ group, kind, variant string }

type table struct {
	order []key
	runs  map[key]map[string][]result // implementation -> runs
}

var lineRE = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func parse(r io.Reader) (*table, error) {
	t := &table{runs: map[key]map[string][]result{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		parts := strings.Split(m[1], "/")
		if len(parts) < 3 {
			continue
		}
		k := key{group: parts[0], kind: parts[1], variant: strings.Join(parts[3:], "/")}
		impl := parts[2]
		fields := strings.Fields(m[2])
		res := result{}
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", sc.Text(), err)
			}
			res[fields[i+1]] = v
		}
		if t.runs[k] == nil {
			t.runs[k] = map[string][]result{}
			t.order = append(t.order, k)
		}
		t.runs[k][impl] = append(t.runs[k][impl], res)
	}
	return t, sc.Err()
}

func median(rs []result, unit string) (float64, bool) {
	var vs []float64
	for _, r := range rs {
		if v, ok := r[unit]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// units compared, with whether a lower value is better.
var units = []struct {
	name        string
	lowerBetter bool
}{{"ns/op", true}, {"ids/s", false}, {"dups", true}, {"cpu-ns/id", true}, {"allocs/op", true}}

func isIdkit(impl string) bool { return strings.HasPrefix(impl, "idkit") }

// report prints the target table, the rate rows and every comparison.
func (t *table) report(w io.Writer) {
	fmt.Fprintln(w, "## Targets (ratio idkit / peer, medians over the counts)")
	fmt.Fprintln(w)
	t.targetTable(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, rateNote)
	if len(t.rateOrder()) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "## Process CPU per ID at fixed rates (getrusage, medians over the counts)")
		fmt.Fprintln(w)
		t.rateTable(w)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Every comparison")
	fmt.Fprintln(w)
	t.markdown(w)
}

// rateNote says how the CPU-per-ID rows are read; see rateTargets.
const rateNote = `CPU per ID rows: B is the median CPU per ID of the no-generator row (the pacing loop alone),
the ratio is (idkit − B) / (peer − B), printed only when the peer's cost exceeds the noise (the
larger max−min spread over the counts of the two rows). "met (within noise)" means idkit's median
is above the peer's by no more than that noise, which this report counts as ≤ 1.0.`

func (t *table) markdown(w io.Writer) {
	fmt.Fprintln(w, "| benchmark | idkit | peer | metric | idkit | peer | idkit / peer |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|")
	for _, k := range t.order {
		if k.group == "Rate" {
			continue // see rateTable
		}
		impls := t.runs[k]
		var ours, peers []string
		for impl := range impls {
			if isIdkit(impl) {
				ours = append(ours, impl)
			} else {
				peers = append(peers, impl)
			}
		}
		slices.Sort(ours)
		slices.Sort(peers)
		name := k.group + "/" + k.kind
		if k.variant != "" {
			name += " " + k.variant
		}
		for _, o := range ours {
			for _, p := range peers {
				for _, u := range units {
					a, ok1 := median(impls[o], u.name)
					b, ok2 := median(impls[p], u.name)
					if !ok1 || !ok2 || u.name == "allocs/op" || u.name == "ns/op" && k.group == "Sustained" {
						continue
					}
					ratio := "—"
					if b != 0 {
						ratio = fmt.Sprintf("%.2f", a/b)
					}
					fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", name, o, p, u.name, num(a), num(b), ratio)
				}
			}
		}
	}
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

func main() {
	svgPath := flag.String("svg", "", "also write an SVG chart of generation throughput to this file")
	summaryPath := flag.String("summary", "", "also write the short table the README shows to this file")
	flag.Parse()
	t, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if len(t.order) == 0 {
		fmt.Fprintln(os.Stderr, "benchreport: no benchmark results on standard input")
		os.Exit(1)
	}
	t.report(os.Stdout)
	if *summaryPath != "" {
		var sb strings.Builder
		t.summary(&sb)
		if err := os.WriteFile(*summaryPath, []byte(sb.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
	}
	if *svgPath != "" {
		if err := os.WriteFile(*svgPath, []byte(t.svg()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
	}
}
