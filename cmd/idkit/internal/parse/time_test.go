package parse_test

import (
	"errors"
	"testing"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
)

func TestTime(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 3600))
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2022-09-22T14:13:39Z", time.Date(2022, 9, 22, 14, 13, 39, 0, time.UTC)},
		{"2022-09-22T16:13:39.5+02:00", time.Date(2022, 9, 22, 14, 13, 39, 5e8, time.UTC)},
		{"2022-09-22", time.Date(2022, 9, 22, 0, 0, 0, 0, time.UTC)},
		{"2022-09-22T14:13:39", time.Date(2022, 9, 22, 14, 13, 39, 0, time.UTC)},
		{"2022-09-22 14:13:39.25", time.Date(2022, 9, 22, 14, 13, 39, 25e7, time.UTC)},
		{"@1663856019", time.Date(2022, 9, 22, 14, 13, 39, 0, time.UTC)},
		{"@0", time.Unix(0, 0).UTC()},
		{" now ", now.UTC()},
		{"NOW", now.UTC()},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parse.Time(tt.in, now)
			if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("Time(%q) = %v, %v; want %v in UTC", tt.in, got, err, tt.want)
			}
		})
	}
	for _, in := range []string{"", "yesterday", "2022-13-01", "@", "@x", "@99999999999999999999", "1663856019", "22-09-22"} {
		if got, err := parse.Time(in, now); !errors.Is(err, parse.ErrTime) {
			t.Errorf("Time(%q) = %v, %v; want ErrTime", in, got, err)
		}
	}
}

// FuzzTime checks that Time never panics, that failures wrap ErrTime and
// that a parsed time is in UTC and parses back from its RFC 3339 form.
func FuzzTime(f *testing.F) {
	for _, s := range []string{"2022-09-22T14:13:39Z", "2022-09-22", "@1663856019", "now", "2022-09-22 14:13:39.5"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parse.Time(s, now)
		if err != nil {
			if !errors.Is(err, parse.ErrTime) {
				t.Fatalf("Time(%q) error %v does not wrap ErrTime", s, err)
			}
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("Time(%q) = %v, not UTC", s, got)
		}
		if got.Year() < 0 || got.Year() > 9999 {
			return // RFC 3339 cannot hold it
		}
		again, err := parse.Time(got.Format(time.RFC3339Nano), now)
		if err != nil || !again.Equal(got) {
			t.Fatalf("Time(%q) = %v; its RFC 3339 form parses to %v, %v", s, got, again, err)
		}
	})
}
