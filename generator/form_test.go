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
