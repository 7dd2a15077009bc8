package types_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

func TestFormSnowflakeVectors(t *testing.T) {
	for _, tc := range []struct {
		form    types.Form
		id, key types.Snowflake
	}{
		{types.Form{}, 12345, 12345},
		{types.BitReversed(), 1, 1 << 62},
		{types.BitReversed(), 1 << 62, 1},
		{types.BitReversed(), 0b110, 0b011 << 60},
		{types.BitReversed(), math.MaxInt64, math.MaxInt64},
		{types.BitReversed(), 0, 0},
		{types.ShardBits(4), 0, 0},
	} {
		key, err := tc.form.Snowflake(tc.id)
		if err != nil || key != tc.key {
			t.Errorf("%s.Snowflake(%d) = %d, %v; want %d", tc.form, tc.id, key, err, tc.key)
		}
		back, err := tc.form.OrderedSnowflake(key)
		if err != nil || back != tc.id {
			t.Errorf("%s.OrderedSnowflake(%d) = %d, %v; want %d", tc.form, key, back, err, tc.id)
		}
	}
}

// TestFormShardKeepsLowBits checks what the shard form promises: the key
// differs from the ID only in its top S bits, and stays positive.
func TestFormShardKeepsLowBits(t *testing.T) {
	for s := 1; s <= 16; s++ {
		f := types.ShardBits(s)
		low := int64(1)<<(63-s) - 1
		for id := types.Snowflake(1); id < 1<<62; id = id*3 + 7 {
			key, err := f.Snowflake(id)
			if err != nil {
				t.Fatal(err)
			}
			if key < 0 || int64(key)&low != int64(id)&low {
				t.Fatalf("%s: key %d of %d changes bits below the top %d or is negative", f, key, id, s)
			}
		}
	}
}

// TestFormShardSpreadsLowRate makes IDs with the Twitter layout at 10 a
// second, where every sequence is 0, and checks that their shard-form keys
// fill all 2^S shards evenly: the hash reads the time bits, not only the
// sequence.
func TestFormShardSpreadsLowRate(t *testing.T) {
	const s, n = 4, 16000
	clk := newStepClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 100*time.Millisecond)
	g, err := generator.NewSnowflake(7, generator.WithClock(clk), generator.WithForm(types.ShardBits(s)))
	if err != nil {
		t.Fatal(err)
	}
	var shards [1 << s]int
	for range n {
		key, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		shards[key>>(63-s)]++
	}
	mean := n >> s
	for i, c := range shards {
		if c < mean*85/100 || c > mean*115/100 {
			t.Errorf("shard %d holds %d keys; want %d +-15%% (all: %v)", i, c, mean, shards)
		}
	}
}

func TestFormObjectID(t *testing.T) {
	id := types.MustParseObjectID("65a1b2c3d4e5f60718293a4b")
	for s := 1; s <= 16; s++ {
		f := types.ShardBits(s)
		key, err := f.ObjectID(id)
		if err != nil {
			t.Fatal(err)
		}
		// Only the top s bits may change.
		if [10]byte(key[2:]) != [10]byte(id[2:]) || (key[0]<<min(s, 8)) != (id[0]<<min(s, 8)) {
			t.Errorf("%s: key %s of %s changes more than the top %d bits", f, key, id, s)
		}
		back, err := f.OrderedObjectID(key)
		if err != nil || back != id {
			t.Errorf("%s: OrderedObjectID(%s) = %s, %v; want %s", f, key, back, err, id)
		}
	}
	if key, err := types.ShardBits(8).ObjectID(types.ObjectID{}); err != nil || !key.IsZero() {
		t.Errorf("zero ObjectID: key %s, %v; want zero", key, err)
	}
}

func TestFormUUID(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	id := types.MustParseUUID("019a4c1e-2f00-7abc-9def-0123456789ab")
	f := types.ShardBits(8)
	key, err := f.UUID(id)
	if err != nil {
		t.Fatal(err)
	}
	if key[6]>>4 != 8 || key[8]>>6 != 2 {
		t.Errorf("key %s: version %d variant %b; want 8, 10", key, key[6]>>4, key[8]>>6)
	}
	if [5]byte(key[1:6]) != [5]byte(id[1:6]) || [9]byte(key[7:]) != [9]byte(id[7:]) || key[6]&0xf != id[6]&0xf {
		t.Errorf("key %s of %s changes more than byte 0 and the version", key, id)
	}
	// A key is recognised: it has no version 7 time to misread.
	if !key.Time().IsZero() {
		t.Errorf("key %s: Time() = %v; want the zero time", key, key.Time())
	}
	back, err := f.OrderedUUID(key)
	if err != nil || back != id || back.Time().IsZero() {
		t.Errorf("OrderedUUID(%s) = %s, %v; want %s", key, back, err, id)
	}
	// The reverse mistakes are errors, not wrong values.
	if _, err := f.OrderedUUID(id); !errors.Is(err, types.ErrInvalidUUID) {
		t.Errorf("OrderedUUID of an ordered (version 7) UUID: %v; want ErrInvalidUUID", err)
	}
	if _, err := f.UUID(key); !errors.Is(err, types.ErrInvalidUUID) {
		t.Errorf("UUID of a key (version 8): %v; want ErrInvalidUUID", err)
	}
	v4 := types.MustParseUUID("9b2d3f4e-1c2a-4b6d-8e9f-0a1b2c3d4e5f")
	if _, err := f.UUID(v4); !errors.Is(err, types.ErrInvalidUUID) {
		t.Errorf("UUID of a version 4 UUID: %v; want ErrInvalidUUID", err)
	}
	if k, err := f.UUID(types.UUID{}); err != nil || !k.IsZero() {
		t.Errorf("zero UUID: %s, %v; want zero", k, err)
	}
	if k, err := f.UUID(types.UUIDv7FromTime(at)); err != nil || k.IsZero() {
		t.Errorf("UUIDv7FromTime: %s, %v", k, err)
	}
}

func TestFormBadInput(t *testing.T) {
	for _, f := range []types.Form{types.ShardBits(0), types.ShardBits(17), types.ShardBits(-1), types.ShardBits(1 << 40)} {
		if _, err := f.Snowflake(1); !errors.Is(err, generator.ErrInvalidConfig) {
			t.Errorf("%s.Snowflake: %v; want ErrInvalidConfig", f, err)
		}
		if _, err := f.ObjectID(types.NewObjectID()); !errors.Is(err, generator.ErrInvalidConfig) {
			t.Errorf("%s.ObjectID: %v; want ErrInvalidConfig", f, err)
		}
		if _, err := f.UUID(types.NewUUIDv7()); !errors.Is(err, generator.ErrInvalidConfig) {
			t.Errorf("%s.UUID: %v; want ErrInvalidConfig", f, err)
		}
	}
	r := types.BitReversed()
	if _, err := r.ObjectID(types.NewObjectID()); !errors.Is(err, generator.ErrInvalidConfig) {
		t.Errorf("reversed ObjectID: %v; want ErrInvalidConfig", err)
	}
	if _, err := r.UUID(types.NewUUIDv7()); !errors.Is(err, generator.ErrInvalidConfig) {
		t.Errorf("reversed UUID: %v; want ErrInvalidConfig", err)
	}
	for _, f := range []types.Form{{}, r, types.ShardBits(3)} {
		if _, err := f.Snowflake(-5); !errors.Is(err, types.ErrInvalidSnowflake) {
			t.Errorf("%s.Snowflake(-5): %v; want ErrInvalidSnowflake", f, err)
		}
		if _, err := f.OrderedSnowflake(-5); !errors.Is(err, types.ErrInvalidSnowflake) {
			t.Errorf("%s.OrderedSnowflake(-5): %v; want ErrInvalidSnowflake", f, err)
		}
	}
}

func TestParseForm(t *testing.T) {
	for _, f := range []types.Form{{}, types.BitReversed(), types.ShardBits(1), types.ShardBits(16)} {
		got, err := types.ParseForm(f.String())
		if err != nil || got != f {
			t.Errorf("ParseForm(%q) = %v, %v", f.String(), got, err)
		}
	}
	if f, err := types.ParseForm(""); err != nil || f != (types.Form{}) {
		t.Errorf(`ParseForm("") = %v, %v; want ordered`, f, err)
	}
	for _, s := range []string{
		"shard", "shard:", "shard:0", "shard:17", "shard:x", "Reversed", "bucket", "shard:4 ",
		"shard:+4", "shard:04", "shard: 4", "shard:0x4", "shard:-4", "shard:4.0",
		"shard:99999999999999999999", " ordered", "reversed ", "shard:٤",
	} {
		if f, err := types.ParseForm(s); !errors.Is(err, generator.ErrInvalidConfig) || f != (types.Form{}) {
			t.Errorf("ParseForm(%q) = %v, %v; want the zero Form and ErrInvalidConfig", s, f, err)
		}
	}
	if got := types.ShardBits(5).ShardBits(); got != 5 {
		t.Errorf("ShardBits(5).ShardBits() = %d", got)
	}
	if got := types.BitReversed().ShardBits(); got != 0 {
		t.Errorf("BitReversed().ShardBits() = %d", got)
	}
}

// stepClock is a generator.Clock that moves on by step at each reading:
// one ID per reading at a steady rate.
type stepClock struct {
	now  time.Time
	step time.Duration
}

func newStepClock(start time.Time, step time.Duration) *stepClock {
	return &stepClock{now: start, step: step}
}

func (c *stepClock) Now() time.Time {
	c.now = c.now.Add(c.step)
	return c.now
}

func (c *stepClock) Sleep(d time.Duration) { c.now = c.now.Add(d) }

// TestFormNewUUID: NewUUID's keys are version 8, turn back to rising
// version 7 UUIDs of the current time, and spread over the leading byte;
// forms UUIDs do not take are refused as Form.UUID refuses them.
func TestFormNewUUID(t *testing.T) {
	f := types.ShardBits(8)
	var prev types.UUID
	lead := map[byte]bool{}
	for i := range 4096 {
		key, err := f.NewUUID()
		if err != nil {
			t.Fatal(err)
		}
		if key[6]>>4 != 8 {
			t.Fatalf("key %s is version %d", key, key[6]>>4)
		}
		id, err := f.OrderedUUID(key)
		if err != nil {
			t.Fatal(err)
		}
		if id[6]>>4 != 7 || (i > 0 && id.Compare(prev) <= 0) {
			t.Fatalf("ID %d %s does not follow %s", i, id, prev)
		}
		if d := time.Since(id.Time()); d < -time.Second || d > time.Minute {
			t.Fatalf("ID %s reads %v", id, id.Time())
		}
		prev = id
		lead[key[0]] = true
	}
	if len(lead) < 200 {
		t.Fatalf("4,096 keys took %d leading bytes of 256", len(lead))
	}
	if id, err := (types.Form{}).NewUUID(); err != nil || id[6]>>4 != 7 {
		t.Fatalf("ordered NewUUID: %s, %v", id, err)
	}
	if _, err := types.BitReversed().NewUUID(); !errors.Is(err, generator.ErrInvalidConfig) {
		t.Fatalf("reversed NewUUID: %v", err)
	}
}
