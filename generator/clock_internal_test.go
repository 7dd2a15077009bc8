package generator

import (
	"testing"
	"time"
)

func TestNextLatenessFollowsObservationsWithinBounds(t *testing.T) {
	est := 100 * time.Microsecond
	for range 100 {
		est = nextLateness(est, 60*time.Microsecond)
	}
	if est < 59*time.Microsecond || est > 61*time.Microsecond {
		t.Fatalf("after steady 60µs observations the estimate is %v", est)
	}
	if got := nextLateness(est, time.Hour); got > est+time.Millisecond/8 {
		t.Fatalf("a one-hour stall moved the estimate from %v to %v", est, got)
	}
	if got := nextLateness(est, -time.Second); got < 0 {
		t.Fatalf("an early wake-up made the estimate negative: %v", got)
	}
}
