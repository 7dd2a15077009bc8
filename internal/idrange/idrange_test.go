package idrange_test

import (
	"errors"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/internal/idrange"
	"github.com/idkit-go/idkit/types"
)

func TestObjectIDs(t *testing.T) {
	from := time.Date(2022, 9, 22, 14, 13, 39, 500, time.UTC)
	lo, hi, err := idrange.ObjectIDs(from, from.Add(time.Hour))
	if err != nil || lo != types.ObjectIDFromTime(from) || hi != types.ObjectIDFromTime(from.Add(time.Hour)) {
		t.Errorf("ObjectIDs = %v, %v, %v", lo, hi, err)
	}
	if lo, hi, err := idrange.ObjectIDs(from, from.Add(-time.Hour)); err != nil || lo != hi {
		t.Errorf("reversed range = %v, %v, %v; want empty", lo, hi, err)
	}
	for _, bad := range []time.Time{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(2106, 2, 7, 6, 28, 16, 0, time.UTC)} {
		if _, _, err := idrange.ObjectIDs(bad, bad.Add(time.Second)); !errors.Is(err, idrange.ErrObjectIDTime) {
			t.Errorf("ObjectIDs(%v) error %v, want ErrObjectIDTime", bad, err)
		}
	}
}

func TestSnowflakes(t *testing.T) {
	l := generator.Twitter()
	before := l.Spec().Epoch.Add(-time.Hour)
	lo, hi, err := idrange.Snowflakes(l, before, l.Spec().Epoch.Add(time.Millisecond))
	if err != nil || lo != 0 || hi != 1<<22 {
		t.Errorf("from before the epoch: %d, %d, %v; want 0, 1<<22", lo, hi, err)
	}
	if _, _, err := idrange.Snowflakes(l, l.Spec().Epoch, l.End().Add(time.Hour)); !errors.Is(err, generator.ErrTimeOverflow) {
		t.Errorf("to after the end: %v, want ErrTimeOverflow", err)
	}
	if _, _, err := idrange.Snowflakes(generator.Layout{}, l.Spec().Epoch, l.End()); !errors.Is(err, generator.ErrInvalidLayout) {
		t.Errorf("zero layout: %v, want ErrInvalidLayout", err)
	}
}
