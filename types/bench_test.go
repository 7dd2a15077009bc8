package types_test

import (
	"encoding/json"
	"testing"

	"github.com/idkit-go/idkit/types"
)

var (
	sinkID  types.ObjectID
	sinkS   string
	sinkB   []byte
	sinkErr error
)

func BenchmarkNewObjectID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID = types.NewObjectID()
	}
}

func BenchmarkNewObjectIDParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var id types.ObjectID
		for pb.Next() {
			id = types.NewObjectID()
		}
		_ = id
	})
}

func BenchmarkObjectIDHex(b *testing.B) {
	id := types.MustParseObjectID(seedHex)
	b.ReportAllocs()
	for b.Loop() {
		sinkS = id.Hex()
	}
}

func BenchmarkParseObjectID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkID, sinkErr = types.ParseObjectID(seedHex)
	}
}

type jsonDoc struct {
	ID   types.ObjectID  `json:"id"`
	Seq  types.Snowflake `json:"seq"`
	Name string          `json:"name"`
}

func BenchmarkJSONMarshal(b *testing.B) {
	d := jsonDoc{ID: types.MustParseObjectID(seedHex), Seq: 1541815603606036480, Name: "tom"}
	b.ReportAllocs()
	for b.Loop() {
		sinkB, sinkErr = json.Marshal(d)
	}
}

func BenchmarkJSONUnmarshal(b *testing.B) {
	data := []byte(`{"id":"632c6d93d65f74baeb22a2c9","seq":"1541815603606036480","name":"tom"}`)
	b.ReportAllocs()
	var d jsonDoc
	for b.Loop() {
		sinkErr = json.Unmarshal(data, &d)
	}
}

func BenchmarkObjectIDValueScan(b *testing.B) {
	id := types.MustParseObjectID(seedHex)
	b.ReportAllocs()
	var back types.ObjectID
	for b.Loop() {
		v, _ := id.Value()
		sinkErr = back.Scan(v)
	}
}

func BenchmarkSnowflakeValueScan(b *testing.B) {
	s := types.Snowflake(1541815603606036480)
	b.ReportAllocs()
	var back types.Snowflake
	for b.Loop() {
		v, _ := s.Value()
		sinkErr = back.Scan(v)
	}
}

func BenchmarkObjectIDBSON(b *testing.B) {
	id := types.MustParseObjectID(seedHex)
	b.ReportAllocs()
	var back types.ObjectID
	for b.Loop() {
		t, data, _ := id.MarshalBSONValue()
		sinkErr = back.UnmarshalBSONValue(t, data)
	}
}

func BenchmarkSnowflakeBSON(b *testing.B) {
	s := types.Snowflake(1541815603606036480)
	b.ReportAllocs()
	var back types.Snowflake
	for b.Loop() {
		t, data, _ := s.MarshalBSONValue()
		sinkErr = back.UnmarshalBSONValue(t, data)
	}
}

type nullDoc struct {
	Ref  types.NullObjectID  `json:"ref"`
	Next types.NullSnowflake `json:"next"`
}

func BenchmarkNullJSON(b *testing.B) {
	d := nullDoc{Ref: types.NullObjectID{ID: types.MustParseObjectID(seedHex), Valid: true}, Next: types.NullSnowflake{ID: 1541815603606036480, Valid: true}}
	b.ReportAllocs()
	var back nullDoc
	for b.Loop() {
		sinkB, sinkErr = json.Marshal(d)
		sinkErr = json.Unmarshal(sinkB, &back)
	}
}

func BenchmarkNullValueScan(b *testing.B) {
	o := types.NullObjectID{ID: types.MustParseObjectID(seedHex), Valid: true}
	s := types.NullSnowflake{ID: 1541815603606036480, Valid: true}
	b.ReportAllocs()
	var bo types.NullObjectID
	var bs types.NullSnowflake
	for b.Loop() {
		v, _ := o.Value()
		sinkErr = bo.Scan(v)
		v, _ = s.Value()
		sinkErr = bs.Scan(v)
		sinkErr = bo.Scan(nil)
	}
}

func BenchmarkNullBSON(b *testing.B) {
	o := types.NullObjectID{ID: types.MustParseObjectID(seedHex), Valid: true}
	s := types.NullSnowflake{ID: 1541815603606036480, Valid: true}
	b.ReportAllocs()
	var bo types.NullObjectID
	var bs types.NullSnowflake
	for b.Loop() {
		t, data, _ := o.MarshalBSONValue()
		sinkErr = bo.UnmarshalBSONValue(t, data)
		t, data, _ = s.MarshalBSONValue()
		sinkErr = bs.UnmarshalBSONValue(t, data)
	}
}
