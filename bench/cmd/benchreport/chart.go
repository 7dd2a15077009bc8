package main

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// bar is one row of a chart section.
type bar struct {
	label string
	value float64
	note  string // printed after the value, such as a duplicate count
	ours  bool
}

// section is one titled group of bars sharing a unit and a scale.
type section struct {
	title string
	unit  string // printed after each value
	bars  []bar
}

// throughputSections turns the generation benchmarks into IDs per second:
// Generate, GenerateParallel and Leased from ns/op, Sustained from its
// ids/s metric (with the ObjectID rows' duplicate counts).
func (t *table) throughputSections() []*section {
	var sections []*section
	byTitle := map[string]*section{}
	for _, k := range t.order {
		var title string
		var perSecond func([]result) (float64, bool)
		fromNs := func(rs []result) (float64, bool) {
			ns, ok := median(rs, "ns/op")
			return 1e9 / ns, ok && ns > 0
		}
		switch k.group {
		case "Generate", "GenerateParallel":
			n := "1 goroutine"
			if k.group == "GenerateParallel" {
				n = "all cores"
			}
			title = fmt.Sprintf("%s generation, %s (1e9 / ns per ID)", k.kind, n)
			perSecond = fromNs
		case "Leased":
			title = "Snowflake on a SQLite lease vs plain, " + k.variant + " (1e9 / ns per ID)"
			perSecond = fromNs
		case "Sustained":
			window := "1 s" // bench/sustained_test.go: Snowflake 1 s, ObjectID 2 s
			if k.kind == "ObjectID" {
				window = "2 s"
			}
			title = k.kind + " sustained for " + window + ", " + k.variant
			perSecond = func(rs []result) (float64, bool) { return median(rs, "ids/s") }
		default:
			continue
		}
		s := byTitle[title]
		if s == nil {
			s = &section{title: title, unit: "/s"}
			byTitle[title] = s
			sections = append(sections, s)
		}
		for _, impl := range sortedImpls(t.runs[k]) {
			rs := t.runs[k][impl]
			v, ok := perSecond(rs)
			if !ok {
				continue
			}
			b := bar{label: k.kind + "/" + impl, value: v, ours: isIdkit(impl)}
			if k.group == "Sustained" && k.kind == "ObjectID" {
				b.note = fmt.Sprintf(", %.0f dups", maxOf(rs, "dups"))
			}
			s.bars = append(s.bars, b)
		}
	}
	return sections
}

// rateSections turns the rate rows into process CPU per ID, one section per
// rate.
func (t *table) rateSections() []*section {
	var sections []*section
	for _, rate := range t.rateOrder() {
		k := key{"Rate", rate, ""}
		s := &section{title: "Process CPU per ID at " + rateName(rate) + " (lower is better; \"none\" makes no ID)", unit: " ns"}
		for _, impl := range sortedImpls(t.runs[k]) {
			if v, ok := median(t.runs[k][impl], "cpu-ns/ID"); ok {
				s.bars = append(s.bars, bar{label: impl, value: v, ours: strings.Contains(impl, "idkit")})
			}
		}
		sections = append(sections, s)
	}
	return sections
}

func sortedImpls(m map[string][]result) []string {
	impls := make([]string, 0, len(m))
	for impl := range m {
		impls = append(impls, impl)
	}
	slices.Sort(impls)
	return impls
}

// svg draws two panels of horizontal bar charts on logarithmic scales,
// idkit's bars in blue and the others in grey: generation throughput, then
// process CPU per ID at fixed rates.
func (t *table) svg() string {
	const width, labelW, rowH, headH, left = 960, 300, 18, 28, 10
	panels := []struct {
		title    string
		sections []*section
	}{
		{"ID generation throughput, IDs per second (log scale, longer is better; idkit in blue)", t.throughputSections()},
		{"Process CPU time per ID at fixed rates, ns (log scale, shorter is better; idkit in blue)", t.rateSections()},
	}
	height := 10
	for _, p := range panels {
		if len(p.sections) == 0 {
			continue
		}
		height += 40
		for _, s := range p.sections {
			height += headH + len(s.bars)*rowH
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	sb.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	y := 0
	for _, p := range panels {
		if len(p.sections) == 0 {
			continue
		}
		minV, maxV := math.Inf(1), 1.0
		for _, s := range p.sections {
			for _, b := range s.bars {
				if b.value > 0 {
					minV, maxV = math.Min(minV, b.value), math.Max(maxV, b.value)
				}
			}
		}
		lo := math.Pow(10, math.Floor(math.Log10(minV))) // a decade below the smallest
		hi := math.Max(maxV, lo*10)
		scale := func(v float64) float64 {
			if v <= lo {
				return 1
			}
			return (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo)) * (width - labelW - 170)
		}
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>`+"\n", left, y+30, html.EscapeString(p.title))
		y += 40
		for _, s := range p.sections {
			fmt.Fprintf(&sb, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left, y+18, html.EscapeString(s.title))
			y += headH
			for _, b := range s.bars {
				fill := "#9e9e9e"
				if b.ours {
					fill = "#1f6fd1"
				}
				w := scale(b.value)
				fmt.Fprintf(&sb, `<text x="%d" y="%d">%s</text>`, left, y+13, html.EscapeString(b.label))
				fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`, labelW, y+3, w, rowH-5, fill)
				fmt.Fprintf(&sb, `<text x="%.1f" y="%d">%s</text>`+"\n", float64(labelW)+w+6, y+13, html.EscapeString(num(b.value)+s.unit+b.note))
				y += rowH
			}
		}
	}
	sb.WriteString("</svg>\n")
	return sb.String()
}
