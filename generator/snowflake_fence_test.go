package generator_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
)

// A fence that closes while an ID is being made (between the check before
// and the check after) must discard the ID.
func TestFenceClosingDuringNextDiscardsTheID(t *testing.T) {
	errLapsed := errors.New("lease lapsed")
	var calls atomic.Int32
	fence := func() error {
		if calls.Add(1) >= 2 { // open for the first check only
			return errLapsed
		}
		return nil
	}
	g, err := generator.NewSnowflake(1,
		generator.WithClock(generatortest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))),
		generator.WithFence(fence))
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.Next()
	if !errors.Is(err, generator.ErrFenced) || !errors.Is(err, errLapsed) || id != 0 {
		t.Fatalf("Next = %d, %v; want 0 and ErrFenced wrapping the fence error", id, err)
	}
	if calls.Load() != 2 {
		t.Fatalf("fence checked %d times, want before and after making the ID", calls.Load())
	}
}
