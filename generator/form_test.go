package generator_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/generator/meteor"
	"github.com/idkit-go/idkit/types"
)

// TestSnowflakeForm checks that a generator with a scatter form returns
// keys that turn back into the IDs the plain generator makes at the same
// clock readings, whose time decodes to the clock's.
func TestSnowflakeForm(t *testing.T) {
	for _, f := range []types.Form{types.BitReversed(), types.ShardBits(1), types.ShardBits(5), types.ShardBits(16)} {
		for _, l := range []generator.Layout{generator.Twitter(), generator.Sonyflake()} {
			plainClock, keyClock := generatortest.NewFakeClock(sfBase), generatortest.NewFakeClock(sfBase)
			plain, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(plainClock))
			if err != nil {
				t.Fatal(err)
			}
			g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(keyClock), generator.WithForm(f))
			if err != nil {
				t.Fatal(err)
			}
			if g.Form() != f || plain.Form() != (types.Form{}) {
				t.Fatalf("Form() = %v, %v", g.Form(), plain.Form())
			}
			seen := map[types.Snowflake]bool{}
			for i := range 3000 {
				want, err1 := plain.Next()
				key, err2 := g.Next()
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				id, err := f.OrderedSnowflake(key)
				if err != nil || id != want {
					t.Fatalf("%s %s: key %d turns back into %d, %v; want %d", f, l, key, id, err, want)
				}
				if key <= 0 || seen[key] {
					t.Fatalf("%s %s: key %d repeats or is not positive", f, l, key)
				}
				seen[key] = true
				p, err := l.Decompose(id)
				if err != nil || p.Time.After(keyClock.Now()) || p.Time.Before(sfBase) {
					t.Fatalf("%s %s: %d decodes to %v, %v", f, l, id, p.Time, err)
				}
				if i%7 == 0 {
					plainClock.Add(time.Millisecond * 13)
					keyClock.Add(time.Millisecond * 13)
				}
			}
		}
	}
}

func TestFormRefused(t *testing.T) {
	narrow, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 41, NodeBits: 5, SequenceBits: 7,
		Unit: time.Millisecond, Epoch: sfBase})
	if err != nil {
		t.Fatal(err)
	}
	fewTime, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 4, NodeBits: 29, SequenceBits: 30,
		Unit: time.Hour, Epoch: sfBase})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []generator.SnowflakeOption
		want string
	}{
		{"shard bits 0", []generator.SnowflakeOption{generator.WithForm(types.ShardBits(0))}, "shard bits 0"},
		{"shard bits 17", []generator.SnowflakeOption{generator.WithForm(types.ShardBits(17))}, "shard bits 17"},
		{"narrow layout", []generator.SnowflakeOption{generator.WithLayout(narrow), generator.WithForm(types.BitReversed())}, "63 bits"},
		{"few time bits", []generator.SnowflakeOption{generator.WithLayout(fewTime), generator.WithForm(types.ShardBits(5))}, "shard bits 5 exceed the 4 time bits"},
	} {
		_, err := generator.NewSnowflake(1, tc.opts...)
		if !errors.Is(err, generator.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrInvalidConfig naming %q", tc.name, err, tc.want)
		}
	}
	if _, err := generator.NewSnowflake(1, generator.WithLayout(fewTime), generator.WithForm(types.ShardBits(4))); err != nil {
		t.Errorf("4 shard bits in 4 time bits: %v", err)
	}
	if _, err := generator.NewObjectID(generator.WithForm(types.BitReversed())); !errors.Is(err, generator.ErrInvalidConfig) {
		t.Errorf("NewObjectID with the reversed form: %v; want ErrInvalidConfig", err)
	}
	if _, err := generator.NewObjectID(generator.WithForm(types.ShardBits(99))); !errors.Is(err, generator.ErrInvalidConfig) {
		t.Errorf("NewObjectID with shard:99: %v; want ErrInvalidConfig", err)
	}
	if _, err := meteor.New(1, meteor.Default(), generator.WithForm(types.ShardBits(40))); !errors.Is(err, generator.ErrInvalidConfig) {
		t.Errorf("meteor.New with shard:40: %v; want ErrInvalidConfig", err)
	}
}

func TestObjectIDForm(t *testing.T) {
	clk := generatortest.NewFakeClock(sfBase)
	f := types.ShardBits(8)
	g, err := generator.NewObjectID(generator.WithClock(clk), generator.WithForm(f))
	if err != nil {
		t.Fatal(err)
	}
	if g.Form() != f {
		t.Fatalf("Form() = %v", g.Form())
	}
	var buckets [256]int
	var last types.ObjectID
	for i := range 25600 {
		key := g.Next()
		id, err := f.OrderedObjectID(key)
		if err != nil || !id.Timestamp().Equal(sfBase) {
			t.Fatalf("key %s turns back into %s (time %v), %v", key, id, id.Timestamp(), err)
		}
		if i > 0 && id.Compare(last) <= 0 {
			t.Fatalf("IDs %s then %s do not rise", last, id)
		}
		last = id
		buckets[key[0]]++
	}
	for b, n := range buckets {
		if n < 70 || n > 130 {
			t.Fatalf("bucket %d holds %d of 25600 keys; want about 100", b, n)
		}
	}
}

func TestMeteorForm(t *testing.T) {
	f := types.BitReversed()
	g, err := meteor.New(2, meteor.Default(), generator.WithClock(generatortest.NewFakeClock(sfBase.AddDate(2, 0, 0))), generator.WithForm(f))
	if err != nil {
		t.Fatal(err)
	}
	if g.Form() != f {
		t.Fatalf("Form() = %v", g.Form())
	}
	for range 100 {
		key := g.MustNext()
		id, err := f.OrderedSnowflake(key)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := g.Layout().Decompose(id); err != nil || p.Node != 2 {
			t.Fatalf("key %d turns back into %d: %+v, %v", key, id, p, err)
		}
	}
}

// TestReversedLowRate pins what docs/distributed-sql.md says of the
// bit-reversed form at low rates: with one ID per tick every sequence is 0,
// so every key of a Twitter-layout generator is below 2^51, and fixed range
// bounds over the whole key space would put them all in the first range.
func TestReversedLowRate(t *testing.T) {
	clk := generatortest.NewFakeClock(sfBase)
	g, err := generator.NewSnowflake(900, generator.WithClock(clk), generator.WithForm(types.BitReversed()))
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		clk.Add(100 * time.Millisecond)
		key, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if key >= 1<<51 {
			t.Fatalf("key %d at 10 IDs a second is not below 2^51", key)
		}
	}
}

// TestShardTimeRange checks the time-range scan of docs/distributed-sql.md
// for shard:S keys: the keys of IDs made in [from, to) are those of the
// 2^S ranges [j<<(63-S) | MinID(from)&low, j<<(63-S) | MinID(to)&low),
// once keys whose ordered ID is outside [MinID(from), MinID(to)) are
// dropped.
func TestShardTimeRange(t *testing.T) {
	const s = 3
	f := types.ShardBits(s)
	l := generator.Twitter()
	clk := generatortest.NewFakeClock(sfBase)
	g, err := generator.NewSnowflake(4, generator.WithClock(clk), generator.WithForm(f))
	if err != nil {
		t.Fatal(err)
	}
	var keys []types.Snowflake
	for i := range 5000 {
		if i%3 == 0 {
			clk.Add(7 * time.Millisecond)
		}
		key, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	from, to := sfBase.Add(2*time.Second), sfBase.Add(5*time.Second)
	lo, _ := l.MinID(from)
	hi, _ := l.MinID(to)
	const low = 1<<(63-s) - 1
	want, got := map[types.Snowflake]bool{}, map[types.Snowflake]bool{}
	for _, key := range keys {
		id, _ := f.OrderedSnowflake(key)
		if id >= lo && id < hi {
			want[key] = true
		}
		for j := range types.Snowflake(1 << s) {
			start, end := j<<(63-s)|lo&low, j<<(63-s)|hi&low
			if key >= start && key < end && id >= lo && id < hi {
				got[key] = true
			}
		}
	}
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("the %d ranges find %d keys; %d IDs were made in the time range", 1<<s, len(got), len(want))
	}
}
