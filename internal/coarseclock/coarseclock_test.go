package coarseclock

import (
	"sync"
	"testing"
	"time"
)

// readBurst reads the clock n times in a tight loop from a few goroutines.
func readBurst(read func() int64, n int) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range n / 4 {
				read()
			}
		})
	}
	wg.Wait()
}

// waitStopped waits up to d for t to stop publishing.
func waitStopped(tb testing.TB, t *ticker, d time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for t.word.Load() != 0 {
		if time.Now().After(deadline) {
			tb.Fatalf("still publishing %v after the reads stopped", d)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestUnixSecondsFollowsTheClock(t *testing.T) {
	for _, burst := range []bool{false, true} {
		if burst {
			readBurst(UnixSeconds, 4*1024)
			if seconds.word.Load() == 0 {
				t.Fatal("a burst of reads did not publish the time")
			}
		}
		for range 3 {
			got, want := UnixSeconds(), time.Now().Unix()
			if got != want && got != want-1 {
				t.Fatalf("burst %v: UnixSeconds = %d, time.Now = %d", burst, got, want)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	waitStopped(t, &seconds, 3*time.Second)
}

func TestUnixMilliFollowsTheClock(t *testing.T) {
	// The published millisecond lags by the timer's latency, a millisecond
	// or so on an idle machine; the bound leaves room for a loaded one, such
	// as a CI runner running other tests under -race.
	check := func() {
		got, want := UnixMilli(), time.Now().UnixMilli()
		if got > want || got < want-50 {
			t.Fatalf("UnixMilli = %d, time.Now = %d", got, want)
		}
	}
	for range 20 { // slow reads: time.Now
		check()
		time.Sleep(3 * time.Millisecond)
	}
	// Fast reads publish the time. Publishing stops again after a
	// millisecond with few reads, which a descheduled test makes, so the
	// test records whether it published at any point rather than at the end.
	started := false
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) {
		for range 1000 {
			check()
		}
		started = started || millis.word.Load() != 0
	}
	if !started {
		t.Fatal("a tight loop of reads did not publish the time")
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

// At a low read rate nothing is published; after a burst the time is
// published, and publishing stops within a few periods of the reads slowing
// down.
func TestPublishedOnlyWhileReadsAreFrequent(t *testing.T) {
	waitStopped(t, &millis, time.Second)
	for range 100 { // 500 reads a second
		UnixMilli()
		if millis.word.Load() != 0 {
			t.Fatal("published at 500 reads a second")
		}
		time.Sleep(2 * time.Millisecond)
	}
	readBurst(UnixMilli, 100_000)
	if millis.word.Load() == 0 {
		t.Fatal("a burst of reads did not publish the time")
	}
	waitStopped(t, &millis, 100*time.Millisecond)
	if got, want := UnixMilli(), time.Now().UnixMilli(); got < want-50 || got > want {
		t.Fatalf("after stopping, UnixMilli = %d, time.Now = %d", got, want)
	}
}

// SyncMilli moves a published value that the timer has not moved (here the
// test holds the time back) forward to the wall clock, never backwards.
func TestSyncMilliCatchesUp(t *testing.T) {
	millis.start()
	for millis.word.Load() == 0 { // the timer stopped it already
		millis.start()
	}
	for {
		w := millis.word.Load()
		if w == 0 || millis.word.CompareAndSwap(w, (w>>milliBits-500)<<milliBits|w&millis.limit) {
			break
		}
	}
	SyncMilli()
	if got, want := UnixMilli(), time.Now().UnixMilli(); got < want-50 || got > want {
		t.Fatalf("after SyncMilli, UnixMilli = %d, time.Now = %d", got, want)
	}
	v := UnixMilli()
	SyncMilli()
	if UnixMilli() < v {
		t.Fatal("SyncMilli moved the clock backwards")
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

func TestWallNanosIsTheWallClock(t *testing.T) {
	for range 100 {
		before := time.Now().UnixNano()
		got := wallNanos()
		after := time.Now().UnixNano()
		if got < before-int64(time.Microsecond) || got > after {
			t.Fatalf("wallNanos = %d, not in [%d, %d]", got, before, after)
		}
	}
	if n := testing.AllocsPerRun(100, func() { wallNanos() }); n != 0 {
		t.Fatalf("wallNanos allocates %v times", n)
	}
}

// A read while nothing is published: the cost of a low-rate read.
func BenchmarkUnixMilliStopped(b *testing.B) {
	for b.Loop() {
		millis.direct()
	}
}
