package types_test

import (
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/types"
)

func TestNewObjectIDIsUniqueAndOrdered(t *testing.T) {
	const goroutines, each = 8, 20000
	ids := make([][]types.ObjectID, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids[g] = append(ids[g], types.NewObjectID())
			}
		}()
	}
	wg.Wait()
	seen := make(map[types.ObjectID]struct{}, goroutines*each)
	for _, list := range ids {
		for i, id := range list {
			if _, dup := seen[id]; dup {
				t.Fatalf("duplicate ObjectID %s", id)
			}
			seen[id] = struct{}{}
			if i > 0 && id.Timestamp().Before(list[i-1].Timestamp()) {
				t.Fatalf("timestamp went backwards: %s then %s", list[i-1], id)
			}
		}
	}
	now := time.Now()
	if ts := types.NewObjectID().Timestamp(); now.Sub(ts) > 2*time.Second || ts.Sub(now) > 2*time.Second {
		t.Errorf("Timestamp %v far from now %v", ts, now)
	}
}

func TestObjectIDFromTime(t *testing.T) {
	at := time.Date(2022, 9, 22, 14, 13, 39, 999_000_000, time.UTC)
	id := types.ObjectIDFromTime(at)
	if got, want := id.Hex(), "632c6d930000000000000000"; got != want {
		t.Errorf("ObjectIDFromTime = %s, want %s", got, want)
	}
	if !id.Timestamp().Equal(at.Truncate(time.Second)) {
		t.Errorf("Timestamp = %v", id.Timestamp())
	}
	seed := types.MustParseObjectID("632c6d93d65f74baeb22a2c9")
	next := types.ObjectIDFromTime(at.Add(time.Second))
	if !(id.Compare(seed) < 0 && seed.Compare(next) < 0) {
		t.Errorf("%s not within [%s, %s)", seed, id, next)
	}
}

func TestObjectIDFromBytes(t *testing.T) {
	want := types.MustParseObjectID("5fd049327fbb28868f4660a5")
	got, err := types.ObjectIDFromBytes(want[:])
	if err != nil || got != want {
		t.Fatalf("ObjectIDFromBytes = %v, %v", got, err)
	}
	for _, n := range []int{0, 11, 13, 24} {
		if _, err := types.ObjectIDFromBytes(make([]byte, n)); !errors.Is(err, types.ErrInvalidObjectID) {
			t.Errorf("ObjectIDFromBytes(%d bytes) err = %v", n, err)
		}
	}
}

func TestParseObjectIDAcceptsUpperCase(t *testing.T) {
	id, err := types.ParseObjectID("5FD049327FBB28868F4660A5")
	if err != nil || id.Hex() != "5fd049327fbb28868f4660a5" {
		t.Fatalf("got %v, %v", id, err)
	}
}

func TestMustParseObjectIDPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		} else if err, ok := r.(error); !ok || !errors.Is(err, types.ErrInvalidObjectID) {
			t.Fatalf("panic value %v", r)
		}
	}()
	types.MustParseObjectID("nope")
}

func TestObjectIDCompareAndZero(t *testing.T) {
	a := types.MustParseObjectID("4df2dcec2cdcd20936a8b817")
	b := types.MustParseObjectID("5fd049327fbb28868f4660a5")
	c := types.MustParseObjectID("632c6d93d65f74baeb22a2c9")
	list := []types.ObjectID{c, a, b}
	sort.Slice(list, func(i, j int) bool { return list[i].Compare(list[j]) < 0 })
	if list[0] != a || list[1] != b || list[2] != c || a.Compare(a) != 0 {
		t.Errorf("sorted = %v", list)
	}
	if !(types.ObjectID{}).IsZero() || a.IsZero() || (types.ObjectID{}).Hex() != "000000000000000000000000" {
		t.Error("IsZero or nil hex wrong")
	}
}

// Every byte value at every position: accepted exactly when it is a hex
// digit, and decoded to the digit's value.
func TestParseObjectIDEveryByte(t *testing.T) {
	const digits = "0123456789abcdefABCDEF"
	for pos := range 24 {
		for c := range 256 {
			in := []byte(seedHex)
			in[pos] = byte(c)
			id, err := types.ParseObjectID(string(in))
			valid := strings.IndexByte(digits, byte(c)) >= 0
			if valid != (err == nil) {
				t.Fatalf("position %d byte %#x: err = %v", pos, c, err)
			}
			if valid && id.Hex() != strings.ToLower(string(in)) {
				t.Fatalf("position %d byte %#x: decoded %s", pos, c, id.Hex())
			}
		}
	}
}
