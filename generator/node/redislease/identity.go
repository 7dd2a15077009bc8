package redislease

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failover"
)

// Failover detection (see https://github.com/idkit-go/idkit/blob/main/docs/leases.md):
// the hash keeps "ident", the master replication ID of the server that
// wrote it, and "mark", the floor (Unix µs) that claims after the last
// detected loss start from. The claim script reads the replication ID with
// INFO, in the same script, so a claim still costs one round trip. A
// promotion and a restart give the master a new replication ID: a claim
// that finds it changed assumes that holders the server forgot may still
// issue IDs, and records the new ID with its own Mark, which it and every
// later claim start from. A missing hash is a lost one if the server was
// promoted (it has a previous replication ID) or restarted less than TTL +
// BorrowAhead + MaxClockOffset ago (then the mark is counted from the
// restart); otherwise it is a new one.

// claimScript: KEYS hash, held, free; ARGV owner, ttl ms, max node,
// prefer, bound µs, mark µs (0: do not wait out), window ms (TTL +
// borrow-ahead + clock offset). Returns {node, floor µs, flags} or {-1, 0,
// flags} when every node is held; flags 1: a loss was detected, 2: the
// replication ID could not be read.
var claimScript = redis.NewScript(`
local H, E, F = KEYS[1], KEYS[2], KEYS[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner, ttl, maxn, prefer, bound = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local lossmark, window = tonumber(ARGV[6]), tonumber(ARGV[7])
local info = redis.pcall('INFO', 'replication')
local ident = type(info) == 'string' and string.match(info, 'master_replid:(%w+)')
local mark = tonumber(redis.call('HGET', H, 'mark') or '0')
local flags = 0
if not ident then
  flags = 2
else
  local stored = redis.call('HGET', H, 'ident')
  if stored ~= ident then
    local lost = stored and 1 or 0
    if not stored and redis.call('EXISTS', H) == 0 then
      local prev = string.match(info, 'master_replid2:(%w+)')
      local server = redis.pcall('INFO', 'server')
      local up = type(server) == 'string' and tonumber(string.match(server, 'uptime_in_seconds:(%d+)') or '') or 0
      if prev and not string.match(prev, '^0+$') then
        lost = 1
      elseif up * 1000 < window then
        lost = 1
        lossmark = lossmark - up * 1000000
      end
    end
    if lost == 1 and lossmark > 0 then
      mark = math.max(mark, lossmark)
      flags = 1
    end
    redis.call('HSET', H, 'ident', ident, 'mark', string.format('%.0f', mark))
  end
end
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
  return {n, string.format('%.0f', math.max(h, mark)), flags}
end
if prefer >= 0 and prefer <= maxn then
  local e = redis.call('HGET', H, 'e:' .. prefer)
  if not e or tonumber(e) < now or redis.call('HGET', H, 'o:' .. prefer) == owner then
    return take(prefer)
  end
end
local c = redis.call('ZRANGEBYSCORE', F, '-inf', maxn, 'LIMIT', 0, 1)
if #c == 0 then return {-1, '0', flags} end
return take(tonumber(c[1]))
`)

// Guarded is Claim, waiting out the holders a failover or restart made
// Redis forget.
func (b *store) Guarded(ctx context.Context, c failover.Claim) (failover.Claimed, error) {
	n, f, err := b.guarded(ctx, c)
	return failover.Claimed{Node: n, Floor: f}, err
}

// guarded is Guarded before the failover interface took Horizon (adapter:
// the mark is the claimer's clock + Horizon).
func (b *store) guarded(ctx context.Context, c failover.Claim) (int64, int64, error) {
	mark := micros(time.Now().Add(c.Horizon).UnixNano())
	if failover.Off.Load() {
		mark = 0
	}
	window := (c.Horizon.Nanoseconds() + 999_999) / 1_000_000
	r, acked, err := b.run(ctx, claimScript, c.TTL, c.Owner, c.TTL.Milliseconds(), c.MaxNode, c.Prefer, micros(c.Bound), mark, window)
	if err != nil {
		return 0, 0, fmt.Errorf("redislease: claim: %w", err)
	}
	v, _ := r.([]any)
	if len(v) != 3 {
		return 0, 0, fmt.Errorf("redislease: claim: unexpected reply %v", r)
	}
	n, _ := v[0].(int64)
	var h int64
	if s, ok := v[1].(string); ok {
		_, _ = fmt.Sscan(s, &h)
	}
	switch flags, _ := v[2].(int64); flags {
	case 1:
		if c.Log != nil {
			c.Log.Warn("lease store forgot writes (failover or restart): waiting out earlier holders", "key", b.keys[0], "floor", time.UnixMicro(h))
		}
	case 2:
		failover.Warn(&b.blind, c.Log, "lease store cannot read the Redis master replication ID (INFO replication): a failover or restart that loses writes goes unnoticed and may repeat IDs; set StoreOptions.Replicas and fail over only to an acknowledged replica", "key", b.keys[0])
	}
	if n < 0 {
		return 0, 0, fmt.Errorf("%w: all %d node ids are leased", node.ErrExhausted, c.MaxNode+1)
	}
	if err := b.short(fmt.Sprintf("claim of node %d", n), acked); err != nil {
		// Not trusted: give the node back (keeping the recorded mark).
		_ = releaseScript.Run(context.WithoutCancel(ctx), b.c, b.keys, n, c.Owner, micros(c.Bound), 0).Err()
		return 0, 0, err
	}
	return n, h * 1000, nil
}
