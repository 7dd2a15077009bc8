package tcpproxy_test

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/internal/tcpproxy"
)

func TestDelay(t *testing.T) {
	const d = 50 * time.Millisecond
	p := tcpproxy.Start(t, echo(t))
	p.SetDelay(d)
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))

	// One round trip: the delay each way.
	t0 := time.Now()
	_, err = c.Write([]byte("ping\n"))
	require.NoError(t, err)
	got, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ping\n", got)
	require.GreaterOrEqual(t, time.Since(t0), 2*d)

	// Pipelined: 20 requests sent back to back wait the delay once, not 20
	// times (20 round trips would take 2 s).
	const n = 20
	t0 = time.Now()
	for i := range n {
		_, err := c.Write([]byte(strings.Repeat("x", i) + "\n"))
		require.NoError(t, err)
		time.Sleep(time.Millisecond) // separate reads at the proxy
	}
	for i := range n {
		got, err := r.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, strings.Repeat("x", i)+"\n", got)
	}
	took := time.Since(t0)
	require.GreaterOrEqual(t, took, 2*d)
	require.Less(t, took, 10*d, "pipelined bytes queued behind each other's delays")

	// Back to no delay.
	p.SetDelay(0)
	got, err = roundTrip(c, time.Second)
	require.NoError(t, err)
	require.Equal(t, "ping\n", got)
}

func TestDropNextReply(t *testing.T) {
	addr, served := counting(t)
	p := tcpproxy.Start(t, addr)
	p.SetDelay(time.Millisecond)
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	got, err := roundTrip(c, time.Second)
	require.NoError(t, err)
	require.Equal(t, "ping\n", got)

	// The server answers, the client never sees it: its connection closes.
	p.DropNextReply()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Write([]byte("ping\n"))
	require.NoError(t, err)
	_, err = bufio.NewReader(c).ReadString('\n')
	require.ErrorIs(t, err, io.EOF)
	require.Eventually(t, func() bool { return len(served) == 2 }, 5*time.Second, time.Millisecond, "the server did not get the request")

	// Once: the next connection gets its replies.
	c2, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c2.Close()
	got, err = roundTrip(c2, time.Second)
	require.NoError(t, err)
	require.Equal(t, "ping\n", got)
}

// counting starts a line echo server on loopback that sends every line it
// answers to served.
func counting(t *testing.T) (addr string, served chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	served = make(chan string, 100)
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
					served <- line
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), served
}
