package node_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// TestFromStatefulSet runs with injected hostnames and environment (not
// parallel: it swaps a package hook and sets variables).
func TestFromStatefulSet(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		host string
		env  *string
		opts node.StatefulSetOptions
		want int64
		err  error
	}{
		{"hostname", "web-3", nil, node.StatefulSetOptions{}, 3, nil},
		{"hostname with dashes", "orders-api-12", nil, node.StatefulSetOptions{}, 12, nil},
		{"hostname with domain", "web-7.web.default.svc.cluster.local", nil, node.StatefulSetOptions{}, 7, nil},
		{"offset", "web-3", nil, node.StatefulSetOptions{Offset: 16}, 19, nil},
		{"within size", "web-15", nil, node.StatefulSetOptions{Offset: 16, Size: 16}, 31, nil},
		{"beyond size", "web-16", nil, node.StatefulSetOptions{Offset: 16, Size: 16}, 0, node.ErrNoNodeID},
		{"env wins", "web-3", ptr("5"), node.StatefulSetOptions{IndexEnv: "IDKIT_TEST_POD_INDEX", Offset: 100}, 105, nil},
		{"env unset: hostname", "web-3", nil, node.StatefulSetOptions{IndexEnv: "IDKIT_TEST_POD_INDEX_UNSET"}, 3, nil},
		{"env junk", "web-3", ptr("five"), node.StatefulSetOptions{IndexEnv: "IDKIT_TEST_POD_INDEX"}, 0, node.ErrNoNodeID},
		{"env negative", "web-3", ptr("-1"), node.StatefulSetOptions{IndexEnv: "IDKIT_TEST_POD_INDEX"}, 0, node.ErrNoNodeID},
		{"no suffix", "laptop", nil, node.StatefulSetOptions{}, 0, node.ErrNoNodeID},
		{"non-numeric suffix", "web-7f9c4d-x2k8p", nil, node.StatefulSetOptions{}, 0, node.ErrNoNodeID},
		{"leading zero", "web-03", nil, node.StatefulSetOptions{}, 0, node.ErrNoNodeID},
		{"only a number", "-3", nil, node.StatefulSetOptions{}, 0, node.ErrNoNodeID},
		{"overflow", "web-9223372036854775807", nil, node.StatefulSetOptions{Offset: 1}, 0, node.ErrNoNodeID},
		{"negative offset", "web-3", nil, node.StatefulSetOptions{Offset: -1}, 0, generator.ErrInvalidConfig},
		{"negative size", "web-3", nil, node.StatefulSetOptions{Size: -1}, 0, generator.ErrInvalidConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			node.SetHostname(t, func() (string, error) { return c.host, nil })
			if c.env != nil {
				t.Setenv("IDKIT_TEST_POD_INDEX", *c.env)
			}
			got, err := node.FromStatefulSet(c.opts).NodeID(ctx)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
	t.Run("hostname error", func(t *testing.T) {
		boom := errors.New("no uts namespace")
		node.SetHostname(t, func() (string, error) { return "", boom })
		_, err := node.FromStatefulSet(node.StatefulSetOptions{}).NodeID(ctx)
		require.ErrorIs(t, err, node.ErrNoNodeID)
		require.ErrorIs(t, err, boom)
	})
	t.Run("with a generator", func(t *testing.T) {
		node.SetHostname(t, func() (string, error) { return "web-2", nil })
		src := node.FromStatefulSet(node.StatefulSetOptions{Offset: 8, Size: 8})
		id, err := src.NodeID(ctx)
		require.NoError(t, err)
		g, err := generator.NewSnowflake(id)
		require.NoError(t, err)
		sf, err := g.Next()
		require.NoError(t, err)
		p, err := generator.Twitter().Decompose(sf)
		require.NoError(t, err)
		require.Equal(t, int64(10), p.Node)
	})
}

func FuzzHostnameOrdinal(f *testing.F) {
	for _, s := range []string{"web-0", "web-12", "a-b-3.svc", "web-03", "web", "-1", "web-9223372036854775808", "x-+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		n, ok := node.HostnameOrdinal(host)
		if !ok {
			return
		}
		require.GreaterOrEqual(t, n, int64(0))
		require.LessOrEqual(t, n, int64(math.MaxInt64))
		// Round trip: the name ends in "-" and exactly n's decimal form.
		short, _, _ := strings.Cut(host, ".")
		require.True(t, strings.HasSuffix(short, fmt.Sprintf("-%d", n)), "%q -> %d", host, n)
		prefix := strings.TrimSuffix(short, fmt.Sprintf("-%d", n))
		require.NotEmpty(t, prefix)
		m, ok := node.HostnameOrdinal(prefix + fmt.Sprintf("-%d", n))
		require.True(t, ok)
		require.Equal(t, n, m)
	})
}
