package node

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/idkit-go/idkit/generator"
)

// StatefulSetOptions configures [FromStatefulSet].
type StatefulSetOptions struct {
	// IndexEnv names an environment variable holding the pod's ordinal,
	// typically the apps.kubernetes.io/pod-index label exposed through the
	// downward API. When it is empty or the variable is unset, the ordinal
	// is the hostname's "-N" suffix (a StatefulSet pod's hostname is its
	// name, <set>-<ordinal>).
	IndexEnv string

	// Offset is added to the ordinal, so that several StatefulSets can
	// share one layout's node IDs: give each a range of its own, for
	// example offsets 0 and 16 for two sets of at most 16 pods. It must not
	// be negative.
	Offset int64

	// Size, if positive, is the number of node IDs reserved for this
	// StatefulSet, [Offset, Offset+Size): an ordinal of Size or more is an
	// error rather than a node ID of the next set's range. It must not be
	// negative; 0 means no limit.
	Size int64
}

// FromStatefulSet returns a [generator.NodeSource] that yields a Kubernetes StatefulSet
// pod's ordinal plus opts.Offset, read on each NodeID call from the
// environment variable opts.IndexEnv if set, or else from the hostname's
// "-N" suffix. Kubernetes runs at most one pod per ordinal of a
// StatefulSet at a time (unless a pod is force-deleted), so, unlike
// addresses, ordinals need no coordination. A replacement pod reuses its
// predecessor's node ID and does not know its last issued time: on a host
// whose clock is behind it could repeat IDs of the predecessor's last
// moments. Where force deletion or clock steps are possible, use a lease
// ([NewSQLLease]), whose high-water mark covers both.
//
// NodeID returns an error wrapping [ErrInvalidConfig] for a negative Offset
// or Size, and one wrapping [ErrNoNodeID] when the variable is not a
// non-negative decimal integer, the hostname has no "-N" suffix, the
// ordinal is not below a positive Size, or the sum overflows. Range against
// a layout is checked by the generator (generator.ErrNodeOutOfRange). It is
// safe for concurrent use.
func FromStatefulSet(opts StatefulSetOptions) generator.NodeSource {
	return sourceFunc(func(context.Context) (int64, error) {
		if opts.Offset < 0 || opts.Size < 0 {
			return 0, fmt.Errorf("%w: negative offset %d or size %d", ErrInvalidConfig, opts.Offset, opts.Size)
		}
		ord, err := ordinal(opts.IndexEnv)
		if err != nil {
			return 0, err
		}
		if opts.Size > 0 && ord >= opts.Size {
			return 0, fmt.Errorf("%w: pod ordinal %d not below size %d", ErrNoNodeID, ord, opts.Size)
		}
		if ord > math.MaxInt64-opts.Offset {
			return 0, fmt.Errorf("%w: pod ordinal %d + offset %d overflows", ErrNoNodeID, ord, opts.Offset)
		}
		return ord + opts.Offset, nil
	})
}

// hostname is os.Hostname, replaced by tests.
var hostname = os.Hostname

func ordinal(env string) (int64, error) {
	if env != "" {
		if v, ok := os.LookupEnv(env); ok {
			n, ok := parseOrdinal(strings.TrimSpace(v))
			if !ok {
				return 0, fmt.Errorf("%w: %s=%q is not a pod ordinal", ErrNoNodeID, env, quoteMax(v))
			}
			return n, nil
		}
	}
	h, err := hostname()
	if err != nil {
		return 0, fmt.Errorf("%w: hostname: %w", ErrNoNodeID, err)
	}
	n, ok := hostnameOrdinal(h)
	if !ok {
		return 0, fmt.Errorf("%w: hostname %q has no -N StatefulSet ordinal suffix", ErrNoNodeID, quoteMax(h))
	}
	return n, nil
}

// hostnameOrdinal returns the ordinal N of a StatefulSet pod's hostname
// "<set>-N" (any domain after the first dot is ignored) and true, or false
// if the name does not end in "-" and a non-negative decimal integer
// without a sign or leading zeros.
func hostnameOrdinal(host string) (int64, bool) {
	if i := strings.IndexByte(host, '.'); i >= 0 {
		host = host[:i]
	}
	i := strings.LastIndexByte(host, '-')
	if i <= 0 {
		return 0, false
	}
	return parseOrdinal(host[i+1:])
}

// parseOrdinal accepts a decimal integer without sign or leading zeros.
func parseOrdinal(s string) (int64, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// quoteMax bounds input quoted in an error.
func quoteMax(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
