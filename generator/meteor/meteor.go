package meteor

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/internal/wiring"
	"github.com/idkit-go/idkit/internal/procpin"
	"github.com/idkit-go/idkit/types"
)

// Generator issues Meteor IDs for one node, lock-free and safe for
// concurrent use. IDs are unique and increase in the order Next takes
// effect (see [generator.WithPerCPUBlocks]). Consecutive IDs differ by a
// keyed pseudo-random amount, but two IDs tell how many the generator
// issued between them.
type Generator struct {
	_   [64]byte
	ctr atomic.Uint64 // next seconds<<seqBits | sequence
	_   [56]byte

	layout    Layout
	node      int64
	nodePart  uint64
	key       uint64
	max       uint64 // largest counter value the time field holds
	start     time.Time
	seqBits   uint8
	randBits  uint8
	timeShift uint8
	seqMask   uint64
	randMask  uint64
	blocks    *procpin.Blocks // nil: one atomic add per ID
}

// New returns a generator for nodeID under layout (usually [Default]),
// reading the clock once. It takes [generator.WithClock] and
// [generator.WithPerCPUBlocks]. It returns an error wrapping
// [generator.ErrNodeOutOfRange] for a node outside [0, MaxNode],
// [generator.ErrInvalidLayout] for the zero Layout,
// [generator.ErrTimeOverflow] for a clock outside the layout, and the
// errors the options name.
func New(nodeID int64, layout Layout, opts ...generator.SharedOption) (*Generator, error) {
	return newGenerator(nodeID, layout, nil, opts)
}

// settings returns the clock and per-CPU block size opts set, validated
// as [generator.NewSnowflake] validates them (it reads them for package
// meteor), or its error for them.
func settings(opts []generator.SharedOption) (wiring.Settings, error) {
	var s wiring.Settings
	sf := make([]generator.SnowflakeOption, 0, len(opts)+1)
	for _, o := range opts {
		if o != nil {
			sf = append(sf, o)
		}
	}
	if _, err := generator.NewSnowflake(0, append(sf, &s)...); err != nil {
		return s, err
	}
	return s, nil
}

// newGenerator is New with the key of the random low bits fixed by seed,
// for this package's reproducible tests (export_test.go); a nil seed takes
// the key from crypto/rand.
func newGenerator(nodeID int64, l Layout, seed *uint64, opts []generator.SharedOption) (*Generator, error) {
	if l.IsZero() {
		return nil, fmt.Errorf("%w: zero layout", generator.ErrInvalidLayout)
	}
	set, err := settings(opts)
	if err != nil {
		return nil, err
	}
	if nodeID < 0 || nodeID > l.MaxNode() {
		return nil, fmt.Errorf("%w: node %d not in [0, %d]", generator.ErrNodeOutOfRange, nodeID, l.MaxNode())
	}
	block := set.Block
	now := set.Clock.Now()
	if now.Before(l.epoch) || !now.Before(l.End()) {
		return nil, fmt.Errorf("%w: clock %s outside [%s, %s)", generator.ErrTimeOverflow,
			now.UTC().Format(time.RFC3339), l.epoch.Format(time.RFC3339), l.End().Format(time.RFC3339))
	}
	secs := uint64(now.Sub(l.epoch) / time.Second)
	g := &Generator{
		layout:    l,
		node:      nodeID,
		nodePart:  uint64(nodeID) << (l.seqBits + l.randBits),
		start:     l.epoch.Add(time.Duration(secs) * time.Second),
		seqBits:   l.seqBits,
		randBits:  l.randBits,
		timeShift: l.nodeBits + l.seqBits + l.randBits,
		seqMask:   1<<l.seqBits - 1,
		randMask:  1<<l.randBits - 1,
		max:       1<<(l.timeBits+l.seqBits) - 1,
	}
	if seed != nil {
		g.key = *seed
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		g.key = binary.LittleEndian.Uint64(b[:])
	}
	if block > 1 {
		g.blocks = procpin.NewBlocks(uint64(block))
	}
	first := secs << l.seqBits
	if first == 0 && nodeID == 0 {
		first = 1 // never issue the zero ID
	}
	g.ctr.Store(first)
	return g, nil
}

// Next returns a new ID without reading the clock or blocking. Once the
// time part reaches the layout's end it fails with an error wrapping
// [generator.ErrTimeOverflow].
func (g *Generator) Next() (types.Snowflake, error) {
	var v uint64
	if g.blocks == nil {
		v = g.ctr.Add(1) - 1
	} else {
		v = g.blocks.Take(&g.ctr)
	}
	if v > g.max {
		return 0, fmt.Errorf("%w: time part reached %s", generator.ErrTimeOverflow, g.layout.End().Format(time.RFC3339))
	}
	secs, seq := v>>g.seqBits, v&g.seqMask
	r := mix(v^g.key) & g.randMask
	return types.Snowflake(secs<<g.timeShift | g.nodePart | seq<<g.randBits | r), nil
}

// MustNext is like Next but panics when Next fails.
func (g *Generator) MustNext() types.Snowflake {
	id, err := g.Next()
	if err != nil {
		panic(err)
	}
	return id
}

// Node returns the generator's node ID.
func (g *Generator) Node() int64 { return g.node }

// Layout returns the generator's layout.
func (g *Generator) Layout() Layout { return g.layout }

// Start returns the second the clock read at start, the first time part.
func (g *Generator) Start() time.Time { return g.start }

// Position returns the time part the next ID will carry: compare it with
// the clock to see how far a busy generator runs ahead.
func (g *Generator) Position() time.Time {
	return g.layout.epoch.Add(time.Duration(g.ctr.Load()>>g.seqBits) * time.Second)
}

// mix is the splitmix64 finalizer: the random low bits are a keyed hash of
// the counter, so Next needs no shared random state.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
