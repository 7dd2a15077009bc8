package main

import (
	"strings"
	"testing"
	"time"
)

// TestSeries: the IDs per second of a run with an outage, from ID records:
// rows per second with the fault marked, the rate during and after it as a
// fraction of the rate before, seconds without an ID, and when every
// holder issued again.
func TestSeries(t *testing.T) {
	start := time.Now()
	s := &sim{c: config{holders: 2, fault: "outage"}, start: start}
	s.out = outageTimes{start: start.Add(10 * time.Second), stopped: start.Add(12 * time.Second), end: start.Add(14 * time.Second)}
	var recs []record
	for ms := uint32(0); ms < 20000; ms += 250 {
		for h := range 2 {
			// Holder 1 stops during the outage and issues again 1.5 s after it.
			if h == 1 && ms >= 10000 && ms < 15500 {
				continue
			}
			recs = append(recs, record{id: int64(ms)*2 + int64(h), holder: int32(h), ms: ms})
		}
	}
	r := &report{}
	s.analyseSeries(r, recs, start.Add(20*time.Second+100*time.Millisecond), 200*time.Millisecond)
	defer func() {
		// A holder that stops for good is stopped and never issues again.
		r := &report{}
		var cut []record
		for _, rc := range recs {
			if rc.holder == 0 || rc.ms < 15500 {
				cut = append(cut, rc)
			}
		}
		s.analyseSeries(r, cut, start.Add(20*time.Second+100*time.Millisecond), 200*time.Millisecond)
		if got, want := r.get("holders_stopped_by_fault"), "1 / 2"; got != want {
			t.Errorf("stopped for good: holders_stopped_by_fault %q, want %q", got, want)
		}
		if got := r.get("every_holder_issuing_again_after"); !strings.HasPrefix(got, "never: 1 ") {
			t.Errorf("stopped for good: every_holder_issuing_again_after %q", got)
		}
	}()
	var rows []string
	for _, kv := range r.kv {
		if kv[0] == "per_second" {
			rows = append(rows, kv[1])
		}
	}
	want := map[int]string{0: "0 8 2 -", 10: "10 4 1 link-cut", 12: "12 4 1 server-down", 15: "15 6 2 -"}
	if len(rows) != 20 {
		t.Fatalf("%d rows, want 20: %q", len(rows), rows)
	}
	for i, w := range want {
		if rows[i] != w {
			t.Errorf("row %d: %q, want %q", i, rows[i], w)
		}
	}
	for k, w := range map[string]string{
		"rate_before_ids_per_s":            "8.00",
		"rate_during_fraction":             "0.500",
		"rate_after_first_5s_fraction":     "0.850",
		"holders_issuing_during_fraction":  "0.500",
		"every_holder_issuing_after":       "1.5s",
		"holders_issuing_after_fault":      "2 / 2",
		"every_holder_issuing_again_after": "1.5s",
	} {
		if got := r.get(k); got != w {
			t.Errorf("%s: %q, want %q", k, got, w)
		}
	}
	if got := r.get("holder_seconds_without_id"); !strings.HasPrefix(got, "5 (before 0, during 4, after 1)") {
		t.Errorf("holder_seconds_without_id: %q", got)
	}
}
