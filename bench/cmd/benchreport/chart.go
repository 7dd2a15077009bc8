package main

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// bar is one row of the throughput chart.
type bar struct {
	label string
	value float64 // IDs per second
	ours  bool
}

// throughputBars turns the generation benchmarks into IDs per second:
// Generate and GenerateParallel from ns/op, Sustained from its ids/s metric.
func (t *table) throughputBars() (sections []string, bars map[string][]bar) {
	bars = map[string][]bar{}
	for _, k := range t.order {
		var title string
		var perSecond func([]result) (float64, bool)
		switch k.group {
		case "Generate", "GenerateParallel":
			title = k.group + " (1e9 / ns per ID)"
			perSecond = func(rs []result) (float64, bool) {
				ns, ok := median(rs, "ns/op")
				return 1e9 / ns, ok && ns > 0
			}
		case "Sustained":
			window := "1 s" // bench/sustained_test.go: Snowflake 1 s, ObjectID 2 s
			if k.kind == "ObjectID" {
				window = "2 s"
			}
			title = "Sustained for " + window + ", " + k.variant
			perSecond = func(rs []result) (float64, bool) { return median(rs, "ids/s") }
		default:
			continue
		}
		if !slices.Contains(sections, title) {
			sections = append(sections, title)
		}
		impls := make([]string, 0, len(t.runs[k]))
		for impl := range t.runs[k] {
			impls = append(impls, impl)
		}
		slices.Sort(impls)
		for _, impl := range impls {
			if v, ok := perSecond(t.runs[k][impl]); ok {
				bars[title] = append(bars[title], bar{label: k.kind + "/" + impl, value: v, ours: isIdkit(impl)})
			}
		}
	}
	return sections, bars
}

// svg draws one horizontal bar chart per section on a logarithmic scale,
// idkit's bars in blue and the peers' in grey.
func (t *table) svg() string {
	sections, bars := t.throughputBars()
	const (
		width, labelW, rowH, headH, left = 900, 260, 18, 28, 10
	)
	maxV := 1.0
	for _, bs := range bars {
		for _, b := range bs {
			maxV = math.Max(maxV, b.value)
		}
	}
	minV := 1e3
	scale := func(v float64) float64 {
		if v <= minV {
			return 1
		}
		return (math.Log10(v) - math.Log10(minV)) / (math.Log10(maxV) - math.Log10(minV)) * (width - labelW - 120)
	}
	var sb strings.Builder
	y := 40
	for _, s := range sections {
		y += headH + len(bars[s])*rowH
	}
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, y+10)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/><text x="%d" y="22" font-size="15" font-weight="bold">ID generation throughput, IDs per second (log scale; idkit in blue)</text>`+"\n", left)
	y = 40
	for _, s := range sections {
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left, y+18, html.EscapeString(s))
		y += headH
		for _, b := range bars[s] {
			fill := "#9e9e9e"
			if b.ours {
				fill = "#1f6fd1"
			}
			w := scale(b.value)
			fmt.Fprintf(&sb, `<text x="%d" y="%d">%s</text>`, left, y+13, html.EscapeString(b.label))
			fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`, labelW, y+3, w, rowH-5, fill)
			fmt.Fprintf(&sb, `<text x="%.1f" y="%d">%s/s</text>`+"\n", float64(labelW)+w+6, y+13, num(b.value))
			y += rowH
		}
	}
	sb.WriteString("</svg>\n")
	return sb.String()
}
