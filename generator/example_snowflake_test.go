package generator_test

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
)

func ExampleNewSnowflake() {
	// A fake clock makes the output reproducible; omit WithClock to use the
	// system clock.
	clock := generatortest.NewFakeClock(time.Date(2024, 1, 2, 3, 4, 5, 678_000_000, time.UTC))
	const datacenter, worker = 1, 2
	node := int64(datacenter<<5 | worker) // Twitter's 10-bit node: 5 bits each
	g, err := generator.NewSnowflake(node, generator.WithClock(clock))
	if err != nil {
		panic(err)
	}
	for range 3 {
		id, err := g.Next()
		if err != nil {
			panic(err)
		}
		p, err := g.Layout().Decompose(id)
		if err != nil {
			panic(err)
		}
		fmt.Println(id, p.Time.Format(time.RFC3339Nano), p.Node, p.Sequence)
	}
	// Output:
	// 1742018900482203648 2024-01-02T03:04:05.678Z 34 0
	// 1742018900482203649 2024-01-02T03:04:05.678Z 34 1
	// 1742018900482203650 2024-01-02T03:04:05.678Z 34 2
}

func ExampleNewSnowflake_sonyflake() {
	clock := generatortest.NewFakeClock(time.Date(2024, 1, 2, 3, 4, 5, 678_000_000, time.UTC))
	g, err := generator.NewSnowflake(0x0A01, generator.WithLayout(generator.Sonyflake()), generator.WithClock(clock))
	if err != nil {
		panic(err)
	}
	id := g.MustNext()
	p, err := generator.Sonyflake().Decompose(id)
	if err != nil {
		panic(err)
	}
	fmt.Println(id, p.Time.Format(time.RFC3339Nano), p.Node, p.Sequence)
	// Output:
	// 494315580237548033 2024-01-02T03:04:05.67Z 2561 0
}

func ExampleNewLayout() {
	l, err := generator.NewLayout(generator.LayoutSpec{
		Name:         "shop",
		TimeBits:     41,
		NodeBits:     8,
		SequenceBits: 14,
		Unit:         time.Millisecond,
		Epoch:        time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(l)
	fmt.Println("nodes:", l.MaxNode()+1, "IDs per ms per node:", l.MaxSequence()+1)
	fmt.Println("last usable time:", l.End().Add(-time.Millisecond).Format(time.RFC3339Nano))

	_, err = generator.NewLayout(generator.LayoutSpec{TimeBits: 41, NodeBits: 10, SequenceBits: 13,
		Unit: time.Millisecond, Epoch: time.Now()})
	fmt.Println(err)
	// Output:
	// shop(41/8/14, 1ms, epoch 2024-01-01T00:00:00Z)
	// nodes: 256 IDs per ms per node: 16384
	// last usable time: 2093-09-06T15:47:35.551Z
	// generator: invalid layout: 41 time + 10 node + 13 sequence bits exceed 63
}

func ExampleLayout_MinID() {
	// Rows created on 2024-01-02 (UTC) are a primary-key range scan:
	// WHERE id >= from AND id < to.
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	from, err := generator.Twitter().MinID(day)
	if err != nil {
		panic(err)
	}
	to, err := generator.Twitter().MinID(day.AddDate(0, 0, 1))
	if err != nil {
		panic(err)
	}
	last, err := generator.Twitter().MaxID(day.AddDate(0, 0, 1).Add(-time.Millisecond))
	if err != nil {
		panic(err)
	}
	fmt.Println("from", from, "to", to)
	fmt.Println("last ID of the day", last, "=", to-1)
	// Output:
	// from 1741972571550646272 to 1742334959416246272
	// last ID of the day 1742334959416246271 = 1742334959416246271
}

func ExampleLayout_Decompose() {
	// Discord's documented example ID.
	p, err := generator.Discord().Decompose(175928847299117063)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Time.Format(time.RFC3339Nano))
	fmt.Println("worker", p.Node>>5, "process", p.Node&31, "increment", p.Sequence)
	// Output:
	// 2016-04-30T11:18:25.796Z
	// worker 1 process 0 increment 7
}
