package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/cli"
)

var tokyo = time.FixedZone("JST", 9*3600)

// runIn runs the command in process with a fixed clock and zone.
func runIn(stdin string, terminal bool, env map[string]string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = cli.Run(args, cli.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
		Local:  tokyo, StderrTerminal: terminal,
	})
	return out.String(), errb.String(), code
}

func TestRunInspectInProcess(t *testing.T) {
	tests := []struct {
		args  []string
		env   map[string]string
		stdin string
		code  int
		out   []string
		err   string
	}{
		{[]string{"inspect", "632c6d93d65f74baeb22a2c9"}, nil, "", 0,
			[]string{"time      2022-09-22T14:13:39Z  (local 2022-09-22T23:13:39+09:00 JST)", "counter   2269897"}, ""},
		{[]string{"inspect", "--json"}, nil, "4df2dcec2cdcd20936a8b817\n", 0,
			[]string{`"legacy":{"machine":"2cdcd2","pid":2358,"counter":11057175}`, `"time":"2011-06-11T03:11:40Z"`}, ""},
		{[]string{"inspect", "2124352295926763520"}, nil, "", 0,
			[]string{"note      the time is in the future: is the layout right? (see --layout)"}, ""},
		{[]string{"inspect", "175928847299117063"}, map[string]string{"IDKIT_LAYOUT": "discord"}, "", 0,
			[]string{"(worker 1, process 0)"}, ""},
		{[]string{"inspect", "1", "--", "--json"}, nil, "", 1,
			[]string{"1  Snowflake"}, `argument 2: not an ID: "--json"`},
		// A negative number is an argument, not an unknown flag, wherever it is.
		{[]string{"inspect", "-1"}, nil, "", 1,
			nil, `idkit inspect: argument 1: not an ID: "-1" is negative, and IDs never are`},
		{[]string{"inspect", "--json", "5", "-7"}, nil, "", 1,
			[]string{`"input":"5"`, `{"input":"-7","error":"not an ID: \"-7\" is negative`}, `argument 2: not an ID: "-7" is negative`},
		{[]string{"inspect", "--", "-1"}, nil, "", 1, nil, `argument 1: not an ID: "-1" is negative`},
		{[]string{"inspect", "-x"}, nil, "", 2, nil, "idkit inspect: flag provided but not defined: --x"},
		// Library errors reach the user without package prefixes.
		{[]string{"inspect", "--layout", "custom:time=20,seq=2,epoch=2015-01-01", "175928847299117063"}, nil, "", 1,
			nil, "argument 1: id does not fit layout: "},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errs, code := runIn(tt.stdin, false, tt.env, tt.args...)
			if code != tt.code {
				t.Errorf("code %d, want %d; stderr %s", code, tt.code, errs)
			}
			for _, s := range tt.out {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if tt.err == "" && errs != "" || !strings.Contains(errs, tt.err) {
				t.Errorf("stderr %q, want %q", errs, tt.err)
			}
		})
	}
}

// With no arguments and a terminal on standard input, inspect and convert
// print their usage instead of waiting for typed input.
func TestNoArgumentsOnTerminal(t *testing.T) {
	for _, cmd := range []string{"inspect", "convert"} {
		var out, errb bytes.Buffer
		code := cli.Run([]string{cmd}, cli.Env{
			Stdin: strings.NewReader("632c6d93d65f74baeb22a2c9\n"), Stdout: &out, Stderr: &errb,
			StdinTerminal: true,
		})
		if code != cli.ExitUsage || !strings.HasPrefix(errb.String(), "usage: idkit "+cmd) || out.Len() != 0 {
			t.Errorf("%s on a terminal: code %d, stdout %q, stderr %q", cmd, code, out.String(), errb.String())
		}
	}
	// Not a terminal: standard input is read.
	out, _, code := runIn("632c6d93d65f74baeb22a2c9\n", false, nil, "convert", "--to", "hex")
	if code != 0 || out != "632c6d93d65f74baeb22a2c9\n" {
		t.Errorf("convert from a pipe: code %d, stdout %q", code, out)
	}
}

// TestDiagramWraps checks that a diagram wider than --width continues on a
// new row of boxes instead of one long line.
func TestDiagramWraps(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		rows int
	}{
		{[]string{"inspect", "632c6d93d65f74baeb22a2c9"}, nil, 1},
		{[]string{"inspect", "-w", "100", "632c6d93d65f74baeb22a2c9"}, nil, 2},
		{[]string{"inspect", "632c6d93d65f74baeb22a2c9"}, map[string]string{"COLUMNS": "80"}, 2},
		{[]string{"inspect", "--width=40", "1541815603606036480"}, nil, 3},
	} {
		out, _, code := runIn("", false, tt.env, tt.args...)
		if code != 0 {
			t.Fatalf("%v: code %d", tt.args, code)
		}
		if rows := strings.Count(out, "┌"); rows != tt.rows {
			t.Errorf("%v %v: %d rows of boxes, want %d:\n%s", tt.args, tt.env, rows, tt.rows, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "  ┌") && len([]rune(line)) > 120 {
				t.Errorf("line of %d columns", len([]rune(line)))
			}
		}
	}
}

func TestProgressBar(t *testing.T) {
	out, errs, code := runIn("", true, nil, "new", "-n", "100000")
	if code != 0 || strings.Count(out, "\n") != 100000 {
		t.Fatalf("code %d, %d lines", code, strings.Count(out, "\n"))
	}
	// The fixed clock never advances, so only the first and the final
	// frames are drawn.
	want := "\r[..............................]   1% 1024/100000" +
		"\r[##############################] 100% 100000/100000\n"
	if errs != want {
		t.Errorf("progress output %q, want %q", errs, want)
	}
	if _, errs, _ := runIn("", true, nil, "new", "-n", "99999"); errs != "" {
		t.Errorf("progress drawn for a small count: %q", errs)
	}
	if _, errs, _ := runIn("", false, nil, "new", "-n", "100000"); errs != "" {
		t.Errorf("progress drawn when stderr is not a terminal: %q", errs)
	}
}

func TestRunDefaultsEnv(t *testing.T) {
	// A zero Env uses the process's own streams; help goes to stdout.
	old := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout = w
	code := cli.Run([]string{"help", "range"}, cli.Env{})
	os.Stdout = old
	w.Close()
	var buf bytes.Buffer
	buf.ReadFrom(r)
	if code != cli.ExitOK || !strings.Contains(buf.String(), "usage: idkit range") {
		t.Errorf("code %d, output %q", code, buf.String())
	}
}

func ExampleRun() {
	code := cli.Run([]string{"inspect", "--json", "5fd049327fbb28868f4660a5"}, cli.Env{
		Stdout: os.Stdout, Local: time.UTC,
	})
	fmt.Println("exit status", code)
	// Output:
	// {"input":"5fd049327fbb28868f4660a5","kind":"objectid","id":"5fd049327fbb28868f4660a5","time":"2020-12-09T03:49:06Z","local":"2020-12-09T03:49:06Z UTC","unix":1607485746,"process_unique":"7fbb28868f","counter":4612261,"legacy":{"machine":"7fbb28","pid":34447,"counter":4612261},"fields":[{"name":"time","bits":32,"value":1607485746},{"name":"process","bits":40,"value":548600841871},{"name":"counter","bits":24,"value":4612261}]}
	// exit status 0
}

func BenchmarkInspect(b *testing.B) {
	b.ReportAllocs()
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Local: time.UTC}
	for b.Loop() {
		env.Stdout.(*bytes.Buffer).Reset()
		cli.Run([]string{"inspect", "632c6d93d65f74baeb22a2c9", "1541815603606036480"}, env)
	}
}

func BenchmarkNewSnowflakes(b *testing.B) {
	b.ReportAllocs()
	var out bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
	for b.Loop() {
		out.Reset()
		if cli.Run([]string{"new", "-kind", "snowflake", "-node", "1", "-n", "10000"}, env) != 0 {
			b.Fatal("new failed")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/id")
}
