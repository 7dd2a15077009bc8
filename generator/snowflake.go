package generator

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/generator/internal/wiring"
	"github.com/idkit-go/idkit/internal/coarseclock"
	"github.com/idkit-go/idkit/internal/procpin"
	"github.com/idkit-go/idkit/internal/scatter"
	"github.com/idkit-go/idkit/types"
)

// defaultBackwardTolerance is the default of [WithBackwardTolerance].
const defaultBackwardTolerance = 10 * time.Millisecond

// Snowflake generates Snowflake IDs for one node, lock-free and safe for
// concurrent use. Its IDs are unique, never zero, and increase in the order
// Next returns them (see [WithPerCPUBlocks]); in a scatter form
// ([WithForm]) the IDs they are keys of do. IDs of two generators are
// unique only if they never use one node at the same time; a lease
// ([github.com/idkit-go/idkit/generator/node.NewSnowflake]) ensures it.
type Snowflake struct {
	seq *sequence // the state; shared by the generators of one node (see NewSnowflake)

	layout      Layout
	clock       Clock
	coarse      bool  // clock is the system clock: read the coarse clock first
	milliClock  bool  // coarse, with a one-millisecond unit: ticks are coarse milliseconds
	epochMilli  int64 // layout epoch in Unix milliseconds, when coarse
	unitMilli   int64 // layout unit in milliseconds, when coarse
	fence       func() error
	nodePart    int64 // node shifted into place; with a fence, bind holds the node
	nodeShift   uint8
	seqBits     uint8
	seqMask     int64
	timeShift   uint8
	seqShift    uint8
	maxTick     int64
	borrowTicks int64 // sequence exhaustion may issue this many ticks ahead
	slackTicks  int64 // borrowTicks plus the backward tolerance in ticks
	borrowAhead time.Duration
	tolerance   time.Duration
	randMask    int64           // random sequence start below this, per new tick; 0: none
	blockSize   int64           // values a P reserves at a time
	ranges      *procpin.Ranges // each P's block; nil when blockSize is 1
	form        types.Form      // the key form; see WithForm
	reversed    bool            // form is bit-reversed
	shardBits   uint            // form's shard bits; 0: none

	// bind is the node a fenced generator issues on, and the state value at
	// or below which it must not issue there; package node moves it when
	// its lease heals (see rebind). Generators without a fence never read
	// it.
	bind  atomic.Pointer[binding]
	start int64 // the state when the generator was made, for Stats

	_     [64]byte // keep the counters, written on rare paths, off the lines above
	stats counters
}

// NewSnowflake returns a generator for node: by default with the [Twitter]
// layout and [SystemClock], waiting when a tick's sequence is used up. It
// returns an error wrapping [ErrNodeOutOfRange] for a node outside
// [0, MaxNode], and the errors the options name.
//
// Generators on the system clock with the same node and layout (bit
// widths, unit and epoch) in one process share one sequence, so that two
// of them, such as the plugins of two GORM pools given one node, never
// repeat an ID: together they issue what one would, at most one
// sequence's worth per tick. The sharing ends when the last of them is
// garbage collected. A generator on a clock of its own ([WithClock]) or
// leased ([github.com/idkit-go/idkit/generator/node.NewSnowflake], whose
// lease holds the node) has a sequence of its own.
func NewSnowflake(node int64, opts ...SnowflakeOption) (*Snowflake, error) {
	cfg := config{
		layout:    twitter,
		clock:     SystemClock(),
		tolerance: defaultBackwardTolerance,
		block:     1,
	}
	leases, settings := applySnowflake(&cfg, opts)
	l := cfg.layout
	switch {
	case l.IsZero():
		return nil, fmt.Errorf("%w: zero layout", ErrInvalidLayout)
	case cfg.clock == nil:
		return nil, fmt.Errorf("%w: nil clock", ErrInvalidConfig)
	case cfg.borrowAhead < 0:
		return nil, fmt.Errorf("%w: negative borrow-ahead %v", ErrInvalidConfig, cfg.borrowAhead)
	case cfg.tolerance < 0:
		return nil, fmt.Errorf("%w: negative backward tolerance %v", ErrInvalidConfig, cfg.tolerance)
	case cfg.block < 1 || cfg.block > maxPerCPUBlock:
		return nil, fmt.Errorf("%w: per-CPU block of %d not in [1, %d]", ErrInvalidConfig, cfg.block, maxPerCPUBlock)
	case node < 0 || node > l.MaxNode():
		return nil, fmt.Errorf("%w: node %d not in [0, %d] of %s", ErrNodeOutOfRange, node, l.MaxNode(), l.name)
	}
	if err := checkSnowflakeForm(cfg.form, l); err != nil {
		return nil, err
	}
	timeShift, nodeShift, seqShift := l.shifts()
	g := &Snowflake{
		layout:      l,
		clock:       cfg.clock,
		fence:       cfg.fence,
		nodePart:    node << nodeShift,
		nodeShift:   nodeShift,
		seqBits:     l.sequenceBits,
		seqMask:     l.MaxSequence(),
		timeShift:   timeShift,
		seqShift:    seqShift,
		maxTick:     l.maxTick(),
		borrowAhead: cfg.borrowAhead,
		tolerance:   cfg.tolerance,
		blockSize:   int64(cfg.block),
		form:        cfg.form,
		reversed:    cfg.form == types.BitReversed(),
		shardBits:   uint(cfg.form.ShardBits()),
	}
	if _, system := cfg.clock.(systemClock); system && cfg.fence == nil {
		g.seq = sharedSequence(sequenceKey{l.timeBits, l.nodeBits, l.sequenceBits, l.sequenceAboveNode, l.unit, l.epoch.UnixNano(), node})
	} else {
		g.seq = newSequence()
	}
	if cfg.block > 1 {
		g.ranges = procpin.NewRanges()
	}
	if cfg.randomStart && l.sequenceBits > 1 {
		g.randMask = 1<<(l.sequenceBits-1) - 1
	}
	// Borrowing rounds down (never further ahead than asked); the tolerance
	// rounds up (a step back of d never fails). Both are capped at maxTick so
	// that tick arithmetic cannot overflow.
	g.borrowTicks = min(int64(cfg.borrowAhead/l.unit), g.maxTick)
	tolTicks := int64(cfg.tolerance / l.unit)
	if cfg.tolerance%l.unit != 0 {
		tolTicks++
	}
	tolTicks = min(tolTicks, g.maxTick)
	g.slackTicks = g.borrowTicks + tolTicks
	// The coarse clock counts whole milliseconds, so it serves layouts whose
	// unit and epoch are whole milliseconds.
	if _, ok := cfg.clock.(systemClock); ok && l.unit%time.Millisecond == 0 && l.epoch.Nanosecond()%int(time.Millisecond) == 0 {
		g.coarse = true
		g.epochMilli = l.epoch.UnixMilli()
		g.unitMilli = int64(l.unit / time.Millisecond)
		g.milliClock = g.unitMilli == 1
	}
	// The state is last tick<<seqBits | last sequence. Tick 0 sequence 0
	// counts as issued, so the zero Snowflake is never returned; a floor
	// counts its whole tick as issued.
	if !cfg.notBefore.IsZero() && !cfg.notBefore.Before(l.epoch) {
		tick, err := l.tickOf(cfg.notBefore)
		if err != nil {
			return nil, err
		}
		g.seq.raise(tick<<g.seqBits | g.seqMask)
	}
	g.start = g.seq.last.Load()
	g.bind.Store(&binding{node: node, nodePart: g.nodePart, floor: g.start})
	for _, w := range leases {
		w.Rebind, w.LastTime = g.rebind, g.lastTime
	}
	for _, s := range settings {
		*s = wiring.Settings{MaxNode: l.MaxNode(), Unit: l.unit, Clock: cfg.clock,
			BorrowAhead: cfg.borrowAhead, Block: cfg.block}
	}
	return g, nil
}

// Next returns a new ID. It may sleep on the clock when the tick's sequence
// is used up or the clock reads behind within the tolerance. It returns an
// error wrapping [ErrClockMovedBackwards], [ErrTimeOverflow] (the clock
// outside the layout), or for a leased generator [ErrFenced]; a later call
// may succeed.
func (g *Snowflake) Next() (types.Snowflake, error) {
	if err := g.checkFence(); err != nil {
		return 0, err
	}
	if g.ranges == nil {
		// The common case on the system clock, written out here: the
		// coarse clock allows the next value (it is in the clock's tick,
		// or borrowed within bounds, and the clock is not behind beyond
		// the tolerance) and no other goroutine moves the state first.
		// These are the conditions under which reserve would take it.
		if g.milliClock {
			old := g.seq.last.Load() // before the clock; see reserve
			now := coarseclock.UnixMilli() - g.epochMilli
			// The range check comes first: now<<seqBits overflows for a
			// clock past the layout's end.
			if uint64(now) <= uint64(g.maxTick) {
				lastTick := old >> g.seqBits
				next := max(old+1, g.tickStart(now, lastTick))
				nextTick := next >> g.seqBits
				if nextTick <= g.maxTick && now >= lastTick-g.slackTicks &&
					(nextTick == lastTick || nextTick <= now+g.borrowTicks) &&
					g.seq.last.CompareAndSwap(old, next) {
					if nextTick != lastTick {
						g.opened(old, next, next, now)
					}
					g.sync(next)
					if g.fence == nil { // issue, inlined
						return g.compose(next), nil
					}
					return g.issueFenced(next)
				}
			}
		}
		v, _, err := g.reserve(1)
		if err != nil {
			return 0, err
		}
		return g.issue(v)
	}
	// With per-CPU blocks, the common case takes the next value of the
	// calling P's block, reading the coarse clock inline.
	if g.milliClock {
		now := coarseclock.UnixMilli() - g.epochMilli
		p := procpin.Pin()
		if v, ok := g.takeHeld(p, now); ok {
			procpin.Unpin()
			g.sync(v)
			if g.fence != nil { // issue, inlined
				return g.issueFenced(v)
			}
			return g.compose(v), nil
		}
		procpin.Unpin()
	}
	return g.nextPerCPU()
}

// takeHeld takes the next value of P p's block if the block is current at
// tick now: not empty, its tick not behind the clock (the clock has moved
// on, and the block is dropped), nor further ahead than borrowing and the
// backward tolerance allow. The caller is pinned to p.
func (g *Snowflake) takeHeld(p int, now int64) (int64, bool) {
	next, end := g.ranges.Get(p)
	tick := int64(next) >> g.seqBits
	if next >= end || now < tick-g.slackTicks || now > tick || now < 0 {
		return 0, false
	}
	g.ranges.Set(p, next+1, end)
	return int64(next), true
}

// nextPerCPU is Next with [WithPerCPUBlocks] when the fast path in Next does
// not apply: a clock other than the coarse millisecond one, or no current
// block. The fence has been checked.
func (g *Snowflake) nextPerCPU() (types.Snowflake, error) {
	now, coarse := g.coarseTick()
	if !coarse {
		var err error
		if _, now, err = g.read(); err != nil { // unpinned: the clock may block
			return 0, err
		}
	}
	p := procpin.Pin()
	if v, ok := g.takeHeld(p, now); ok {
		procpin.Unpin()
		return g.issue(v)
	}
	// A P created after the generator (GOMAXPROCS grew) has no block to
	// keep values in: it takes one value at a time.
	n := int64(1)
	if p < g.ranges.Len() {
		n = g.blockSize
	}
	procpin.Unpin()
	first, last, err := g.reserve(n)
	if err != nil {
		return 0, err
	}
	if first < last {
		// The goroutine may have moved to another P since the check above;
		// the block that P held, if any, is then discarded, and a P
		// without a block keeps none.
		p = procpin.Pin()
		g.dropBlock(p)
		g.ranges.Set(p, uint64(first+1), uint64(last+1))
		procpin.Unpin()
	}
	return g.issue(first)
}

// issue returns the ID of state value v (tick<<seqBits | sequence), after
// checking the fence again (see issueFenced).
func (g *Snowflake) issue(v int64) (types.Snowflake, error) {
	if g.fence == nil {
		return g.compose(v), nil
	}
	return g.issueFenced(v)
}

// issueFenced is issue for a generator with a fence: it checks the fence
// again, so that a goroutine that stalled between the first check and here
// (stopped, descheduled) does not return an ID after its lease lapsed, and
// composes v with the current binding if v is above the binding's floor
// (see snowflake_rebind.go). Anything else goes to issueSlow.
func (g *Snowflake) issueFenced(v int64) (types.Snowflake, error) {
	err := g.fence()
	if err == nil {
		if b := g.bind.Load(); v > b.floor {
			return g.composeOn(v, b.nodePart), nil
		}
	}
	return g.issueSlow(v, err)
}

// tickStart returns the state value of the first ID of tick now: sequence 0,
// or with [WithRandomSequenceStart] a random sequence below half the range
// when now is later than lastTick, the last issued tick.
func (g *Snowflake) tickStart(now, lastTick int64) int64 {
	v := now << g.seqBits
	if g.randMask != 0 && now > lastTick {
		v |= int64(rand.Uint64()) & g.randMask
	}
	return v
}

// compose returns the ID of state value v on the generator's first node,
// which a generator without a fence keeps for good.
func (g *Snowflake) compose(v int64) types.Snowflake {
	return g.composeOn(v, g.nodePart)
}

// composeOn returns the ID of state value v on the node in nodePart, in
// the generator's form.
func (g *Snowflake) composeOn(v, nodePart int64) types.Snowflake {
	id := uint64((v>>g.seqBits)<<g.timeShift | (v&g.seqMask)<<g.seqShift | nodePart)
	if g.shardBits != 0 {
		id = scatter.Snowflake(id, g.shardBits)
	} else if g.reversed {
		id = scatter.Reverse63(id)
	}
	return types.Snowflake(id)
}

// Form returns the key form of the generator's IDs (see [WithForm]):
// turn a key back with its OrderedSnowflake method before decoding it
// with the layout.
func (g *Snowflake) Form() types.Form { return g.form }

// checkSnowflakeForm returns an error wrapping ErrInvalidConfig when a
// Snowflake generator with layout l cannot make keys in form f: an invalid
// f, a layout narrower than 63 bits (its IDs would no longer fit its
// width), or fewer time bits than f's shard bits.
func checkSnowflakeForm(f types.Form, l Layout) error {
	if f == (types.Form{}) {
		return nil
	}
	if _, err := f.Snowflake(1); err != nil {
		return err
	}
	if w := int(l.timeBits) + int(l.nodeBits) + int(l.sequenceBits); w != 63 {
		return fmt.Errorf("%w: scatter form %s needs a layout of 63 bits; %s has %d", ErrInvalidConfig, f, l.name, w)
	}
	if s := f.ShardBits(); s > int(l.timeBits) {
		return fmt.Errorf("%w: scatter form %s: shard bits %d exceed the %d time bits of %s", ErrInvalidConfig, f, s, l.timeBits, l.name)
	}
	return nil
}

// reserve moves the state on by up to n values and returns the first and
// last of them, all valid to issue now: the first is the next value after
// the state (or the clock's first value, if the clock is ahead), and the
// rest stay within the ticks that borrowing allows. It waits or fails as
// Next documents.
func (g *Snowflake) reserve(n int64) (first, last int64, err error) {
	// Load the state before reading the clock, so that a tick taken from
	// an earlier clock reading can never make this reading look backwards.
	old := g.seq.last.Load()
	// A coarse reading may only confirm issuing an ID; waiting or failing
	// needs a fresh one: the exact clock, read after old was loaded.
	now, coarse := g.coarseTick()
	var wall time.Time
	fresh := false
	if !coarse {
		if wall, now, err = g.read(); err != nil {
			return 0, 0, err
		}
		fresh = true
	}
	behind := false // counted once per call
	for {
		lastTick := old >> g.seqBits
		next := max(old+1, g.tickStart(now, lastTick)) // sequence overflow carries into the tick
		nextTick := next >> g.seqBits
		wait := nextTick > lastTick && nextTick > now+g.borrowTicks
		if fresh && !behind && now < lastTick-g.borrowTicks {
			behind = true
			g.stats.clockBehind.Add(1)
		}
		switch {
		case !fresh && (wait || now < lastTick-g.slackTicks):
			// The reading was coarse, or another goroutine moved the state
			// on after it: decide with a new, exact reading.
		case now < lastTick-g.slackTicks:
			return 0, 0, fmt.Errorf("%w: clock reads %s, %v behind the last issued tick (tolerance %v, borrow-ahead %v)",
				ErrClockMovedBackwards, wall.UTC().Format(time.RFC3339Nano),
				time.Duration(lastTick-now)*g.layout.unit, g.tolerance, g.borrowAhead)
		case nextTick > g.maxTick:
			return 0, 0, fmt.Errorf("%w: sequence exhausted in the last tick before %s",
				ErrTimeOverflow, g.layout.End().Format(time.RFC3339Nano))
		case wait:
			g.stats.waits.Add(1)
			g.clock.Sleep(g.layout.timeOf(nextTick - g.borrowTicks).Sub(wall))
			if err := g.checkFence(); err != nil {
				return 0, 0, err
			}
		default:
			end := next
			if n > 1 { // up to the last value of the furthest tick borrowing allows
				limitTick := min(max(nextTick, now+g.borrowTicks), g.maxTick)
				end = min(next+n-1, limitTick<<g.seqBits|g.seqMask)
			}
			if g.seq.last.CompareAndSwap(old, end) {
				if nextTick != lastTick || end>>g.seqBits != lastTick {
					g.opened(old, next, end, now)
				}
				g.sync(next)
				return next, end, nil
			}
			old = g.seq.last.Load()
			fresh = false
			continue
		}
		old = g.seq.last.Load()
		if wall, now, err = g.read(); err != nil {
			return 0, 0, err
		}
		fresh = true
	}
}

// sync keeps the coarse clock current while IDs come fast: once every
// coarseclock.SyncEvery state values it reads the wall clock, so a tick is
// never older than the clock read SyncEvery IDs before, even while the
// coarse clock's timer waits for a busy P.
func (g *Snowflake) sync(v int64) {
	if v%coarseclock.SyncEvery == 0 && g.coarse {
		coarseclock.SyncMilli()
	}
}

// coarseTick returns the tick of the shared coarse clock and true, or false
// when the generator does not use it or the tick is outside the layout.
func (g *Snowflake) coarseTick() (int64, bool) {
	if !g.coarse {
		return 0, false
	}
	ms := coarseclock.UnixMilli() - g.epochMilli
	tick := ms
	if g.unitMilli != 1 {
		tick = ms / g.unitMilli
	}
	if ms < 0 || tick > g.maxTick {
		return 0, false
	}
	return tick, true
}

// read returns the clock's time and its tick, or an error wrapping
// [ErrTimeOverflow] if the tick is outside the layout.
func (g *Snowflake) read() (time.Time, int64, error) {
	wall := g.clock.Now()
	if g.coarse {
		coarseclock.ObserveMilli(wall.UnixMilli())
	}
	d := wall.Sub(g.layout.epoch)
	tick := int64(d / g.layout.unit)
	if d < 0 || tick > g.maxTick {
		_, err := g.layout.tickOf(wall)
		return wall, 0, err
	}
	return wall, tick, nil
}

// checkFence runs the fence, if any. It is small enough to inline, so a
// generator without a fence pays only the nil check.
func (g *Snowflake) checkFence() error {
	if g.fence == nil {
		return nil
	}
	return g.runFence()
}

func (g *Snowflake) runFence() error {
	if err := g.fence(); err != nil {
		g.stats.fenced.Add(1)
		return fmt.Errorf("%w: %w", ErrFenced, err)
	}
	return nil
}

// MustNext is like [Snowflake.Next] but panics if Next fails.
func (g *Snowflake) MustNext() types.Snowflake {
	id, err := g.Next()
	if err != nil {
		panic(err)
	}
	return id
}

// Node returns the node ID the generator issues on (a leased generator's
// changes when its lease heals on another node).
func (g *Snowflake) Node() int64 { return g.bind.Load().node }

// Layout returns the generator's layout.
func (g *Snowflake) Layout() Layout { return g.layout }

// lastTime returns the start of the last issued tick: the high-water mark
// a lease records on Close, which may be ahead of the clock by up to the
// borrow-ahead allowance. Before the first ID it is the start of the
// floor's tick, or the epoch.
func (g *Snowflake) lastTime() time.Time {
	return g.layout.timeOf(g.seq.last.Load() >> g.seqBits)
}
