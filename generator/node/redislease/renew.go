package redislease

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
)

// renewScript: KEYS hash, held, free; ARGV node, owner, ttl ms, bound µs,
// horizon µs, the replication ID and node mark (µs) the lease saw last (empty and 0:
// none), probe (see claimScript). Returns {code, version, detail, ident,
// online replicas}; version is the node's mark after the request; code 1 renewed, 0 the node is not held by owner, -1
// the hash is not the one the lease saw (detail: why), -2 owner's record
// had expired, -3 replicas nothing waits for.
var renewScript = redis.NewScript(`
local H, E, F, n = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local info = redis.pcall('INFO', 'replication')
if type(info) ~= 'string' then info = nil end
local ident = info and string.match(info, 'master_replid:(%w+)') or ''
local online = 0
if info then for _ in string.gmatch(info, 'state=online') do online = online + 1 end end
local function reply(t)
  t[#t + 1] = ident
  t[#t + 1] = online
  return t
end
if redis.call('EXISTS', H) == 0 then return reply({-1, 0, 'the lease hash is gone'}) end
local stored = redis.call('HGET', H, 'ident') or ''
if ident ~= '' and stored ~= ident then
  return reply({-1, 0, 'the hash was written by replication ID ' .. stored .. ', the master is ' .. ident})
end
if ident ~= '' and ARGV[6] ~= '' and ARGV[6] ~= ident then
  return reply({-1, 0, 'the lease saw replication ID ' .. ARGV[6] .. ', the master is ' .. ident})
end
local v = tonumber(redis.call('HGET', H, 'h:' .. n) or '0')
if v < tonumber(ARGV[7]) then return reply({-1, v, 'the mark of node ' .. n .. ' (' .. string.format('%.0f', v) .. ') is below ' .. ARGV[7] .. ', which the lease saw'}) end
if redis.call('HGET', H, 'o:' .. n) ~= ARGV[2] then return reply({0, v, ''}) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(redis.call('HGET', H, 'e:' .. n) or '0') < now then return reply({-2, v, ''}) end
if ARGV[8] == '1' and online > 0 and not string.match(info, 'min_slaves_good_slaves:') then return reply({-3, v, ''}) end
local h = tonumber(redis.call('HGET', H, 'h:' .. n) or '0')
local hz = math.max(tonumber(ARGV[5]), tonumber(redis.call('HGET', H, 'hz') or '0'))
local e = string.format('%.0f', now + tonumber(ARGV[3]))
v = math.max(h, tonumber(ARGV[4]))
redis.call('HSET', H, 'e:' .. n, e, 'h:' .. n, string.format('%.0f', v), 'hz', string.format('%.0f', hz))
redis.call('HINCRBY', H, 'v', 1)
redis.call('ZREM', F, n)
redis.call('ZADD', E, e, n)
return reply({1, v, ''})
`)

// renewArgs is one renewal's request.
type renewArgs struct {
	node    int64
	owner   string
	ttl     time.Duration
	bound   int64 // Unix ns
	horizon time.Duration
	ident   string // what the lease saw last
	version int64
}

// renew extends the lease if the hash proves it holds what the lease saw
// last; it returns the replication ID and version the renewal saw, or an
// error wrapping [node.ErrForgot] or [node.ErrLeaseLost] (with
// [node.ErrLapsed] if the record still named owner but had expired).
func (b *store) renew(ctx context.Context, a renewArgs) (string, int64, error) {
	r, short, err := b.run(ctx, renewScript, fmt.Sprintf("renewal of node %d", a.node), a.ttl, a.node, a.owner, a.ttl.Milliseconds(), micros(a.bound),
		micros(a.horizon.Nanoseconds()), a.ident, a.version)
	if err != nil {
		return "", 0, fmt.Errorf("redislease: renew node %d: %w", a.node, err)
	}
	v, _ := r.([]any)
	if len(v) != 5 {
		return "", 0, fmt.Errorf("redislease: renew node %d: unexpected reply %v", a.node, r)
	}
	code, _ := v[0].(int64)
	version, _ := v[1].(int64)
	detail, _ := v[2].(string)
	ident, _ := v[3].(string)
	switch code {
	case 1:
	case 0:
		return "", 0, fmt.Errorf("%w: node %d is no longer held by %s", node.ErrLeaseLost, a.node, a.owner)
	case -2:
		return "", 0, fmt.Errorf("%w: %w: node %d of %s expired before the renewal arrived", node.ErrLeaseLost, node.ErrLapsed, a.node, a.owner)
	default:
		return "", 0, fmt.Errorf("redislease: renew node %d: %w: %s", a.node, node.ErrForgot, detail)
	}
	if short != nil {
		return "", 0, short
	}
	return ident, version, nil
}

// Renew renews a node if the hash proves it holds what the lease saw.
func (b *store) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	ident, v, err := b.renew(ctx, renewArgs{node: r.Node, owner: r.Owner, ttl: r.TTL, bound: r.Bound, horizon: r.Horizon,
		ident: r.Seen.Ident, version: r.Seen.Version})
	return node.Seen{Ident: ident, Version: v}, err
}
