// Command fleetchart draws, for each fleetsim report that has IDs per
// second (its per_second rows), a PNG chart of IDs per second against
// time, and below it the holders that issued in each second, with the
// fault window shaded: the link cut and the server down of a -fault outage
// run, the replication cut and the failover of a failover run. Each chart
// is named after its report (foo.txt: foo.png) and titled with the run's
// figures. Run it from tools/:
//
//	go run ./fleetchart                                  # ../docs/fleet/faults/*.txt -> ../docs/fleet/*.png
//	go run ./fleetchart -out /tmp /tmp/r/postgres-outage-200h-1m15s-2026-12-02T0250.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image/color"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

// run is what the chart reads of one report.
type run struct {
	name string
	kv   map[string]string
	secs []second
}

type second struct {
	t, ids, holders float64
	fault           string
}

// band is one shaded stretch of a chart.
type band struct {
	label    string
	from, to float64 // seconds from the simultaneous claim
	color    color.Color
}

var (
	lineColor   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	beforeColor = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	cutColor    = color.NRGBA{R: 0xff, G: 0xa0, B: 0x40, A: 0x60}
	downColor   = color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0x50}
	foColor     = color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0x90}
)

func main() {
	out := flag.String("out", "", "directory for the PNG files (default: the repository's docs/fleet)")
	flag.Parse()
	paths := flag.Args()
	if len(paths) == 0 || *out == "" {
		root, err := repo.Root()
		if err != nil {
			log.Fatal(err)
		}
		if len(paths) == 0 {
			if paths, err = filepath.Glob(filepath.Join(root, "docs", "fleet", "faults", "*.txt")); err != nil {
				log.Fatal(err)
			}
		}
		if *out == "" {
			*out = filepath.Join(root, "docs", "fleet")
		}
	}
	n := 0
	for _, p := range paths {
		r, err := read(p)
		if err != nil {
			log.Fatal(err)
		}
		if len(r.secs) == 0 {
			continue
		}
		dst := filepath.Join(*out, r.name+".png")
		if err := chart(r, dst); err != nil {
			log.Fatalf("%s: %v", p, err)
		}
		fmt.Println("wrote", dst)
		n++
	}
	if n == 0 {
		log.Fatal("no report with per_second rows")
	}
}

func read(path string) (*run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &run{name: strings.TrimSuffix(filepath.Base(path), ".txt"), kv: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ": ")
		if !ok {
			continue
		}
		if k != "per_second" {
			r.kv[k] = v
			continue
		}
		var s second
		if _, err := fmt.Sscanf(v, "%g %g %g %s", &s.t, &s.ids, &s.holders, &s.fault); err != nil {
			return nil, fmt.Errorf("%s: per_second %q: %v", path, v, err)
		}
		r.secs = append(r.secs, s)
	}
	return r, sc.Err()
}

// dur reads a duration figure of the report, in seconds.
func (r *run) dur(k string) (float64, bool) {
	d, err := time.ParseDuration(r.kv[k])
	return d.Seconds(), err == nil
}

// bands are the run's fault stretches, from its figures.
func (r *run) bands() []band {
	var bs []band
	if at, ok := r.dur("fault_at"); ok && r.kv["fault_mode"] == "outage" {
		cut, _ := r.dur("outage_link_cut")
		down, _ := r.dur("outage_server_down")
		bs = append(bs, band{"store unreachable: every proxy cut", at, at + cut, cutColor},
			band{"store unreachable: server stopped, then starting", at + cut, at + cut + down, downColor})
	}
	if at, ok := r.dur("failover_at"); ok && r.kv["failover"] != "" {
		if lag, ok := r.dur("failover_replication_cut_before"); ok {
			bs = append(bs, band{"replica cut off", at - lag, at, cutColor})
		}
		moved, _ := r.dur("failover_moved_after")
		// A failover takes well under a second: drawn at least 0.4 s wide.
		label := fmt.Sprintf("primary killed, replica promoted, proxies moved (%s)", r.kv["failover_moved_after"])
		if r.kv["store"] == "kube" {
			label = fmt.Sprintf("API server killed and started again (%s)", r.kv["failover_moved_after"])
		}
		bs = append(bs, band{label, at, at + max(moved, 0.4), foColor})
	}
	return bs
}

func chart(r *run, dst string) error {
	bs := r.bands()
	top, err := panel(r, bs, "IDs per second", func(s second) float64 { return s.ids }, true)
	if err != nil {
		return err
	}
	top.Title.Text = title(r)
	top.Title.TextStyle.Font.Size = vg.Points(10)
	bottom, err := panel(r, bs, "holders issuing in the second", func(s second) float64 { return s.holders }, false)
	if err != nil {
		return err
	}
	bottom.X.Label.Text = "seconds from the simultaneous claim"
	img := vgimg.NewWith(vgimg.UseWH(24*vg.Centimeter, 15*vg.Centimeter), vgimg.UseDPI(100))
	dc := draw.New(img)
	plots := [][]*plot.Plot{{top}, {bottom}}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Millimeter * 3,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align(plots, tiles, dc)
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// title names the run and its figures.
func title(r *run) string {
	kv := r.kv
	what := kv["store"] + ", " + map[string]string{"outage": "outage", "lossless": "failover that lost nothing"}[kv["fault_mode"]]
	if kv["fault_mode"] == "" && kv["failover"] != "" {
		what = kv["store"] + ", failover to a replica that missed writes"
	}
	if kv["fault_mode"] == "lossless" && kv["store"] == "kube" {
		what = "kube, kube-apiserver restart (etcd keeps every write)"
	}
	if kv["fault_mode"] == "outage" {
		what += " of " + kv["outage_unreachable"]
	}
	engine := ""
	if e := kv["engine"]; e != "" {
		engine = ", engine " + e
	}
	ttl := "TTL " + kv["ttl"]
	if kv["ttl"] == "default" {
		ttl = "default lease options"
	}
	l1 := fmt.Sprintf("%s: %s holders, %s%s; %s IDs, %s duplicates", what, kv["holders"], ttl, engine, kv["ids"], kv["duplicates"])
	if kv["rate_during_fraction"] == "" {
		return l1
	}
	if kv["writes_during_fraction"] == "" { // a report before the writes figures
		l2 := fmt.Sprintf("IDs/s during the fault %s of before, after %s (first 5 s %s); every holder issuing again %s after its end",
			pctOf(kv["rate_during_fraction"]), pctOf(kv["rate_after_fraction"]), pctOf(kv["rate_after_first_5s_fraction"]), kv["every_holder_issuing_again_after"])
		return l1 + "\n" + l2
	}
	stopped, _, _ := strings.Cut(kv["holders_stopped_by_fault"], " /")
	l2 := fmt.Sprintf("IDs/s during the fault %s of before, after %s (first 5 s %s); without the bursts (each write once) %s and %s",
		pctOf(kv["rate_during_fraction"]), pctOf(kv["rate_after_fraction"]), pctOf(kv["rate_after_first_5s_fraction"]),
		pctOf(kv["writes_during_fraction"]), pctOf(kv["writes_after_fraction"]))
	l3 := fmt.Sprintf("%s holders stopped; every holder issued within %s of the fault's end (p99 %s)",
		stopped, kv["every_holder_issuing_after"], kv["first_id_after_fault_p99"])
	if n, all, _ := strings.Cut(kv["holders_issuing_after_fault"], " / "); n != all {
		l3 = fmt.Sprintf("%s holders stopped; only %s of %s holders issued after the fault's end", stopped, n, all)
	}
	return l1 + "\n" + l2 + "\n" + l3
}

func pctOf(frac string) string {
	f, err := strconv.ParseFloat(frac, 64)
	if err != nil {
		return frac
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// panel draws one series of r against time over the shaded bands.
func panel(r *run, bs []band, label string, y func(second) float64, legend bool) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = label
	p.X.Min = 0
	p.X.Max = r.secs[len(r.secs)-1].t + 1
	p.Y.Min = 0
	hi := 1.0
	pts := make(plotter.XYs, len(r.secs))
	for i, s := range r.secs {
		pts[i].X, pts[i].Y = s.t+0.5, y(s) // the middle of the second
		hi = max(hi, y(s))
	}
	p.Y.Max = hi * 1.15
	if legend {
		p.Y.Max = hi * 1.6 // room for the legend above the line
	}
	p.Y.Tick.Marker = intTicks{}
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		for t := 0.0; t <= hi; t += 5 {
			label := ""
			if int(t)%10 == 0 {
				label = strconv.Itoa(int(t))
			}
			ts = append(ts, plot.Tick{Value: t, Label: label})
		}
		return ts
	})
	p.Add(plotter.NewGrid())
	for _, b := range bs {
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b.from, Y: 0}, {X: b.to, Y: 0}, {X: b.to, Y: p.Y.Max}, {X: b.from, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		poly.Color = b.color
		poly.LineStyle.Width = 0
		p.Add(poly)
		if legend {
			p.Legend.Add(b.label, poly)
		}
	}
	// The mean before the fault, as a dashed line, and 90% of it.
	if v, err := strconv.ParseFloat(r.kv["rate_before_ids_per_s"], 64); err == nil && legend {
		for _, m := range []struct {
			f     float64
			label string
			dash  []vg.Length
		}{{1, fmt.Sprintf("mean before the fault (%.0f IDs/s)", v), []vg.Length{vg.Points(4), vg.Points(3)}},
			{0.9, "90% of it", []vg.Length{vg.Points(1), vg.Points(2)}}} {
			l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: v * m.f}, {X: p.X.Max, Y: v * m.f}})
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes, l.Width = beforeColor, m.dash, vg.Points(1)
			p.Add(l)
			p.Legend.Add(m.label, l)
		}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = lineColor, vg.Points(1.5)
	p.Add(l)
	if legend {
		p.Legend.Add("IDs per second", l)
		p.Legend.Top = true
		p.Legend.TextStyle.Font.Size = vg.Points(7)
		p.Legend.Padding = vg.Points(1)
		p.Legend.ThumbnailWidth = vg.Points(18)
	}
	return p, nil
}

// intTicks are the default ticks labelled without decimals.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', 0, 64)
		}
	}
	return ts
}
