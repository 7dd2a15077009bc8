// Package redislease keeps [node.Lease] records in Redis: [New] claims a
// node ID in one Redis hash and returns an ordinary [*node.Lease], to use
// with [node.NewSnowflake] as an SQL lease is. It lives apart from package
// node so that only programs using it compile go-redis.
package redislease

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
)

// DefaultKey is the Redis hash used when [node.LeaseOptions].Key is empty.
const DefaultKey = "idkit:node_leases"

// The Redis lease lives in one hash (one key, so it works on a cluster):
// fields o:N (owner), e:N (expiry, Unix ms of the Redis server's TIME) and
// h:N (high-water mark, Unix µs, rounded up). Every operation is one Lua
// script, so claim, renew and release are atomic and check ownership;
// nothing is read and then written from the client.

// claimScript: ARGV owner, ttl ms, max node, bound µs. Returns {node, old
// mark} or {-1, 0} when every node is held.
var claimScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl, maxn, bound = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
for n = 0, maxn do
  local e = redis.call('HGET', KEYS[1], 'e:' .. n)
  if not e or tonumber(e) < now then
    local h = tonumber(redis.call('HGET', KEYS[1], 'h:' .. n) or '0')
    redis.call('HSET', KEYS[1], 'o:' .. n, ARGV[1], 'e:' .. n, string.format('%.0f', now + ttl),
      'h:' .. n, string.format('%.0f', math.max(h, bound)))
    return {n, string.format('%.0f', h)}
  end
end
return {-1, '0'}
`)

// renewScript: ARGV node, owner, ttl ms, bound µs. Returns 1, or 0 if the
// node is not held by owner.
var renewScript = redis.NewScript(`
local n = ARGV[1]
if redis.call('HGET', KEYS[1], 'o:' .. n) ~= ARGV[2] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = tonumber(redis.call('HGET', KEYS[1], 'h:' .. n) or '0')
redis.call('HSET', KEYS[1], 'e:' .. n, string.format('%.0f', now + tonumber(ARGV[3])),
  'h:' .. n, string.format('%.0f', math.max(h, tonumber(ARGV[4]))))
return 1
`)

// releaseScript: ARGV node, owner, mark µs, exact (1/0). Returns 1, or 0 if
// the node is not held by owner.
var releaseScript = redis.NewScript(`
local n = ARGV[1]
if redis.call('HGET', KEYS[1], 'o:' .. n) ~= ARGV[2] then return 0 end
local h = tonumber(ARGV[3])
if ARGV[4] ~= '1' then h = math.max(h, tonumber(redis.call('HGET', KEYS[1], 'h:' .. n) or '0')) end
redis.call('HSET', KEYS[1], 'o:' .. n, '', 'e:' .. n, '0', 'h:' .. n, string.format('%.0f', h))
return 1
`)

// New claims a node ID in the Redis hash opts.Key (default [DefaultKey])
// and returns the [node.Lease], renewed in the background until Close. The
// lowest node ID in [0, opts.Layout.MaxNode()] that is free or expired by
// the Redis server's clock is claimed by one Lua script; renewal and
// release are scripts that act only if this lease still owns the ID.
// High-water marks are kept in microseconds, rounded up. opts.Table and
// opts.Dialect are ignored.
//
// It returns an error wrapping [node.ErrInvalidConfig] for bad options or a
// nil client, [node.ErrExhausted] when every node ID is held, and the Redis
// error (wrapped) when the claim fails.
func New(ctx context.Context, client redis.Scripter, opts node.LeaseOptions) (*node.Lease, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil redis client", node.ErrInvalidConfig)
	}
	if opts.Key == "" {
		opts.Key = DefaultKey
	}
	return node.NewLease(ctx, &store{c: client, key: opts.Key}, opts)
}

// store is the [node.Store] of one Redis hash.
type store struct {
	c   redis.Scripter
	key string
}

// micros rounds a Unix-nanosecond mark up to microseconds.
func micros(ns int64) int64 { return (ns + 999) / 1000 }

func (b *store) Claim(ctx context.Context, owner string, ttl time.Duration, maxNode, prefer, bound int64) (int64, int64, error) {
	_ = prefer // not yet used: the lowest free node is taken
	v, err := claimScript.Run(ctx, b.c, []string{b.key}, owner, ttl.Milliseconds(), maxNode, micros(bound)).Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("redislease: claim: %w", err)
	}
	if len(v) != 2 {
		return 0, 0, fmt.Errorf("redislease: claim: unexpected reply %v", v)
	}
	n, _ := v[0].(int64)
	if n < 0 {
		return 0, 0, fmt.Errorf("%w: all %d node ids are leased", node.ErrExhausted, maxNode+1)
	}
	var h int64
	if s, ok := v[1].(string); ok {
		_, _ = fmt.Sscan(s, &h)
	}
	return n, h * 1000, nil
}

func (b *store) Renew(ctx context.Context, n int64, owner string, ttl time.Duration, bound int64) error {
	ok, err := renewScript.Run(ctx, b.c, []string{b.key}, n, owner, ttl.Milliseconds(), micros(bound)).Int()
	if err != nil {
		return fmt.Errorf("redislease: renew node %d: %w", n, err)
	}
	if ok != 1 {
		return fmt.Errorf("%w: node %d is no longer held by %s", node.ErrLeaseLost, n, owner)
	}
	return nil
}

func (b *store) Release(ctx context.Context, n int64, owner string, hwm int64, exact bool) error {
	ex := 0
	if exact {
		ex = 1
	}
	if err := releaseScript.Run(ctx, b.c, []string{b.key}, n, owner, micros(hwm), ex).Err(); err != nil {
		return fmt.Errorf("redislease: release node %d: %w", n, err)
	}
	return nil
}
