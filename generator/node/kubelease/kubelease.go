// Package kubelease keeps [node.Lease] records in Kubernetes Lease objects
// (coordination.k8s.io/v1): [NewStore] returns a [node.Store] to pass to
// [node.NewLease], which claims a node ID and returns an ordinary
// [*node.Lease], to use with [node.NewSnowflake] as an SQL, Redis or etcd
// lease is. It is a module of its own so that only programs using it
// compile client-go.
//
// Node N is the Lease object Prefix+"-N" in one namespace; the object
// Prefix+"-identity" names the store and keeps its horizon and store-wide
// mark. Every write is an update conditioned on the resourceVersion the
// store read (or a create), so a stale write gets a conflict and is never
// repeated blindly. The API server never expires a Lease: a claimant takes
// a held node only after watching its object stay unchanged for the
// holder's TTL on its own monotonic clock, so no two machines' clocks are
// compared. https://github.com/idkit-go/idkit/blob/main/docs/kubernetes.md
// says when to use it, the Role it needs, and what a partition, a pod
// deletion and an etcd restore do.
package kubelease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	coordv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// defaultPrefix names the objects when [StoreOptions].Prefix is empty.
const defaultPrefix = "idkit-node"

// Labels and annotations of the store's objects.
const (
	// labelKey marks every object of a store; its value is the prefix.
	labelKey = "idkit.dev/node-leases"
	// annMark is a node's high-water mark (Unix ns of its holders' clocks).
	annMark = "idkit.dev/mark"
	// annTTL is the holder's TTL in ns (spec.leaseDurationSeconds is
	// whole seconds).
	annTTL = "idkit.dev/ttl"
	// annHorizon is the longest horizon (ns) of the object's writers.
	annHorizon = "idkit.dev/horizon"
	// annFloor is the store-wide mark (Unix ns), on the identity object.
	annFloor = "idkit.dev/floor"
	// annWrite is a token naming the write that made the object.
	annWrite = "idkit.dev/write"
	// annPod is the pod (or host) of the holder.
	annPod = "idkit.dev/pod"
)

// maxWrites bounds the writes (claims, renewals, releases) a store sends
// at once: the API server's priority and fairness queues one user's
// requests in a few queues of 50 and answers the rest 429, which client-go
// retries a second later.
const maxWrites = 32

// saNamespace is where a pod's service account namespace is mounted.
const saNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// StoreOptions configures [NewStore].
type StoreOptions struct {
	// Namespace holds the Lease objects. Default: the pod's own, read
	// from its service account.
	Namespace string
	// Prefix names the store's Lease objects: Prefix+"-N" for node N and
	// Prefix+"-identity" for the store's identity, all labelled
	// idkit.dev/node-leases=Prefix. Default "idkit-node". Never delete the
	// node objects: a new holder of a node issues only after its mark.
	Prefix string
}

// NewStore returns the [node.Store] of the Lease objects named by
// opts.Prefix in opts.Namespace; pass it to [node.NewLease]. client is a
// clientset's CoordinationV1(). One store may serve any number of leases, and
// should: its concurrent claims share their listings and pass over each
// other's candidates.
//
// A claim lists the objects (one request), then takes the preferred node
// if it is free, expired or already the owner's, else a free node at
// random (so that pods starting at once spread instead of colliding), by
// a create or a conditioned update; after a conflict it lists again, and
// a claim the API server sheds (429) waits what the server asks. A node is free when its
// object is missing or released (no holder), and expired when this store
// has watched the same resourceVersion for the holder's TTL. A renewal
// updates the object the lease last saw, conditioned on its
// resourceVersion: one API write. The store sends at most 32 writes at
// once and queues the rest. With a nil client, a bad prefix or no
// namespace, every method returns an error wrapping
// [generator.ErrInvalidConfig]. The holder's pod name (the POD_NAME
// environment variable, else the host name) is recorded in an annotation.
func NewStore(client coordv1.LeasesGetter, opts StoreOptions) node.Store {
	s := &store{prefix: opts.Prefix, ns: opts.Namespace,
		watch: map[int64]obs{}, trying: map[int64]int{}, mine: map[int64]int64{}, held: map[int64]*held{},
		sem: make(chan struct{}, 1), writing: make(chan struct{}, maxWrites)}
	if s.prefix == "" {
		s.prefix = defaultPrefix
	}
	if s.ns == "" {
		if b, err := os.ReadFile(saNamespace); err == nil {
			s.ns = strings.TrimSpace(string(b))
		}
	}
	s.pod = os.Getenv("POD_NAME")
	if s.pod == "" {
		s.pod, _ = os.Hostname()
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s.tokenBase = hex.EncodeToString(b[:])
	switch {
	case client == nil:
		s.err = fmt.Errorf("%w: kubelease: nil client", generator.ErrInvalidConfig)
	case s.ns == "":
		s.err = fmt.Errorf("%w: kubelease: no namespace given and none in %s", generator.ErrInvalidConfig, saNamespace)
	default:
		if e := validation.IsDNS1123Subdomain(s.prefix + "-identity"); len(e) > 0 {
			s.err = fmt.Errorf("%w: kubelease: prefix %q: %s", generator.ErrInvalidConfig, s.prefix, strings.Join(e, "; "))
		} else if e := validation.IsValidLabelValue(s.prefix); len(e) > 0 {
			s.err = fmt.Errorf("%w: kubelease: prefix %q: %s", generator.ErrInvalidConfig, s.prefix, strings.Join(e, "; "))
		} else {
			s.c = authorized{client.Leases(s.ns)}
		}
	}
	return s
}

// store is the [node.Store] of one prefix in one namespace.
type store struct {
	c          coordv1.LeaseInterface
	ns, prefix string
	pod        string
	err        error // a configuration error every method returns

	tokenBase string
	tokens    atomic.Int64

	// identMu serializes the claims' reads and writes of the identity.
	identMu sync.Mutex

	mu sync.Mutex
	// identObj is the identity object as this store last wrote it.
	identObj *coordinationv1.Lease
	// ident is the identity object's UID this store last saw; rv the
	// highest resourceVersion of a listing; loss is set when a listing
	// showed the store went back, until a claim recorded the loss.
	ident string
	rv    int64
	loss  bool
	// listed is each object's resourceVersion in the last listing: the
	// listings are read one after another, so no object of a later one
	// has a lower resourceVersion or is missing (node objects are never
	// deleted), except by a restore.
	listed map[string]int64
	// watch is when this store first saw each held node's current
	// resourceVersion; trying the nodes its claims are trying now; mine
	// the nodes it took, with the resourceVersion of the claim (a listing
	// older than that does not show them).
	watch  map[int64]obs
	trying map[int64]int
	mine   map[int64]int64
	// held is the object this store last wrote for each node it holds.
	held map[int64]*held

	// fastTried is set by the first claim that tries claimFirst: the
	// store's other claims share its listings instead.
	fastTried atomic.Bool

	// writing holds a token per write under way (see acquire).
	writing chan struct{}

	// sem serializes listings; reads counts those begun, last is the last
	// one read, lastRead its number.
	sem      chan struct{}
	reads    int64
	last     *listing
	lastRead int64
}

// obs is a held node's resourceVersion and when this store first saw it.
type obs struct {
	rv    string
	since time.Time
}

// held is what this store knows of a node it holds: the object it wrote
// last, when that write started, with which TTL, and the writes since
// whose outcome it does not know (a timeout), by token, with when each
// started.
type held struct {
	obj     *coordinationv1.Lease
	start   time.Time
	ttl     time.Duration
	pending map[string]time.Time
}

func (s *store) name(n int64) string { return s.prefix + "-" + strconv.FormatInt(n, 10) }
func (s *store) identName() string   { return s.prefix + "-identity" }

// token returns a new write token.
func (s *store) token() string {
	return s.tokenBase + "-" + strconv.FormatInt(s.tokens.Add(1), 10)
}

// fail wraps err from the API server's answer to verb on object what,
// naming the Role rule to add when the answer is "forbidden" (forbidden).
func (s *store) fail(op, verb, what string, err error) error {
	if apierrors.IsForbidden(err) {
		return s.forbidden(op, verb, what, err)
	}
	return fmt.Errorf("kubelease: %s: %s lease %q: %w", op, verb, what, err)
}

// The bounds of the numbers the objects hold: a mark or the store-wide
// floor (Unix ns) at most maxMark, before 2116-02-20; a TTL or horizon (ns)
// at most maxHorizon, 2^53 ns (104 days), so that a floor (the clock + the
// horizon) never wraps. A claim or renewal with a longer horizon is
// refused.
const (
	maxMark    = 1 << 62
	maxHorizon = 1 << 53
)

// limitOf is the bound of annotation key.
func limitOf(key string) int64 {
	if key == annMark || key == annFloor {
		return maxMark
	}
	return maxHorizon
}

// annInt reads an integer annotation of o; 0 when absent. A value that is
// not an integer within [0, limitOf(key)] is an error wrapping
// [node.ErrCorrupt] that names the annotation and the object.
func annInt(o *coordinationv1.Lease, key string) (int64, error) {
	v, ok := o.Annotations[key]
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > limitOf(key) {
		if len(v) > 40 {
			v = v[:40]
		}
		return 0, fmt.Errorf("%w: kubelease: annotation %s of lease %s/%s is %q, not an integer in [0, %d]", node.ErrCorrupt, key, o.Namespace, o.Name, v, limitOf(key))
	}
	return n, nil
}

// ownErr returns the error of the first of a node object's own numbers
// that is out of range or not a number: its mark, TTL and horizon
// annotations and spec.leaseDurationSeconds; nil if none is.
func ownErr(o *coordinationv1.Lease) error {
	for _, k := range []string{annMark, annTTL, annHorizon} {
		if _, err := annInt(o, k); err != nil {
			return err
		}
	}
	if d := o.Spec.LeaseDurationSeconds; d != nil && (*d < 0 || int64(*d) > maxHorizon/int64(time.Second)) {
		return fmt.Errorf("%w: kubelease: spec.leaseDurationSeconds of lease %s/%s is %d, not in [0, %d]", node.ErrCorrupt, o.Namespace, o.Name, *d, maxHorizon/int64(time.Second))
	}
	return nil
}

// checkHorizon refuses a horizon the objects could not hold.
func checkHorizon(hz time.Duration) error {
	if hz > maxHorizon {
		return fmt.Errorf("%w: kubelease: horizon %v (TTL + BorrowAhead + unit + MaxClockOffset) above %v", generator.ErrInvalidConfig, hz, time.Duration(maxHorizon))
	}
	return nil
}

// rvOf parses a resourceVersion: the API server's are etcd revisions.
func rvOf(o *coordinationv1.Lease) (int64, error) {
	n, err := strconv.ParseInt(o.ResourceVersion, 10, 64)
	if err != nil {
		return 0, errNotRevision("lease "+o.Namespace+"/"+o.Name, o.ResourceVersion)
	}
	return n, nil
}

// holderOf returns the object's holder, "" when released.
func holderOf(o *coordinationv1.Lease) string {
	if o == nil || o.Spec.HolderIdentity == nil {
		return ""
	}
	return *o.Spec.HolderIdentity
}

// ttlOf returns the TTL the object's holder wrote: its idkit.dev/ttl
// annotation or spec.leaseDurationSeconds, whichever is longer; def when
// neither is set.
func ttlOf(o *coordinationv1.Lease, def time.Duration) time.Duration {
	d := time.Duration(0)
	if n, err := annInt(o, annTTL); err == nil {
		d = time.Duration(n)
	}
	if secs := o.Spec.LeaseDurationSeconds; secs != nil && int64(*secs) <= maxHorizon/int64(time.Second) {
		d = max(d, time.Duration(*secs)*time.Second)
	}
	if d <= 0 {
		return def
	}
	return d
}

// write returns o (a copy; a new object for node n when nil) held by
// owner with the given TTL, mark and horizon, and the write's token.
func (s *store) write(n int64, o *coordinationv1.Lease, owner string, ttl time.Duration, mark, horizon int64, claim bool) (*coordinationv1.Lease, string) {
	if o == nil {
		o = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.name(n), Namespace: s.ns}}
	} else {
		o = o.DeepCopy()
	}
	if o.Labels == nil {
		o.Labels = map[string]string{}
	}
	o.Labels[labelKey] = s.prefix
	if o.Annotations == nil {
		o.Annotations = map[string]string{}
	}
	tok := s.token()
	o.Annotations[annMark] = strconv.FormatInt(max(mark, 0), 10)
	o.Annotations[annTTL] = strconv.FormatInt(int64(ttl), 10)
	o.Annotations[annHorizon] = strconv.FormatInt(horizon, 10)
	o.Annotations[annWrite] = tok
	o.Annotations[annPod] = s.pod
	now := metav1.NewMicroTime(time.Now())
	secs := int32(min((ttl+time.Second-1)/time.Second, 1<<30))
	o.Spec.HolderIdentity = &owner
	o.Spec.LeaseDurationSeconds = &secs
	o.Spec.RenewTime = &now
	if claim {
		o.Spec.AcquireTime = &now
		trans := int32(0)
		if o.Spec.LeaseTransitions != nil {
			trans = *o.Spec.LeaseTransitions + 1
		}
		o.Spec.LeaseTransitions = &trans
	}
	return o, tok
}

// acquire waits for one of the store's maxWrites write tokens; the caller
// returns it to s.writing after its write.
func (s *store) acquire(ctx context.Context) error {
	select {
	case s.writing <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errConfig = errors.New("kubelease: ttl must be positive")

func (s *store) check(ttl time.Duration) error {
	if s.err != nil {
		return s.err
	}
	if ttl <= 0 {
		return fmt.Errorf("%w: %w: %v", generator.ErrInvalidConfig, errConfig, ttl)
	}
	return nil
}
