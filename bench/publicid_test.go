package bench

import (
	"testing"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
	"github.com/speps/go-hashids/v2"
	"github.com/sqids/sqids-go"
)

// publicKey is a fixed test key ring; never use a known key outside tests.
const publicKey = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

// firstSnowflake is a Snowflake of November 2026; the benchmarks map
// consecutive IDs from it, as a generator makes them.
const firstSnowflake = 2124814128223621120

var publicSink int64

// BenchmarkPublicID measures one encode and one decode of a public ID per
// op: idkit's publicid (FF1 for Snowflakes and ObjectIDs, AES for UUIDs)
// beside sqids-go and go-hashids, which obfuscate a number without a key.
// Rows ending in /idkit-append encode into a reused buffer.
func BenchmarkPublicID(b *testing.B) {
	b.Run("Snowflake/idkit", func(b *testing.B) {
		c, err := publicid.New[types.Snowflake]("user", publicKey)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := range b.N {
			s, _ := c.Encode(types.Snowflake(firstSnowflake + i))
			id, err := c.Decode(s)
			if err != nil {
				b.Fatal(err)
			}
			publicSink += int64(id)
		}
	})
	b.Run("Snowflake/idkit-append", func(b *testing.B) {
		c, err := publicid.New[types.Snowflake]("user", publicKey)
		if err != nil {
			b.Fatal(err)
		}
		var buf []byte
		b.ReportAllocs()
		for i := range b.N {
			buf, _ = c.AppendEncode(buf[:0], types.Snowflake(firstSnowflake+i))
			id, err := c.Decode(string(buf))
			if err != nil {
				b.Fatal(err)
			}
			publicSink += int64(id)
		}
	})
	b.Run("Snowflake/sqids", func(b *testing.B) {
		s, err := sqids.New()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := range b.N {
			text, err := s.Encode([]uint64{uint64(firstSnowflake + i)})
			if err != nil {
				b.Fatal(err)
			}
			n := s.Decode(text)
			if len(n) != 1 {
				b.Fatal("sqids: no number back")
			}
			publicSink += int64(n[0])
		}
	})
	b.Run("Snowflake/hashids", func(b *testing.B) {
		d := hashids.NewData()
		d.Salt = "a salt, which hashids' authors say is not a key"
		h, err := hashids.NewWithData(d)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := range b.N {
			text, err := h.EncodeInt64([]int64{firstSnowflake + int64(i)})
			if err != nil {
				b.Fatal(err)
			}
			n, err := h.DecodeInt64WithError(text)
			if err != nil {
				b.Fatal(err)
			}
			publicSink += n[0]
		}
	})
	b.Run("ObjectID/idkit", func(b *testing.B) {
		c, err := publicid.New[types.ObjectID]("order", publicKey)
		if err != nil {
			b.Fatal(err)
		}
		id := types.MustParseObjectID("6b0416fb60485bf3b6c9a16b")
		b.ReportAllocs()
		for i := range b.N {
			id[11] = byte(i)
			s, _ := c.Encode(id)
			back, err := c.Decode(s)
			if err != nil {
				b.Fatal(err)
			}
			publicSink += int64(back[11])
		}
	})
	b.Run("ObjectID/idkit-append", func(b *testing.B) {
		c, err := publicid.New[types.ObjectID]("order", publicKey)
		if err != nil {
			b.Fatal(err)
		}
		id := types.MustParseObjectID("6b0416fb60485bf3b6c9a16b")
		var buf []byte
		b.ReportAllocs()
		for i := range b.N {
			id[11] = byte(i)
			buf, _ = c.AppendEncode(buf[:0], id)
			back, err := c.Decode(string(buf))
			if err != nil {
				b.Fatal(err)
			}
			publicSink += int64(back[11])
		}
	})
	b.Run("UUID/idkit", func(b *testing.B) {
		c, err := publicid.New[types.UUID]("user", publicKey)
		if err != nil {
			b.Fatal(err)
		}
		id := types.NewUUIDv7()
		b.ReportAllocs()
		for i := range b.N {
			id[15] = byte(i)
			s, _ := c.Encode(id)
			back, err := c.Decode(s)
			if err != nil {
				b.Fatal(err)
			}
			publicSink += int64(back[15])
		}
	})
	b.Run("UUID/idkit-append", func(b *testing.B) {
		c, err := publicid.New[types.UUID]("user", publicKey)
		if err != nil {
			b.Fatal(err)
		}
		id := types.NewUUIDv7()
		var buf []byte
		b.ReportAllocs()
		for i := range b.N {
			id[15] = byte(i)
			buf, _ = c.AppendEncode(buf[:0], id)
			back, err := c.Decode(string(buf))
			if err != nil {
				b.Fatal(err)
			}
			publicSink += int64(back[15])
		}
	})
	b.Run("TypeID/idkit", func(b *testing.B) {
		c, err := publicid.New[types.UUID]("user", publicKey)
		if err != nil {
			b.Fatal(err)
		}
		id := types.NewUUIDv7()
		b.ReportAllocs()
		for i := range b.N {
			id[15] = byte(i)
			s, err := publicid.EncodeTypeID(c, id)
			if err != nil {
				b.Fatal(err)
			}
			back, err := publicid.DecodeTypeID(c, s)
			if err != nil {
				b.Fatal(err)
			}
			publicSink += int64(back[15])
		}
	})
}
