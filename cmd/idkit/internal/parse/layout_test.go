package parse_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/generator"
)

func TestLayoutPresets(t *testing.T) {
	for in, want := range map[string]generator.Layout{
		"twitter": generator.Twitter(), "Twitter": generator.Twitter(), " sonyflake ": generator.Sonyflake(),
		"discord": generator.Discord(), "DISCORD": generator.Discord(),
	} {
		l, err := parse.Layout(in)
		if err != nil || l != want {
			t.Errorf("Layout(%q) = %v, %v; want %v", in, l, err, want)
		}
		if got := parse.FormatLayout(l); got != want.Spec().Name {
			t.Errorf("FormatLayout(%v) = %q, want %q", l, got, want.Spec().Name)
		}
	}
}

func TestLayoutCustom(t *testing.T) {
	epoch2015 := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want generator.LayoutSpec
	}{
		{"custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01T00:00:00Z",
			generator.LayoutSpec{TimeBits: 41, NodeBits: 10, SequenceBits: 12, Unit: time.Millisecond, Epoch: epoch2015}},
		{"custom:time=41,node=10,seq=12,epoch=2015-01-01",
			generator.LayoutSpec{TimeBits: 41, NodeBits: 10, SequenceBits: 12, Unit: time.Millisecond, Epoch: epoch2015}},
		{"custom: TIME=41 , seq=22 , epoch=1420070400000",
			generator.LayoutSpec{TimeBits: 41, SequenceBits: 22, Unit: time.Millisecond, Epoch: epoch2015}},
		{"custom:time=39,node=16,sequence=8,unit=10ms,epoch=2014-09-01,order=seq-node",
			generator.LayoutSpec{TimeBits: 39, NodeBits: 16, SequenceBits: 8, Unit: 10 * time.Millisecond,
				Epoch: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC), SequenceAboveNode: true}},
		{"twitter:epoch=2018-08-01",
			generator.LayoutSpec{TimeBits: 41, NodeBits: 10, SequenceBits: 12, Unit: time.Millisecond,
				Epoch: time.Date(2018, 8, 1, 0, 0, 0, 0, time.UTC)}},
		{"sonyflake:unit=1ms,order=node-seq",
			generator.LayoutSpec{TimeBits: 39, NodeBits: 16, SequenceBits: 8, Unit: time.Millisecond,
				Epoch: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC)}},
		{"custom:time=30,node=5,seq=10,unit=1s,epoch=2020-02-29T12:00:00+02:00",
			generator.LayoutSpec{TimeBits: 30, NodeBits: 5, SequenceBits: 10, Unit: time.Second,
				Epoch: time.Date(2020, 2, 29, 10, 0, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			l, err := parse.Layout(tt.in)
			if err != nil {
				t.Fatalf("Layout: %v", err)
			}
			tt.want.Name = "custom"
			if got := l.Spec(); got != tt.want {
				t.Errorf("Layout(%q).Spec() = %+v, want %+v", tt.in, got, tt.want)
			}
			again, err := parse.Layout(parse.FormatLayout(l))
			if err != nil || again != l {
				t.Errorf("Layout(FormatLayout) = %v, %v; want %v", again, err, l)
			}
		})
	}
}

func TestLayoutErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "unknown layout"},
		{"snowflake", "unknown layout"},
		{"custom", "custom needs keys"},
		{"custom:", "is not key=value"},
		{"custom:time=41,seq=12", "custom needs epoch="},
		{"custom:seq=12,epoch=2015-01-01", "custom needs time="},
		{"custom:time=41,epoch=2015-01-01", "custom needs seq="},
		{"custom:time=41,seq=12,epoch=2015-01-01,time=40", `key "time" given twice`},
		{"custom:time=41,seq=12,epoch=2015-01-01,color=red", `unknown key "color"`},
		{"custom:time=41,seq=12,epoch=yesterday", "epoch=yesterday is not"},
		{"custom:time=41,seq=12,epoch=2015-01-01,unit=-1ms", "not a positive duration"},
		{"custom:time=41,seq=12,epoch=2015-01-01,unit=fast", "not a positive duration"},
		{"custom:time=41,seq=12,epoch=2015-01-01,order=up", "not node-seq or seq-node"},
		{"custom:time=41,seq=x,epoch=2015-01-01", "not a bit width"},
		{"custom:time=64,seq=1,epoch=2015-01-01", "not a bit width"},
		{"custom:time=41,node=11,seq=12,epoch=2015-01-01", "exceed 63"},
		{"custom:time=62,seq=1,epoch=2015-01-01", "do not fit a time.Duration"},
		{"custom:time=0,seq=1,epoch=2015-01-01", "time bits must be at least 1"},
		{"custom:time=41,seq=12,epoch=99999999999999999", "outside the years"},
		{"twitter:node", "is not key=value"},
		{"twitter:node=", "is not key=value"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			l, err := parse.Layout(tt.in)
			if !errors.Is(err, parse.ErrLayout) && !errors.Is(err, generator.ErrInvalidLayout) {
				t.Fatalf("Layout(%q) = %v, %v; want ErrLayout", tt.in, l, err)
			}
			if !errors.Is(err, parse.ErrLayout) {
				t.Errorf("Layout(%q) error %v does not wrap ErrLayout", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Layout(%q) error %q does not say %q", tt.in, err, tt.msg)
			}
		})
	}
}

// FuzzLayout checks that Layout never panics, that failures wrap ErrLayout,
// and that FormatLayout of a parsed layout parses back to the same layout.
func FuzzLayout(f *testing.F) {
	for _, s := range []string{"twitter", "sonyflake", "discord", "twitter:epoch=2018-08-01",
		"custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01T00:00:00Z",
		"custom:time=39,node=16,seq=8,unit=10ms,epoch=2014-09-01,order=seq-node",
		"custom:time=30,seq=3,unit=1h,epoch=-5000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parse.Layout(s)
		if err != nil {
			if !errors.Is(err, parse.ErrLayout) {
				t.Fatalf("Layout(%q) error %v does not wrap ErrLayout", s, err)
			}
			return
		}
		text := parse.FormatLayout(l)
		again, err := parse.Layout(text)
		if err != nil || again != l {
			t.Fatalf("Layout(%q) = %v; FormatLayout %q parses to %v, %v", s, l, text, again, err)
		}
	})
}

func ExampleLayout() {
	l, err := parse.Layout("twitter:epoch=2018-08-01")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l)
	fmt.Println(parse.FormatLayout(l))
	// Output:
	// custom(41/10/12, 1ms, epoch 2018-08-01T00:00:00Z)
	// custom:time=41,node=10,seq=12,unit=1ms,epoch=2018-08-01T00:00:00Z
}
