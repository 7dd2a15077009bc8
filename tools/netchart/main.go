// Command netchart draws docs/netbench.png from bench/net.sh's results
// (bench/results/net-bulk.json and net-orders.json): throughput against the
// round trip, one line per way of inserting and key kind, a panel per
// database and scenario. Each point is the median of the runs at one of the
// round trips the proxy added, drawn at the median round trip measured on
// the panel's connections there. It also writes bench/results/net-readme.md,
// the README's sentence on these figures (ratios to the sequence over
// idkit's three key kinds, and the rows the retries duplicated). Run it
// from tools/: `go run ./netchart`.
package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

// run is the part of insertbench's netRun the chart reads.
type run struct {
	DB, Scenario, Method, Key string
	RTT, MeasuredRTT          time.Duration
	Units                     int
	Secs                      float64
	Duplicates                int
}

type report struct{ Runs []run }

// series is one line of a panel.
type series struct {
	method, key, label string
	dashed             bool
}

var colors = map[string]color.Color{
	"seq":       color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff},
	"snowflake": color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"objectid":  color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"uuidv7":    color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	"uuidv4":    color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

type panel struct {
	file, db, scenario, title, unit string
	lines                           []series
}

var panels = []panel{
	{"net-bulk.json", "postgres", "bulk", "PostgreSQL: bulk load, keys known after", "rows/s", []series{
		{"returning", "seq", "bigserial, INSERT … RETURNING", false},
		{"copy", "seq", "bigserial, COPY, no keys (floor)", true},
		{"copy", "snowflake", "Snowflake, COPY", false},
		{"copy", "objectid", "ObjectID, COPY", false},
		{"copy", "uuidv7", "UUIDv7, COPY", false},
		{"copy", "uuidv4", "UUIDv4, COPY", false},
	}},
	{"net-bulk.json", "mariadb", "bulk", "MariaDB: bulk load, keys known after", "rows/s", []series{
		{"insert", "seq", "AUTO_INCREMENT, INSERT, LAST_INSERT_ID()", false},
		{"loaddata", "seq", "AUTO_INCREMENT, LOAD DATA, no keys (floor)", true},
		{"loaddata", "snowflake", "Snowflake, LOAD DATA", false},
		{"loaddata", "objectid", "ObjectID, LOAD DATA", false},
		{"loaddata", "uuidv7", "UUIDv7, LOAD DATA", false},
		{"loaddata", "uuidv4", "UUIDv4, LOAD DATA", false},
	}},
	{"net-orders.json", "postgres", "orders", "PostgreSQL: an order and its 10 lines", "orders/s", []series{
		{"two", "seq", "bigserial, 2 round trips", false},
		{"pipelined", "snowflake", "Snowflake, 1 pgx Batch", false},
		{"pipelined", "objectid", "ObjectID, 1 pgx Batch", false},
		{"pipelined", "uuidv7", "UUIDv7, 1 pgx Batch", false},
		{"pipelined", "uuidv4", "UUIDv4, 1 pgx Batch", false},
	}},
	{"net-orders.json", "mariadb", "orders", "MariaDB: an order and its 10 lines", "orders/s", []series{
		{"two", "seq", "AUTO_INCREMENT, 2 round trips", false},
		{"pipelined", "snowflake", "Snowflake, 1 multi-statement", false},
		{"pipelined", "objectid", "ObjectID, 1 multi-statement", false},
		{"pipelined", "uuidv7", "UUIDv7, 1 multi-statement", false},
		{"pipelined", "uuidv4", "UUIDv4, 1 multi-statement", false},
	}},
}

func main() {
	root, err := repo.Root()
	if err != nil {
		log.Fatal(err)
	}
	const cols, rows = 2, 2
	plots := make([][]*plot.Plot, rows)
	for i, pn := range panels {
		p, err := draw1(filepath.Join(root, "bench", "results", pn.file), pn)
		if err != nil {
			log.Fatal(err)
		}
		r := i / cols
		plots[r] = append(plots[r], p)
	}
	img := vgimg.NewWith(vgimg.UseWH(26*vg.Centimeter, 22*vg.Centimeter), vgimg.UseDPI(110))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for r := range plots {
		for c := range plots[r] {
			plots[r][c].Draw(canvases[r][c])
		}
	}
	out := filepath.Join(root, "docs", "netbench.png")
	f, err := os.Create(out)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", out)

	res, err := loadResults(filepath.Join(root, "bench", "results"), "net-bulk.json", "net-orders.json", "net-orders-async.json", "net-retry.json")
	if err != nil {
		log.Fatal(err)
	}
	sum := filepath.Join(root, "bench", "results", "net-readme.md")
	if err := os.WriteFile(sum, []byte(readme(res)), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", sum)
}

// draw1 draws one panel from the runs in path.
func draw1(path string, pn panel) (*plot.Plot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := plot.New()
	p.Title.Text = pn.title
	p.X.Label.Text = "round trip, median of SELECT 1 (ms)"
	p.Y.Label.Text = pn.unit + " (log scale)"
	// A log scale: a ratio between two lines is the same distance at
	// every round trip, so a win and a tie read at a glance.
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 0.5, Label: "0.5"}, {Value: 1, Label: "1"}, {Value: 1.5, Label: "1.5"}, {Value: 2, Label: "2"}, {Value: 2.5, Label: "2.5"}})
	p.X.Min = 0
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(22)
	lo, hi := math.Inf(1), 0.0
	p.Add(plotter.NewGrid())
	// x: the round trip measured on the panel's connections at each
	// round trip the proxy added.
	measured := map[time.Duration][]float64{}
	for _, r := range rep.Runs {
		if r.DB == pn.db && r.Scenario == pn.scenario {
			measured[r.RTT] = append(measured[r.RTT], float64(r.MeasuredRTT)/float64(time.Millisecond))
		}
	}
	for _, s := range pn.lines {
		byRTT := map[time.Duration][]float64{}
		for _, r := range rep.Runs {
			if r.DB == pn.db && r.Scenario == pn.scenario && r.Method == s.method && r.Key == s.key && r.Secs > 0 {
				byRTT[r.RTT] = append(byRTT[r.RTT], float64(r.Units)/r.Secs)
			}
		}
		if len(byRTT) == 0 {
			return nil, fmt.Errorf("%s: no %s %s %s %s runs", path, pn.db, pn.scenario, s.method, s.key)
		}
		var rtts []time.Duration
		for d := range byRTT {
			rtts = append(rtts, d)
		}
		slices.Sort(rtts)
		pts := make(plotter.XYs, len(rtts))
		for i, d := range rtts {
			pts[i].X, pts[i].Y = median(measured[d]), median(byRTT[d])
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, sc.Color = colors[s.key], colors[s.key]
		l.Width = vg.Points(1.5)
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, sc)
		p.Legend.Add(s.label, l, sc)
		for _, pt := range pts {
			lo, hi = min(lo, pt.Y), max(hi, pt.Y)
		}
	}
	// Room above the lines for the legend.
	p.Y.Min, p.Y.Max = lo/1.5, hi*3
	p.X.Max = max(p.X.Max, 2.5)
	return p, nil
}

func median(v []float64) float64 {
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// logTicks marks a log axis at 1, 2 and 5 times each power of ten,
// labelled in thousands from 10,000 up.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := m * d
			if v < lo || v > hi {
				continue
			}
			label := fmt.Sprintf("%.0f", v)
			if v >= 10000 {
				label = fmt.Sprintf("%.0fk", v/1000)
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: label})
		}
	}
	return ticks
}
