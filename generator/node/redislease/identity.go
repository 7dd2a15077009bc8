package redislease

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failover"
)

// Failover detection (see https://github.com/idkit-go/idkit/blob/main/docs/leases.md):
// the hash keeps "ident", the master replication ID of the server that
// wrote it; "v", a version that every claim, renewal and release raises;
// "hz", the longest horizon (TTL + BorrowAhead + unit + MaxClockOffset, in
// µs) of any holder that claimed or renewed in it; and "mark", the floor
// (Unix µs) that claims after the last detected loss start from. The first
// claim writes them all when it creates the hash, in the same script.
//
// The scripts read the replication ID with INFO, in the script, so a claim
// still costs one round trip. A promotion and a restart (also one that
// loads a stale RDB file: the master then keeps the file's ID only as
// master_replid2) give the master a new replication ID. A claim that finds
// the stored ID differs (or missing from an existing hash, which is how an
// operator marks a restored hash) assumes that holders the server forgot
// may still issue IDs: it records the new ID and the mark "now + hz" by the
// server's clock (TIME, so counted from when the request arrived), which
// it and every later claim start from. A missing hash is a lost one if the
// server was promoted (it has a previous replication ID) or restarted less
// than hz ago (then the mark counts from the restart); otherwise it is a
// new one. A renewal proves the hash is the one the lease saw: same
// replication ID, its node's mark (which only rises while the lease holds
// the node) not lower, same owner.

// claimScript: KEYS hash, held, free; ARGV owner, ttl ms, max node,
// prefer, bound µs, horizon µs, lost (1: the caller knows the store lost
// writes), off (1: record no mark), lapsed (1: this claim alone waits the
// horizon from now), probe (1: refuse if the master has
// replicas that nothing waits for). Returns {node, floor µs, flags,
// the node's mark after the claim (µs), detail, ident, online replicas}: node -1 when every node is
// held, -2 for an evicting maxmemory-policy (detail: the policy), -3 for
// replicas nothing waits for; flags 1: a loss mark was recorded, 2: the
// replication ID could not be read.
var claimScript = redis.NewScript(`
local H, E, F = KEYS[1], KEYS[2], KEYS[3]
local owner, ttl, maxn, prefer, bound = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local hz, lost, off, lapsed, probe = tonumber(ARGV[6]), ARGV[7] == '1', ARGV[8] == '1', ARGV[9] == '1', ARGV[10] == '1'
local info = redis.pcall('INFO', 'replication')
if type(info) ~= 'string' then info = nil end
local ident = info and string.match(info, 'master_replid:(%w+)')
local online = 0
if info then for _ in string.gmatch(info, 'state=online') do online = online + 1 end end
local function reply(t)
  t[#t + 1] = ident or ''
  t[#t + 1] = online
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
if probe and online > 0 and not string.match(info, 'min_slaves_good_slaves:') then return reply({-3, '0', 0, 0, ''}) end
local t = redis.call('TIME')
local nowus = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowus / 1000)
local exists = redis.call('EXISTS', H) == 1
local mark = tonumber(redis.call('HGET', H, 'mark') or '0')
hz = math.max(hz, tonumber(redis.call('HGET', H, 'hz') or '0'))
local flags, base = 0, nil
if not ident then
  flags = 2
else
  local stored = redis.call('HGET', H, 'ident')
  if stored ~= ident then
    if exists then
      base = nowus
    else
      local prev = string.match(info, 'master_replid2:(%w+)')
      local server = redis.pcall('INFO', 'server')
      local up = type(server) == 'string' and tonumber(string.match(server, 'uptime_in_seconds:(%d+)') or '') or 0
      if prev and not string.match(prev, '^0+$') then
        base = nowus
      elseif up * 1000000 < hz then
        base = nowus - up * 1000000
      end
    end
    redis.call('HSET', H, 'ident', ident)
  end
end
if lost then base = nowus end
if base and not off then
  mark = math.max(mark, base + hz)
  flags = flags + 1
end
redis.call('HSET', H, 'mark', string.format('%.0f', mark), 'hz', string.format('%.0f', hz))
local floor = mark
if lapsed and not off then floor = math.max(floor, nowus + hz) end
local v = redis.call('HINCRBY', H, 'v', 1)
local seeded = tonumber(redis.call('HGET', H, 'seeded') or '-1')
if seeded >= 0 and redis.call('EXISTS', E) == 0 and redis.call('EXISTS', F) == 0 then seeded = -1 end
if seeded < 0 then redis.call('DEL', E, F) end
if seeded < maxn then
  for n = seeded + 1, maxn do
    local e = tonumber(redis.call('HGET', H, 'e:' .. n) or '0')
    if e < now then redis.call('ZADD', F, n, n) else redis.call('ZADD', E, e, n) end
  end
  redis.call('HSET', H, 'seeded', maxn)
end
local gone = redis.call('ZRANGEBYSCORE', E, '-inf', '(' .. string.format('%.0f', now))
for _, m in ipairs(gone) do
  redis.call('ZREM', E, m)
  redis.call('ZADD', F, m, m)
end
local function take(n)
  local h = tonumber(redis.call('HGET', H, 'h:' .. n) or '0')
  local e = string.format('%.0f', now + ttl)
  redis.call('HSET', H, 'o:' .. n, owner, 'e:' .. n, e, 'h:' .. n, string.format('%.0f', math.max(h, bound)))
  redis.call('ZREM', F, n)
  redis.call('ZADD', E, e, n)
  return reply({n, string.format('%.0f', math.max(h, floor)), flags, math.max(h, bound), ''})
end
if prefer >= 0 and prefer <= maxn then
  local e = redis.call('HGET', H, 'e:' .. prefer)
  if not e or tonumber(e) < now or redis.call('HGET', H, 'o:' .. prefer) == owner then
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
	log             *slog.Logger  // nil: slog.Default()
}

// claimed is what a claim learned.
type claimed struct {
	node, floor int64 // floor in Unix ns
	ident       string
	version     int64
	forgot      bool // the claim recorded a loss mark
}

// claim runs the claim script, waiting out the holders a failover,
// restart or restore made Redis forget.
func (b *store) claim(ctx context.Context, c claimArgs) (claimed, error) {
	log := c.log
	if log == nil {
		log = slog.Default()
	}
	r, short, err := b.run(ctx, claimScript, "claim", c.ttl, c.owner, c.ttl.Milliseconds(), c.maxNode, c.prefer, micros(c.bound),
		micros(c.horizon.Nanoseconds()), flag(c.lost), flag(failover.Off.Load()), flag(c.lapsed))
	if err != nil {
		return claimed{}, fmt.Errorf("redislease: claim: %w", err)
	}
	v, _ := r.([]any)
	if len(v) != 7 {
		return claimed{}, fmt.Errorf("redislease: claim: unexpected reply %v", r)
	}
	n, _ := v[0].(int64)
	detail, _ := v[4].(string)
	if n == -2 {
		return claimed{}, fmt.Errorf("%w: the Redis server's maxmemory-policy is %s, which may evict the lease hash %s and repeat IDs: set maxmemory-policy noeviction (or a volatile-* policy, with no TTL on the lease keys)", node.ErrInvalidConfig, detail, b.keys[0])
	}
	out := claimed{node: n}
	if s, ok := v[1].(string); ok {
		out.floor, _ = strconv.ParseInt(s, 10, 64)
		out.floor *= 1000
	}
	out.version, _ = v[3].(int64)
	out.ident, _ = v[5].(string)
	flags, _ := v[2].(int64)
	if flags&1 != 0 {
		out.forgot = true
		log.Warn("lease store forgot writes (failover, restart or restore): waiting out earlier holders", "key", b.keys[0], "floor", time.Unix(0, out.floor))
	}
	if flags&2 != 0 {
		failover.Warn(&b.blind, log, "lease store cannot read the Redis master replication ID (INFO replication): a failover or restart that loses writes goes unnoticed and may repeat IDs; allow INFO in scripts", "key", b.keys[0])
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
// restore made Redis forget.
func (b *store) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	r, err := b.claim(ctx, claimArgs{owner: c.Owner, ttl: c.TTL, maxNode: c.MaxNode, prefer: c.Prefer, bound: c.Bound,
		horizon: c.Horizon, lost: c.Lost, lapsed: c.Lapsed, log: c.Log})
	if err != nil {
		return node.Claimed{}, err
	}
	return node.Claimed{Node: r.node, Floor: r.floor, Seen: node.Seen{Ident: r.ident, Version: r.version}, Forgot: r.forgot}, nil
}
