package mongocompat_test

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/types"
)

type benchDriverDoc struct {
	ID   bson.ObjectID `bson:"_id"`
	Name string        `bson:"name"`
}

type benchIdkitDoc struct {
	ID   types.ObjectID `bson:"_id"`
	Name string         `bson:"name"`
}

type benchV1Doc struct {
	ID   primitive.ObjectID `bson:"_id"`
	Name string             `bson:"name"`
}

// BenchmarkDocumentRoundTrip marshals and unmarshals a {_id, name} document
// with each driver's own ObjectID and with idkit's, side by side in one run.
// The sub-benchmarks are named api=…/id=…, so that
// benchstat -col /id shows each idkit figure beside the driver's
// (bench/mongodb.sh writes bench/results/mongodb.txt that way).
//
//   - api=v2.Marshal: bson.Marshal and bson.Unmarshal (default registry);
//     idkit's type goes through its MarshalBSONValue/UnmarshalBSONValue
//     methods.
//   - api=v2.Encoder: a bson.Encoder and RawValue.UnmarshalWithRegistry with
//     an explicit registry: the default one, or mongov2.Registry with direct
//     codecs (id=idkit+Registry).
//   - api=v1: a bson.Encoder and a bson.Decoder with mongov1.Registry, as
//     the v1 driver's Collection methods use them (the driver's ObjectID uses
//     its own codec).
func BenchmarkDocumentRoundTrip(b *testing.B) {
	id := types.NewObjectID()
	b.Run("api=v2.Marshal/id=driver", func(b *testing.B) {
		in := benchDriverDoc{ID: bson.ObjectID(id), Name: "widget"}
		b.ReportAllocs()
		for b.Loop() {
			data, err := bson.Marshal(in)
			if err != nil {
				b.Fatal(err)
			}
			var out benchDriverDoc
			if err := bson.Unmarshal(data, &out); err != nil || out.ID != in.ID {
				b.Fatal(err)
			}
		}
	})
	b.Run("api=v2.Marshal/id=idkit", func(b *testing.B) {
		in := benchIdkitDoc{ID: id, Name: "widget"}
		b.ReportAllocs()
		for b.Loop() {
			data, err := bson.Marshal(in)
			if err != nil {
				b.Fatal(err)
			}
			var out benchIdkitDoc
			if err := bson.Unmarshal(data, &out); err != nil || out.ID != in.ID {
				b.Fatal(err)
			}
		}
	})
	b.Run("api=v2.Encoder/id=driver", func(b *testing.B) {
		in := benchDriverDoc{ID: bson.ObjectID(id), Name: "widget"}
		var out benchDriverDoc
		benchEncoderV2(b, bson.NewRegistry(), &in, &out)
	})
	b.Run("api=v2.Encoder/id=idkit", func(b *testing.B) {
		in := benchIdkitDoc{ID: id, Name: "widget"}
		var out benchIdkitDoc
		benchEncoderV2(b, bson.NewRegistry(), &in, &out)
	})
	b.Run("api=v2.Encoder/id=idkit+Registry", func(b *testing.B) {
		in := benchIdkitDoc{ID: id, Name: "widget"}
		var out benchIdkitDoc
		benchEncoderV2(b, mongov2.Registry(), &in, &out)
	})
	reg1 := mongov1.Registry()
	b.Run("api=v1/id=driver", func(b *testing.B) {
		in := benchV1Doc{ID: primitive.ObjectID(id), Name: "widget"}
		b.ReportAllocs()
		for b.Loop() {
			data, err := marshalV1(reg1, in)
			if err != nil {
				b.Fatal(err)
			}
			var out benchV1Doc
			if err := unmarshalV1(reg1, data, &out); err != nil || out.ID != in.ID {
				b.Fatal(err)
			}
		}
	})
	b.Run("api=v1/id=idkit+Registry", func(b *testing.B) {
		in := benchIdkitDoc{ID: id, Name: "widget"}
		b.ReportAllocs()
		for b.Loop() {
			data, err := marshalV1(reg1, in)
			if err != nil {
				b.Fatal(err)
			}
			var out benchIdkitDoc
			if err := unmarshalV1(reg1, data, &out); err != nil || out.ID != in.ID {
				b.Fatal(err)
			}
		}
	})
}

// benchEncoderV2 encodes *in and decodes into *out with reg, reusing one
// buffer, so the figures differ only by the codecs used.
func benchEncoderV2[T comparable](b *testing.B, reg *bson.Registry, in, out *T) {
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		enc := bson.NewEncoder(bson.NewDocumentWriter(&buf))
		enc.SetRegistry(reg)
		if err := enc.Encode(in); err != nil {
			b.Fatal(err)
		}
		var zero T
		*out = zero
		raw := bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: buf.Bytes()}
		if err := raw.UnmarshalWithRegistry(reg, out); err != nil || *out != *in {
			b.Fatal(err)
		}
	}
}
