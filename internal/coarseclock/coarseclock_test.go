package coarseclock

import (
	"sync"
	"testing"
	"time"
)

func TestUnixSecondsFollowsTheClock(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 { // concurrent first reads start a single ticker
		wg.Add(1)
		go func() { defer wg.Done(); UnixSeconds() }()
	}
	wg.Wait()
	for range 3 {
		got, want := UnixSeconds(), time.Now().Unix()
		if got != want && got != want-1 {
			t.Fatalf("UnixSeconds = %d, time.Now = %d", got, want)
		}
		time.Sleep(700 * time.Millisecond)
	}
}

func TestUnixMilliFollowsTheClock(t *testing.T) {
	// The published millisecond lags by the ticker's wake-up latency, a
	// millisecond or so on an idle machine; the bound leaves room for a
	// loaded one, such as a CI runner running other tests under -race.
	for range 50 {
		got, want := UnixMilli(), time.Now().UnixMilli()
		if got > want || got < want-50 {
			t.Fatalf("UnixMilli = %d, time.Now = %d", got, want)
		}
		time.Sleep(3 * time.Millisecond)
	}
	observed := time.Now().UnixMilli()
	ObserveMilli(observed)
	if got := UnixMilli(); got < observed {
		t.Fatalf("after ObserveMilli, UnixMilli = %d, behind the observation %d", got, observed)
	}
	v := UnixMilli()
	ObserveMilli(v - 100)
	if UnixMilli() < v {
		t.Fatal("ObserveMilli moved the clock backwards")
	}
}

func TestTickerStopsWhenIdleAndRestarts(t *testing.T) {
	UnixSeconds()
	deadline := time.Now().Add(time.Duration(seconds.idle+3) * time.Second)
	for seconds.word.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("ticker still running after the idle period")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got, want := UnixSeconds(), time.Now().Unix(); got != want && got != want-1 {
		t.Fatalf("after restart UnixSeconds = %d, want %d", got, want)
	}
	if seconds.word.Load() == 0 {
		t.Fatal("reading did not restart the ticker")
	}
}

func BenchmarkUnixSeconds(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		UnixSeconds()
	}
}

func BenchmarkUnixMilli(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		UnixMilli()
	}
}

func BenchmarkTimeNow(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = time.Now().Unix()
	}
}
