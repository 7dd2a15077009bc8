// Package redislease keeps [node.Lease] records in one Redis hash: pass
// [NewStore] to [node.NewLease] for a lease to use with
// [node.NewSnowflake] as an SQL lease is. It lives apart from package node
// so that only its users compile go-redis. A Redis failover or restart that loses writes gives the master
// a new replication ID; a claim that finds it changed, or a renewal that
// finds it or the hash's version not what the lease saw, waits out the
// longest horizon of the hash's holders (see
// [node.LeaseOptions].MaxClockOffset). A new ID that the first replica
// gave the very process that wrote the hash is no loss, and a renewal on a
// promoted replica that holds the lease's record as the lease saw it
// keeps the node, as does a holder's claim after a loss (a restart with
// the data, say) that finds its record as it saw it ([node.Claimed].Kept).
// A claim refuses an evicting maxmemory-policy, and
// claims and renewals wait (WAIT) for every replica the store has had by
// default (see [StoreOptions].Replicas).
// See https://github.com/idkit-go/idkit/blob/main/docs/leases.md
package redislease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator"
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
// (1/0). Returns 1, or 0 if the node is not held by owner. A corrupt mark
// of the node is replaced by the given one.
var releaseScript = redis.NewScript(`
local H, E, F, n = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
if redis.call('HGET', H, 'o:' .. n) ~= ARGV[2] then return 0 end
local h = tonumber(ARGV[3])
if ARGV[4] ~= '1' then
  local o = tonumber(redis.call('HGET', H, 'h:' .. n) or '0')
  if o and o == o and math.abs(o) <= 9007199254740992 then h = math.max(h, o) end
end
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
	// Replicas is how many replicas must acknowledge (WAIT, up to
	// ReplicaTimeout: default TTL/4 but at most 2 s, the lease's default
	// Margin, and at least 1 ms; and up to half the time the request's
	// context has left) each claim and renewal, which otherwise fails with
	// [ErrNotReplicated]. Zero, the default, waits for every replica the
	// store has had: the most replicas online that any request of the
	// hash saw (field "rs", reset when a request finds the master
	// promoted from the one that wrote the hash), and at least the most
	// the lease itself saw; it also needs the master to list (in any
	// state, a replica in its first sync too) as many replicas as field
	// "rl" holds (as "rs", but also counting replicas in their first sync,
	// and at least 1 once a first replica's new replication ID shows one
	// came and went), so that a master that lost a replica (an old master
	// after a promotion: split brain) or restarted without its data or
	// from its RDB file fences its holders; a request finding fewer
	// writes nothing, and its error names the fields to lower once a
	// replica is gone for good. Only replicas that announce a listening
	// port count: redis-cli --rdb, a backup, shows port 0. A positive
	// value waits for exactly that many. A negative
	// value waits for none: an old master cut off by a promotion then
	// keeps renewing its holders' leases, which repeats IDs, and a
	// failover may lose claims, which the store detects and waits out.
	// With replicas to wait for and a client that cannot pipeline,
	// claims and renewals fail with [generator.ErrInvalidConfig].
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

	blind atomic.Bool  // warned that the master's identity cannot be read
	hint  atomic.Int64 // the replicas the last claim needed: the next one's first guess
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

// run runs s with args and the last arguments want and Replicas, then,
// if want is positive, WAIT for want replicas on the same connection. The
// script reports (its last reply value) how many replicas the request
// needs, and refuses (code -3, writing nothing) if that is not want: the
// request then runs again with want set to it. short is the error for
// fewer than needed replicas acknowledging the script's writes (what names
// the request); a script that found fewer online (code -4) wrote nothing:
// it runs again (without WAIT) until the replicas' timeout, then fails
// with err. On a cluster client, any error reloads the slot map.
func (b *store) run(ctx context.Context, s *redis.Script, what string, ttl time.Duration, want int64, args ...any) (reply []any, short, err error) {
	if b.c == nil {
		return nil, nil, fmt.Errorf("%w: nil redis client", generator.ErrInvalidConfig)
	}
	if cc, ok := b.c.(clusterClient); ok {
		defer func() {
			if err != nil || short != nil {
				cc.ReloadState(ctx) // the slot may have moved, its master died
			}
		}()
	}
	if b.o.Replicas != 0 {
		want = int64(max(b.o.Replicas, 0))
	}
	// A replica may be a moment from online (after a sync, a reconnection):
	// a request finding too few online runs again until ReplicaTimeout,
	// as long as WAIT would have waited.
	deadline := time.Now().Add(b.timeout(ttl))
	var few error // the last answer of too few replicas online, while polling
	for attempt := 0; ; attempt++ {
		var acked int64
		reply, acked, err = b.runOnce(ctx, s, ttl, want, args)
		if err != nil && few != nil && ctx.Err() != nil {
			return nil, nil, few // ctx ended while polling: the answer is the replicas
		}
		if err != nil {
			return nil, nil, corrupt(err)
		}
		if len(reply) < 7 {
			return nil, nil, fmt.Errorf("unexpected reply %v", reply)
		}
		code, _ := reply[0].(int64)
		online, _ := reply[len(reply)-5].(int64)
		listed, _ := reply[len(reply)-4].(int64)
		present, _ := reply[len(reply)-3].(int64)
		need, _ := reply[len(reply)-1].(int64)
		switch {
		case code == -3 && attempt < 2:
			want = need
			continue
		case code == -3:
			return nil, nil, fmt.Errorf("%w: %s: the replicas online keep changing (%d now)", ErrNotReplicated, what, online)
		case code == -4 && ctx.Err() == nil && time.Until(deadline) > 0:
			// Poll without WAIT, which would block for nothing.
			attempt, want = -1, 0
			few = b.tooFew(what, need, present, online, listed)
			time.Sleep(min(20*time.Millisecond, time.Until(deadline)))
			continue
		case code == -4:
			return nil, nil, b.tooFew(what, need, present, online, listed)
		case acked < need:
			return reply, fmt.Errorf("%w: %s acknowledged by %d of %d replicas", ErrNotReplicated, what, acked, need), nil
		}
		return reply, nil, nil
	}
}

// tooFew is the error of a request that found fewer replicas than it
// needs (code -4): need online (the most any request of the hash saw
// online, field rs, or that the lease saw) or listed in any state (field
// rl: as rs, or 1 once the master has had a replica). It names the fields
// and what an operator does.
func (b *store) tooFew(what string, need, present, online, listed int64) error {
	return fmt.Errorf("%w: %s acknowledged by 0 of %d replicas: the master has %d online and lists %d, and the hash %s has had %d online (field rs, or the lease's own count) needs %d listed (field rl, 1 once the master has had a replica). "+
		"Split brain or a replica that left: a failover manager that promoted a replica must stop this master or make it a replica. "+
		"If this master is the one to use and the missing replicas are gone for good (it was promoted, or they were removed), attach a replica, or lower the counts to the replicas left: redis-cli HSET %s rs %d rl %d (then restart holders that saw more); "+
		"StoreOptions.Replicas sets the count instead",
		ErrNotReplicated, what, max(need, present), online, listed, b.keys[0], need, present, b.keys[0], online, listed)
}

// runOnce runs s once, pipelined with WAIT want if want is positive, and
// returns its reply and the replicas that acknowledged. The WAIT lasts at
// most the replicas' timeout, and half the time ctx has left.
func (b *store) runOnce(ctx context.Context, s *redis.Script, ttl time.Duration, want int64, args []any) ([]any, int64, error) {
	args = append(args[:len(args):len(args)], want, b.o.Replicas)
	if want == 0 {
		v, err := s.Run(ctx, b.c, b.keys, args...).Result()
		r, _ := v.([]any)
		return r, 0, err
	}
	p, ok := b.c.(pipeliner)
	if !ok {
		return nil, 0, fmt.Errorf("%w: the Redis master has replicas, and a %T client cannot pipeline WAIT after a script: use one that pipelines", generator.ErrInvalidConfig, b.c)
	}
	if c, ok := b.c.(clusterClient); ok {
		// A cluster client sends a command without keys, as WAIT, to any
		// master: pipeline on the master of the hash's slot instead.
		m, err := c.MasterForKey(ctx, b.keys[0])
		if err != nil {
			return nil, 0, err
		}
		p = m
	}
	timeout := b.timeout(ttl)
	if dl, ok := ctx.Deadline(); ok {
		// A master with fewer replicas online than want holds the WAIT
		// its whole timeout, though the script refused (-3: a promoted
		// replica, which has none of the replicas the lease saw): half
		// the time the caller gives leaves the other half for run's
		// request with the replicas the script counted.
		timeout = min(timeout, time.Until(dl)/2)
	}
	var cmd, wait *redis.Cmd
	_, _ = p.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		cmd = s.Eval(ctx, pipe, b.keys, args...)
		wait = pipe.Do(ctx, "WAIT", want, max(timeout.Milliseconds(), 1))
		return nil
	})
	v, err := cmd.Result()
	r, _ := v.([]any)
	if refusedReply(r) {
		// The script wrote nothing (-3, -4) and run acts on its reply
		// alone. A master with fewer replicas than want (a promoted
		// replica) holds the WAIT the whole ReplicaTimeout, which may
		// outlast the client's read timeout: the pipeline then fails
		// with the WAIT's timeout although the script's reply was read.
		return r, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	acked, err := wait.Int64()
	if err != nil {
		return nil, 0, fmt.Errorf("wait for replicas: %w", err)
	}
	return r, acked, nil
}

// refusedReply reports whether r is a whole script reply (as run reads
// it) whose code is -3 or -4: the script wrote nothing.
func refusedReply(r []any) bool {
	if len(r) < 7 {
		return false
	}
	code, ok := r[0].(int64)
	return ok && (code == -3 || code == -4)
}

// timeout is how long a request waits for its replicas: ReplicaTimeout,
// by default TTL/4 but at most 2 s (a lease's default Margin: a renewal
// of a 66 s TTL is abandoned after 2 s), at least 1 ms.
func (b *store) timeout(ttl time.Duration) time.Duration {
	if b.o.ReplicaTimeout > 0 {
		return b.o.ReplicaTimeout
	}
	return max(min(ttl/4, 2*time.Second), time.Millisecond)
}

// corrupt returns err, wrapping [node.ErrCorrupt] with the field a script
// named if a script found one corrupt (not an integer within 2^53 in
// magnitude, so that every time fits int64 nanoseconds).
func corrupt(err error) error {
	msg, ok := strings.CutPrefix(err.Error(), "IDKIT_CORRUPT ")
	if !ok {
		return err
	}
	msg, _, _ = strings.Cut(msg, " script:")
	return fmt.Errorf("%w: %s", node.ErrCorrupt, msg)
}

// seen is what a lease saw of the master: its replication ID and how many
// replicas the lease waits for. It travels as [node.Seen].Ident, as
// "ID/count".
type seen struct {
	ident string
	count int64
}

func parseSeen(s string) seen {
	id, n, _ := strings.Cut(s, "/")
	c, _ := strconv.ParseInt(n, 10, 64)
	return seen{id, max(c, 0)}
}

func (s seen) String() string { return s.ident + "/" + strconv.FormatInt(s.count, 10) }

// replyTail returns what ends every script's reply: the replication ID,
// and the replicas the lease waits for from now on.
func replyTail(r []any) seen {
	if len(r) < 6 {
		return seen{}
	}
	id, _ := r[len(r)-6].(string)
	c, _ := r[len(r)-2].(int64)
	return seen{id, c}
}

// micros rounds a Unix-nanosecond mark up to microseconds.
func micros(ns int64) int64 { return (ns + 999) / 1000 }

func (b *store) Release(ctx context.Context, r node.Release) error {
	n, owner, hwm, exact := r.Node, r.Owner, r.Mark, r.Exact
	if b.c == nil {
		return fmt.Errorf("%w: nil redis client", generator.ErrInvalidConfig)
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
