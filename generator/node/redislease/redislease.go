// Package redislease keeps [node.Lease] records in one Redis hash: pass
// [NewStore] to [node.NewLease] for a lease to use with
// [node.NewSnowflake] as an SQL lease is. It lives apart from package node
// so that only its users compile go-redis. A Redis failover or restart that loses writes gives the master
// a new replication ID; a claim that finds it changed, or a renewal that
// finds it or the hash's version not what the lease saw, waits out the
// longest horizon of the hash's holders (see
// [node.LeaseOptions].MaxClockOffset). A claim refuses an evicting
// maxmemory-policy, and with replicas claims and renewals wait (WAIT) for
// one by default (see [StoreOptions].Replicas).
// See https://github.com/idkit-go/idkit/blob/main/docs/leases.md
package redislease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
)

// defaultKey is the Redis hash of a store whose [StoreOptions].Key is
// empty.
const defaultKey = "idkit:node_leases"

// ErrNotReplicated reports a claim or renewal that fewer than
// [StoreOptions].Replicas replicas acknowledged in time; it fails.
var ErrNotReplicated = errors.New("redislease: not acknowledged by enough replicas")

// The Redis lease lives in one hash: fields o:N (owner), e:N (expiry, Unix
// ms of the Redis server's TIME), h:N (high-water mark, Unix µs, rounded
// up) and "seeded" (the highest node indexed). Two sorted sets index it so
// that a claim costs O(log n), not a scan of every node: the held nodes
// scored by expiry, and the free nodes scored by their own number. A claim
// first moves the nodes whose lease has expired from the first to the
// second (each expiry is moved once), then takes the lowest free node.
// Every operation is one Lua script, so claim, renew and release are
// atomic and check ownership; nothing is read and then written from the
// client.

// releaseScript: KEYS hash, held, free; ARGV node, owner, mark µs, exact
// (1/0). Returns 1, or 0 if the node is not held by owner.
var releaseScript = redis.NewScript(`
local H, E, F, n = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
if redis.call('HGET', H, 'o:' .. n) ~= ARGV[2] then return 0 end
local h = tonumber(ARGV[3])
if ARGV[4] ~= '1' then h = math.max(h, tonumber(redis.call('HGET', H, 'h:' .. n) or '0')) end
redis.call('HSET', H, 'o:' .. n, '', 'e:' .. n, '0', 'h:' .. n, string.format('%.0f', h))
redis.call('HINCRBY', H, 'v', 1)
redis.call('ZREM', E, n)
redis.call('ZADD', F, n, n)
return 1
`)

// StoreOptions configures [NewStore].
type StoreOptions struct {
	// Key is the Redis hash of the leases, also the cluster slot of its
	// two index sets. Default "idkit:node_leases". Never delete it.
	Key string
	// Replicas, if positive, makes each claim and renewal wait (WAIT) for
	// that many replicas, up to ReplicaTimeout (default TTL/4, the default
	// Margin; at least 1 ms), and fail with [ErrNotReplicated] if fewer acknowledge. Zero
	// waits for one replica once the master has any, unless the server
	// sets min-replicas-to-write: a master cut off from its replicas (an
	// old master after a promotion) then cannot keep renewing leases. With
	// a negative value, or replicas to wait for and a client that cannot
	// pipeline, claims and renewals fail with [node.ErrInvalidConfig].
	Replicas       int
	ReplicaTimeout time.Duration
}

// NewStore returns the [node.Store] of the Redis hash opts.Key, for
// [node.NewLease]; one store serves any number of leases. Each claim,
// renewal and release is one atomic Lua script; expiry is by the Redis
// server's clock.
func NewStore(client redis.Scripter, opts StoreOptions) node.Store {
	if opts.Key == "" {
		opts.Key = defaultKey
	}
	return &store{c: client, keys: []string{opts.Key, indexKey(opts.Key, "held"), indexKey(opts.Key, "free")}, o: opts}
}

// indexKey names a sorted set kept beside the hash key, in its cluster
// slot: the slot of a key is that of its hash tag, the text between the
// first { and the next }, if not empty, and otherwise of the whole key.
func indexKey(key, name string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key + ":" + name
		}
	}
	return "{" + key + "}:" + name
}

// store is the [node.Store] of one Redis hash.
type store struct {
	c    redis.Scripter
	keys []string
	o    StoreOptions

	blind atomic.Bool            // warned that the master's identity cannot be read
	auto  atomic.Pointer[string] // with Replicas 0: the replication ID of the master seen with replicas
}

// pipeliner is what waiting for replicas needs of a client: a pipeline
// runs the script and WAIT on one connection.
type pipeliner interface {
	Pipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error)
}

// clusterClient is what run needs of a *redis.ClusterClient.
type clusterClient interface {
	MasterForKey(ctx context.Context, key string) (*redis.Client, error)
	ReloadState(ctx context.Context)
}

// run runs s with args and a last argument, probe, then WAIT on the same
// connection if there are replicas to wait for. short is the error for
// fewer replicas acknowledging than waited for (what names the request).
// With Replicas 0 the store waits for one replica once a script saw the
// master has any: with none known, probe asks the script to refuse
// (reply {-3, ...}) if it has, and the request runs again, waiting. A
// master with another replication ID and no replica (a promoted one)
// ends the wait.
func (b *store) run(ctx context.Context, s *redis.Script, what string, ttl time.Duration, args ...any) (v any, short, err error) {
	if b.c == nil {
		return nil, nil, fmt.Errorf("%w: nil redis client", node.ErrInvalidConfig)
	}
	if b.o.Replicas < 0 {
		return nil, nil, fmt.Errorf("%w: Replicas %d", node.ErrInvalidConfig, b.o.Replicas)
	}
	want, learned := int64(b.o.Replicas), ""
	if want == 0 {
		if p := b.auto.Load(); p != nil {
			want, learned = 1, *p
		}
	}
	if want == 0 {
		v, err = s.Run(ctx, b.c, b.keys, append(args, 1)...).Result()
		if err != nil || !refused(v) {
			return v, nil, err
		}
		learned, _ = master(v)
		b.auto.Store(&learned)
		want = 1
	}
	p, ok := b.c.(pipeliner)
	if !ok {
		return nil, nil, fmt.Errorf("%w: the Redis master has replicas, and a %T client cannot pipeline WAIT after a script: use one that pipelines, or set min-replicas-to-write on the server", node.ErrInvalidConfig, b.c)
	}
	if c, ok := b.c.(clusterClient); ok {
		// A cluster client sends a command without keys, as WAIT, to any
		// master: pipeline on the master of the hash's slot instead.
		m, err := c.MasterForKey(ctx, b.keys[0])
		if err != nil {
			return nil, nil, err
		}
		defer func() {
			if err != nil || short != nil {
				c.ReloadState(ctx) // the slot may have moved
			}
		}()
		p = m
	}
	timeout := b.o.ReplicaTimeout
	if timeout <= 0 {
		timeout = max(ttl/4, time.Millisecond)
	}
	var cmd *redis.Cmd
	var wait *redis.Cmd
	_, _ = p.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		cmd = s.Eval(ctx, pipe, b.keys, append(args, 0)...)
		wait = pipe.Do(ctx, "WAIT", want, max(timeout.Milliseconds(), 1))
		return nil
	})
	if v, err = cmd.Result(); err != nil {
		return nil, nil, err
	}
	acked, err := wait.Int64()
	if err != nil {
		return v, nil, fmt.Errorf("wait for replicas: %w", err)
	}
	if acked >= want {
		return v, nil, nil
	}
	if ident, online := master(v); b.o.Replicas == 0 && online == 0 && ident != "" && ident != learned {
		b.auto.Store(nil)
		return v, nil, nil
	}
	return v, fmt.Errorf("%w: %s acknowledged by %d of %d replicas", ErrNotReplicated, what, acked, want), nil
}

// refused reports whether a script refused for replicas nothing waits for.
func refused(v any) bool {
	r, _ := v.([]any)
	if len(r) == 0 {
		return false
	}
	code, _ := r[0].(int64)
	return code == -3
}

// master returns the replication ID and the number of online replicas
// that end every script's reply.
func master(v any) (ident string, online int64) {
	r, _ := v.([]any)
	if len(r) < 2 {
		return "", 0
	}
	ident, _ = r[len(r)-2].(string)
	online, _ = r[len(r)-1].(int64)
	return ident, online
}

// micros rounds a Unix-nanosecond mark up to microseconds.
func micros(ns int64) int64 { return (ns + 999) / 1000 }

func (b *store) Release(ctx context.Context, n int64, owner string, hwm int64, exact bool) error {
	if b.c == nil {
		return fmt.Errorf("%w: nil redis client", node.ErrInvalidConfig)
	}
	ex := 0
	if exact {
		ex = 1
	}
	if err := releaseScript.Run(ctx, b.c, b.keys, n, owner, micros(hwm), ex).Err(); err != nil {
		return fmt.Errorf("redislease: release node %d: %w", n, err)
	}
	return nil
}
