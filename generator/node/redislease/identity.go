package redislease

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failover"
)

// Failover detection (see https://github.com/idkit-go/idkit/blob/main/docs/leases.md):
// the hash keeps "ident", the master replication ID of the server that
// wrote it; "v", a version that every claim, renewal and release raises;
// "hz", the longest horizon (TTL + BorrowAhead + unit + MaxClockOffset, in
// µs) of any holder that claimed or renewed in it; "mark", the floor
// (Unix µs) that claims after the last detected loss start from; "rs",
// the most replicas online that a claim or renewal saw, which every later
// one waits for, and "rl", as "rs" but at least 1 once the master has had
// a replica, which every later one needs the master to list in any state
// (see [StoreOptions].Replicas); "run", the run_id of the server of the
// last claim; "same", the ID before a change that lost nothing, and
// "from", the ID a promoted master was promoted from (see prelude). The
// first claim writes them when it creates the hash, in the same script.
//
// The scripts read the replication ID with INFO, in the script, so a claim
// still costs one round trip (two when the replicas to wait for changed
// since the store's last claim). A promotion and a restart (also one that
// loads a stale RDB file: the master then keeps the file's ID only as
// master_replid2) give the master a new replication ID, and so does the
// first replica attached to it, which loses nothing: a claim or renewal
// that finds lossless (see prelude) records the new ID and goes on. A
// claim that otherwise finds the stored ID differs (or missing from an
// existing hash, which is how an operator marks a restored hash) assumes that holders the server forgot
// may still issue IDs: it records the new ID and the mark "now + hz" by the
// server's clock (TIME, so counted from when the request arrived), which
// it and every later claim start from. A missing hash is a lost one if the
// server was promoted (it has a previous replication ID) or restarted less
// than hz ago (then the mark counts from the restart); otherwise it is a
// new one. A renewal proves the hash is the one the lease saw: same
// replication ID, its node's mark (which only rises while the lease holds
// the node) not lower, same owner.

// claimScript (after prelude): KEYS hash, held, free; ARGV owner, ttl
// ms, max node, prefer, bound µs, horizon µs, lost (1: the caller knows
// the store lost writes), off (1: record no mark), lapsed (1: this claim
// alone waits the horizon from now), the replication ID and replica count
// the lease saw (empty and 0: none), the node mark (µs) the lease saw
// (its [node.Seen].Version; 0: none), want (the replicas the WAIT after the
// script waits for), fixed ([StoreOptions].Replicas). Returns {node, floor
// µs, flags, the node's mark after the claim (µs), detail, ident, online
// replicas, listed replicas, present, count, need}: node -1 when every
// node is held, -2 for an evicting maxmemory-policy (detail: the policy),
// -3 when need is not want (run again with want = need), -4 when fewer
// than need replicas are online or fewer than present listed (present,
// "rl", is in the reply only then; 0 with fixed set); flags 1: a loss mark was recorded, 2: the replication ID could
// not be read, 4: the node's own fields were corrupt (detail: which) and
// are rewritten, the claim waiting the horizon, 8: the claim took prefer
// and found its record as the lease saw it, owner's at a mark not below the
// one the lease saw ([node.Claimed].Kept; the loss mark is recorded all the same). need, the replicas the
// claim must be acknowledged by, and count, what the lease waits for from
// now on, are fixed if set, otherwise the most of: the replicas online,
// those the lease saw (unless this master was promoted from the one it
// saw) and "rs", the most replicas the hash's requests saw (reset to 0,
// with "rl", by a claim that finds the master promoted from the one that
// wrote the hash: the replicas online then may include the old master,
// rejoining for a moment).
// Nothing is written if too few replicas are online or listed (-4), or if
// the WAIT would count another number (-3: want below need, or above the
// replicas online).
var claimScript = redis.NewScript(prelude + `
local E, F = KEYS[2], KEYS[3]
local owner, ttl, maxn, prefer, bound = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local hz, lost, off, lapsed = tonumber(ARGV[6]), ARGV[7] == '1', ARGV[8] == '1', ARGV[9] == '1'
local version, want, fixed = tonumber(ARGV[12]), tonumber(ARGV[13]), tonumber(ARGV[14])
local count, need = 0, 0
local function reply(t)
  t[#t + 1] = ident
  t[#t + 1] = online
  t[#t + 1] = real
  t[#t + 1] = 0
  t[#t + 1] = count
  t[#t + 1] = need
  return t
end
local mem = redis.pcall('INFO', 'memory')
local policy = type(mem) == 'string' and string.match(mem, 'maxmemory_policy:([%w%-]+)') or ''
if string.sub(policy, 1, 8) == 'allkeys-' then return reply({-2, '0', 0, 0, policy}) end
if string.sub(policy, 1, 9) == 'volatile-' then
  for _, k in ipairs(KEYS) do
    if redis.call('PTTL', k) >= 0 then return reply({-2, '0', 0, 0, policy .. ' with a TTL on ' .. k}) end
  end
end
local t = redis.call('TIME')
local nowus = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowus / 1000)
local exists = redis.call('EXISTS', H) == 1
local mark = num('mark', 0)
local stored_hz = num('hz', 0)
local rs = num('rs', 0)
local rl = num('rl', 0)
local seeded = num('seeded', -1)
num('v', 0)
hz = math.max(hz, stored_hz)
local flags, base, same, from = 0, nil, nil, nil
local stored = redis.call('HGET', H, 'ident')
if ident == '' then
  flags = 2
elseif stored ~= ident then
  if exists and stored and lossless(stored) then
    same = stored
  elseif exists then
    base = nowus
    if stored and promoted(stored) then rs, rl, from = -1, 0, stored end
  else
    local up = tonumber(string.match(server(), 'uptime_in_seconds:(%d+)') or '') or 0
    if not zero2 then
      base = nowus
    elseif up * 1000000 < hz then
      base = nowus - up * 1000000
    end
  end
  if exists and had and listed == 0 then rl = math.max(rl, 1) end
end
local present = rl
if fixed ~= 0 then
  count = math.max(fixed, 0)
  present = 0
else
  count = math.max(replicas(ARGV[10], tonumber(ARGV[11])), rs)
end
need = count
local function short(t)
  t = reply(t)
  t[#t - 2] = present
  return t
end
if online < need or real < present then return short({-4, '0', flags, 0, ''}) end
if need ~= want and (need > want or online < want) then return reply({-3, '0', flags, 0, ''}) end
if ident ~= '' and stored ~= ident then
  redis.call('HSET', H, 'ident', ident)
  if same then redis.call('HSET', H, 'same', same) else redis.call('HDEL', H, 'same') end
  if from then redis.call('HSET', H, 'from', from) else redis.call('HDEL', H, 'from') end
end
if lost then base = nowus end
if base and not off then
  mark = math.max(mark, base + hz)
  flags = flags + 1
end
if rs < 0 then rs = 0 else rs, rl = math.max(rs, online), seenlisted(rl) end
local run = string.match(server(), 'run_id:(%x+)')
redis.call('HSET', H, 'mark', string.format('%.0f', mark), 'hz', string.format('%.0f', hz), 'rs', rs, 'rl', rl)
if run then redis.call('HSET', H, 'run', run) end
local floor = mark
if lapsed and not off then floor = math.max(floor, nowus + hz) end
local v = redis.call('HINCRBY', H, 'v', 1)
if seeded >= 0 and redis.call('EXISTS', E) == 0 and redis.call('EXISTS', F) == 0 then seeded = -1 end
if seeded < 0 then redis.call('DEL', E, F) end
if seeded < maxn then
  for n = seeded + 1, maxn do
    local e = own('e:' .. n, 0)
    if not e then
      redis.call('ZADD', E, string.format('%.0f', now + math.ceil(hz / 1000)), n)
    elseif e < now then
      redis.call('ZADD', F, n, n)
    else
      redis.call('ZADD', E, e, n)
    end
  end
  redis.call('HSET', H, 'seeded', maxn)
end
local gone = redis.call('ZRANGEBYSCORE', E, '-inf', '(' .. string.format('%.0f', now))
for _, m in ipairs(gone) do
  redis.call('ZREM', E, m)
  redis.call('ZADD', F, m, m)
end
local function take(n)
  local h, e, detail = own('h:' .. n, 0), own('e:' .. n, 0), ''
  local fl = floor
  if n == prefer and h and e and version > 0 and h >= version and redis.call('HGET', H, 'o:' .. n) == owner then
    flags = flags + 8
  end
  if not h or not e then
    if not h then detail = 'h:' .. n else detail = 'e:' .. n end
    h = 0
    flags = flags + 4
    if not off then fl = math.max(fl, nowus + hz) end
  end
  local x = string.format('%.0f', now + ttl)
  -- The mark rises by at least 1 µs with every write, so that it is a
  -- version every write raises ([node.Seen].Version), which Kept compares.
  local v = math.max(h + 1, bound)
  redis.call('HSET', H, 'o:' .. n, owner, 'e:' .. n, x, 'h:' .. n, string.format('%.0f', v))
  redis.call('ZREM', F, n)
  redis.call('ZADD', E, x, n)
  return reply({n, string.format('%.0f', math.max(h, fl)), flags, v, detail})
end
if prefer >= 0 and prefer <= maxn then
  local raw = redis.call('HGET', H, 'e:' .. prefer)
  local e = own('e:' .. prefer, 0)
  if not raw or redis.call('HGET', H, 'o:' .. prefer) == owner or (e and e < now) then
    return take(prefer)
  end
end
local c = redis.call('ZRANGEBYSCORE', F, '-inf', maxn, 'LIMIT', 0, 1)
if #c == 0 then return reply({-1, '0', flags, v, ''}) end
return take(tonumber(c[1]))
`)

// claimArgs is one claim's request.
type claimArgs struct {
	owner           string
	ttl             time.Duration
	maxNode, prefer int64
	bound           int64         // Unix ns
	horizon         time.Duration // this holder's; the hash keeps the longest
	lost            bool          // the caller knows the store lost writes
	lapsed          bool          // the caller's lease lapsed: this claim waits the horizon
	seen            seen          // what the lease saw of the master
	version         int64         // the node mark (µs) the lease saw: [node.Seen].Version
	log             *slog.Logger  // nil: slog.Default()
}

// claimed is what a claim learned.
type claimed struct {
	node, floor int64 // floor in Unix ns
	seen        seen
	version     int64
	forgot      bool // the claim recorded a loss mark
	kept        bool // the claim took prefer, its record as the lease saw it
}

// claim runs the claim script, waiting out the holders a failover,
// restart or restore made Redis forget.
func (b *store) claim(ctx context.Context, c claimArgs) (claimed, error) {
	log := c.log
	if log == nil {
		log = slog.Default()
	}
	v, short, err := b.run(ctx, claimScript, "claim", c.ttl, max(c.seen.count, b.hint.Load()), c.owner, c.ttl.Milliseconds(), c.maxNode, c.prefer, micros(c.bound),
		micros(c.horizon.Nanoseconds()), flag(c.lost), flag(failover.Off.Load()), flag(c.lapsed), c.seen.ident, c.seen.count, c.version)
	if err != nil {
		return claimed{}, fmt.Errorf("redislease: claim: %w", err)
	}
	if len(v) != 11 {
		return claimed{}, fmt.Errorf("redislease: claim: unexpected reply %v", v)
	}
	n, _ := v[0].(int64)
	detail, _ := v[4].(string)
	if n == -2 {
		return claimed{}, fmt.Errorf("%w: the Redis server's maxmemory-policy is %s, which may evict the lease hash %s and repeat IDs: set maxmemory-policy noeviction (or a volatile-* policy, with no TTL on the lease keys)", generator.ErrInvalidConfig, detail, b.keys[0])
	}
	out := claimed{node: n, seen: replyTail(v)}
	b.hint.Store(out.seen.count)
	if s, ok := v[1].(string); ok {
		out.floor, _ = strconv.ParseInt(s, 10, 64)
		out.floor *= 1000
	}
	out.version, _ = v[3].(int64)
	flags, _ := v[2].(int64)
	if flags&1 != 0 && out.kept {
		out.forgot = true
		log.Warn("lease store forgot writes (failover, restart or restore), but kept this lease's record as it saw it: new claims wait out earlier holders", "key", b.keys[0], "node", n, "floor", time.Unix(0, out.floor))
	} else if flags&1 != 0 {
		out.forgot = true
		log.Warn("lease store forgot writes (failover, restart or restore): waiting out earlier holders", "key", b.keys[0], "floor", time.Unix(0, out.floor))
	}
	out.kept = flags&8 != 0
	if flags&2 != 0 {
		failover.Warn(&b.blind, log, "lease store cannot read the Redis master replication ID (INFO replication): a failover or restart that loses writes goes unnoticed and may repeat IDs; allow INFO in scripts", "key", b.keys[0])
	}
	if flags&4 != 0 {
		log.Warn("lease store: corrupt field rewritten by a claim, which waits out earlier holders", "key", b.keys[0], "field", detail, "floor", time.Unix(0, out.floor))
	}
	if n < 0 {
		return claimed{}, fmt.Errorf("%w: all %d node ids are leased", node.ErrExhausted, c.maxNode+1)
	}
	if err := short; err != nil {
		// Not trusted: give the node back (keeping the recorded mark).
		_ = releaseScript.Run(context.WithoutCancel(ctx), b.c, b.keys, n, c.owner, micros(c.bound), 0).Err()
		return claimed{}, err
	}
	return out, nil
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Claim claims a node, waiting out the holders a failover, restart or
// restore made Redis forget, and waiting for the replicas the lease saw
// (see [StoreOptions].Replicas).
func (b *store) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	r, err := b.claim(ctx, claimArgs{owner: c.Owner, ttl: c.TTL, maxNode: c.MaxNode, prefer: c.Prefer, bound: c.Bound,
		horizon: c.Horizon, lost: c.Lost, lapsed: c.Lapsed, seen: parseSeen(c.Seen.Ident), version: c.Seen.Version, log: c.Log})
	if err != nil {
		return node.Claimed{}, err
	}
	return node.Claimed{Node: r.node, Floor: r.floor, Seen: node.Seen{Ident: r.seen.String(), Version: r.version}, Forgot: r.forgot, Kept: r.kept}, nil
}
