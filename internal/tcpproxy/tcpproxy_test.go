package tcpproxy_test

import (
	"bufio"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/internal/tcpproxy"
)

// echo starts a line echo server on loopback.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, d time.Duration) (string, error) {
	_ = c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestProxy(t *testing.T) {
	p := tcpproxy.Start(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	got, err := roundTrip(c, time.Second)
	require.NoError(t, err)
	require.Equal(t, "ping\n", got)

	// Blackholed: the write succeeds, nothing comes back, nothing closes.
	p.Blackhole()
	_, err = roundTrip(c, 100*time.Millisecond)
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout(), "want a timeout, got %v", err)

	// Restored: the old connection is closed, a new one works.
	p.Restore()
	_, err = roundTrip(c, time.Second)
	require.Error(t, err)
	c2, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c2.Close()
	got, err = roundTrip(c2, time.Second)
	require.NoError(t, err)
	require.Equal(t, "ping\n", got)

	// Cut: connections close.
	p.Cut()
	_, err = roundTrip(c2, time.Second)
	require.Error(t, err)
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "a cut closes, it does not hang: %v", err)
}

func TestProxyLoopbackOnly(t *testing.T) {
	for _, target := range []string{"10.0.0.1:5432", "example.com:80", "nonsense"} {
		_, err := tcpproxy.New(target)
		require.Error(t, err, target)
	}
	_, err := tcpproxy.New("192.168.1.1:1")
	require.ErrorIs(t, err, tcpproxy.ErrNotLoopback)
}
