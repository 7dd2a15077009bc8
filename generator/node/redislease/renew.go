package redislease

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
)

// renewScript (after prelude): KEYS hash, held, free; ARGV node, owner,
// ttl ms, bound µs, horizon µs, the replication ID, node mark (µs) and
// replica count the lease saw last (empty, 0, 0: none), want and fixed (see
// claimScript). Returns {code, version, detail, ident, online replicas,
// listed replicas, present, count, need}; version is the node's mark after
// the request; code 1 renewed, 0 the node is not held by owner, -1 the
// hash is not the one the lease saw (detail: why), -2 owner's record had
// expired, -3 and -4 as in claimScript, -5 a field of the node is corrupt
// (detail: which). present, count and need are as in claimScript.
//
// The hash is the one the lease saw if the master's ID is the hash's and
// the lease's; or the ID changed without a loss (lossless, or the lease saw
// the ID field "same" records); or the master was promoted from the ID the
// lease saw (promoted, or field "from") and the node's record expires at
// least the lease's horizon less its TTL (BorrowAhead + unit +
// MaxClockOffset) after the master's clock, so that the old master cannot
// have let another holder claim the node (docs/leases.md, "Why a renewal
// on a promoted master is safe"). The first such renewal records the new
// ID, and after a promotion resets "rs" and "rl" as a claim does.
var renewScript = redis.NewScript(prelude + `
local E, F, n = KEYS[2], KEYS[3], ARGV[1]
local want, fixed = tonumber(ARGV[9]), tonumber(ARGV[10])
local count, need = 0, 0
local present = 0
local function reply(t)
  t[#t + 1] = ident
  t[#t + 1] = online
  t[#t + 1] = real
  t[#t + 1] = present
  t[#t + 1] = count
  t[#t + 1] = need
  return t
end
if redis.call('EXISTS', H) == 0 then return reply({-1, 0, 'the lease hash is gone'}) end
local stored = redis.call('HGET', H, 'ident') or ''
local seen, same, from, switched = ARGV[6], nil, nil, false
if ident ~= '' and stored ~= ident then
  if lossless(stored) and (seen == '' or seen == stored) then
    same = stored
  elseif seen == stored and promoted(stored) then
    from = stored
  else
    return reply({-1, 0, 'the hash was written by replication ID ' .. stored .. ', the master is ' .. ident})
  end
  switched = true
elseif ident ~= '' and seen ~= '' and seen ~= ident then
  if seen == redis.call('HGET', H, 'from') then
    from = seen
  elseif seen ~= redis.call('HGET', H, 'same') then
    return reply({-1, 0, 'the lease saw replication ID ' .. seen .. ', the master is ' .. ident})
  end
end
local v = own('h:' .. n, 0)
if not v then return reply({-5, 0, 'h:' .. n}) end
if v < tonumber(ARGV[7]) then return reply({-1, v, 'the mark of node ' .. n .. ' (' .. string.format('%.0f', v) .. ') is below ' .. ARGV[7] .. ', which the lease saw'}) end
if redis.call('HGET', H, 'o:' .. n) ~= ARGV[2] then return reply({0, v, ''}) end
local e = own('e:' .. n, 0)
if not e then return reply({-5, v, 'e:' .. n}) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if e < now then return reply({-2, v, ''}) end
if from and e < now + math.ceil(tonumber(ARGV[5]) / 1000) - tonumber(ARGV[3]) then
  return reply({-1, v, 'the master was promoted from replication ID ' .. from .. ', and the record of node ' .. n .. ' expires within the clock offset'})
end
local stored_hz, rs, rl = num('hz', 0), num('rs', 0), num('rl', 0)
num('v', 0)
local hz = math.max(tonumber(ARGV[5]), stored_hz)
if same and listed == 0 then rl = math.max(rl, 1) end
local reset = from and switched
if reset then rs, rl = 0, 0 end
if fixed ~= 0 then
  count = math.max(fixed, 0)
else
  count = math.max(replicas(ARGV[6], tonumber(ARGV[8])), rs)
  present = rl
end
need = count
if online < need or real < present then return reply({-4, v, ''}) end
if need ~= want and (need > want or online < want) then return reply({-3, v, ''}) end
local x = string.format('%.0f', now + tonumber(ARGV[3]))
v = math.max(v + 1, tonumber(ARGV[4])) -- at least 1 µs up: a version (see the claim)
redis.call('HSET', H, 'e:' .. n, x, 'h:' .. n, string.format('%.0f', v), 'hz', string.format('%.0f', hz), 'rs', reset and 0 or math.max(rs, online), 'rl', reset and 0 or seenlisted(rl))
if same then
  redis.call('HSET', H, 'ident', ident, 'same', same)
  redis.call('HDEL', H, 'from')
elseif from and switched then
  redis.call('HSET', H, 'ident', ident, 'from', from)
  redis.call('HDEL', H, 'same')
end
redis.call('HINCRBY', H, 'v', 1)
redis.call('ZREM', F, n)
redis.call('ZADD', E, x, n)
return reply({1, v, ''})
`)

// renewArgs is one renewal's request.
type renewArgs struct {
	node    int64
	owner   string
	ttl     time.Duration
	bound   int64 // Unix ns
	horizon time.Duration
	seen    seen // what the lease saw last of the master
	version int64
}

// renew extends the lease if the hash proves it holds what the lease saw
// last, and the replicas the lease saw acknowledge it; it returns what the
// renewal saw, or an error wrapping [node.ErrForgot] (with
// [node.ErrCorrupt] for a corrupt field of the node) or [node.ErrLeaseLost]
// (with [node.ErrLapsed] if the record still named owner but had
// expired).
func (b *store) renew(ctx context.Context, a renewArgs) (seen, int64, error) {
	v, short, err := b.run(ctx, renewScript, fmt.Sprintf("renewal of node %d", a.node), a.ttl, a.seen.count, a.node, a.owner, a.ttl.Milliseconds(), micros(a.bound),
		micros(a.horizon.Nanoseconds()), a.seen.ident, a.version, a.seen.count)
	if err != nil {
		return seen{}, 0, fmt.Errorf("redislease: renew node %d: %w", a.node, err)
	}
	if len(v) != 9 {
		return seen{}, 0, fmt.Errorf("redislease: renew node %d: unexpected reply %v", a.node, v)
	}
	code, _ := v[0].(int64)
	version, _ := v[1].(int64)
	detail, _ := v[2].(string)
	switch code {
	case 1:
	case 0:
		return seen{}, 0, fmt.Errorf("%w: node %d is no longer held by %s", node.ErrLeaseLost, a.node, a.owner)
	case -2:
		return seen{}, 0, fmt.Errorf("%w: %w: node %d of %s expired before the renewal arrived", node.ErrLeaseLost, node.ErrLapsed, a.node, a.owner)
	case -5:
		return seen{}, 0, fmt.Errorf("redislease: renew node %d: %w: %w: field %s is not an integer within 2^53", a.node, node.ErrForgot, node.ErrCorrupt, detail)
	default:
		return seen{}, 0, fmt.Errorf("redislease: renew node %d: %w: %s", a.node, node.ErrForgot, detail)
	}
	if short != nil {
		return seen{}, 0, short
	}
	return replyTail(v), version, nil
}

// Renew renews a node if the hash proves it holds what the lease saw,
// and the replicas the lease saw acknowledge it.
func (b *store) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	s, v, err := b.renew(ctx, renewArgs{node: r.Node, owner: r.Owner, ttl: r.TTL, bound: r.Bound, horizon: r.Horizon,
		seen: parseSeen(r.Seen.Ident), version: r.Seen.Version})
	return node.Seen{Ident: s.String(), Version: v}, err
}
