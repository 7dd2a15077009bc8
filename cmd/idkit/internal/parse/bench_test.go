package parse_test

import (
	"testing"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
)

func BenchmarkParseID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse.ParseID("632c6d93d65f74baeb22a2c9"); err != nil {
			b.Fatal(err)
		}
		if _, err := parse.ParseID("1541815603606036480"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLayout(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse.Layout("custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01T00:00:00Z"); err != nil {
			b.Fatal(err)
		}
	}
}
