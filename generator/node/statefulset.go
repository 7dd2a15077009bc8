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
	// IndexEnv names a variable holding the pod's ordinal (such as the
	// apps.kubernetes.io/pod-index label through the downward API).
	IndexEnv string
	// Offset is added to the ordinal, so that StatefulSets can share a
	// layout's node IDs. Not negative.
	Offset int64
	// Size, if positive, bounds the ordinal: IDs [Offset, Offset+Size).
	Size int64
}

// FromStatefulSet returns a source that yields a Kubernetes StatefulSet
// pod's ordinal plus opts.Offset, read on each NodeID call from the
// variable opts.IndexEnv if set, else from the hostname's "-N" suffix. A
// replacement pod reuses its predecessor's ID without its last issued
// time; where force deletion or clock steps are possible, use a lease.
//
// NodeID returns an error wrapping [generator.ErrInvalidConfig] for a negative Offset
// or Size, and [ErrNoNodeID] when no ordinal below a positive Size is found.
func FromStatefulSet(opts StatefulSetOptions) generator.NodeSource {
	return sourceFunc(func(context.Context) (int64, error) {
		if opts.Offset < 0 || opts.Size < 0 {
			return 0, fmt.Errorf("%w: negative offset %d or size %d", generator.ErrInvalidConfig, opts.Offset, opts.Size)
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
