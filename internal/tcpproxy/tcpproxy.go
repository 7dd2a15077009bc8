// Package tcpproxy is a test helper: a TCP proxy on the loopback interface
// that forwards to a loopback server and can cut or blackhole the link, to
// test partitions without touching the network, delay every byte by a fixed
// time each way, as a network path's latency does, and lose one reply.
//
// It listens on 127.0.0.1 only, forwards only to a loopback address, and
// shuts down when the test ends or after a lifetime (one minute by
// default), whichever comes first, so a forgotten proxy cannot outlive its
// test for long.
package tcpproxy

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

// ErrNotLoopback reports a target that is not a loopback address.
var ErrNotLoopback = errors.New("tcpproxy: target is not on loopback")

// Proxy forwards connections from [Proxy.Addr] to a target. Its methods are
// safe for concurrent use.
type Proxy struct {
	target string
	ln     net.Listener

	mu        sync.Mutex
	mode      mode
	delay     time.Duration // one way; see SetDelay
	dropReply bool          // see DropNextReply
	conns     map[net.Conn]struct{}
	closed    bool
	wg        sync.WaitGroup
	stop      *time.Timer
}

type mode int

const (
	forward   mode = iota
	blackhole      // accept and read, deliver nothing
	refuse         // close new connections at once
)

// Lifetime is how long a proxy runs at most.
const Lifetime = time.Minute

// Start starts a proxy to target (host:port, host a loopback IP or
// "localhost") and closes it when t ends. It fails t if target is not on
// loopback or the proxy cannot listen.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// New starts a proxy to target; it returns an error wrapping
// [ErrNotLoopback] if target is not on loopback. Close it when done; it
// closes itself after [Lifetime].
func New(target string) (*Proxy, error) { return NewFor(target, Lifetime) }

// NewFor is [New] with a lifetime other than [Lifetime], for a harness
// that runs longer than a test (tools/fleetsim).
func NewFor(target string, lifetime time.Duration) (*Proxy, error) {
	host, _, err := net.SplitHostPort(target)
	if err != nil {
		return nil, fmt.Errorf("tcpproxy: target %q: %w", target, err)
	}
	if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: %s", ErrNotLoopback, target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("tcpproxy: listen: %w", err)
	}
	p := &Proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.stop = time.AfterFunc(lifetime, p.Close)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the proxy's address, 127.0.0.1:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port returns the proxy's port.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Blackhole stops forwarding without closing anything: bytes sent either
// way are read and dropped, and new connections are accepted but reach
// nothing, as when a network path silently loses every packet.
func (p *Proxy) Blackhole() { p.setMode(blackhole, false) }

// Cut closes every connection and closes new ones at once, as when the
// server is down.
func (p *Proxy) Cut() { p.setMode(refuse, true) }

// Restore closes the connections left from a blackhole or cut (their
// streams lost bytes) and forwards new connections again.
func (p *Proxy) Restore() { p.setMode(forward, true) }

func (p *Proxy) setMode(m mode, closeAll bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	if closeAll {
		for c := range p.conns {
			c.Close()
			delete(p.conns, c)
		}
	}
}

// Close stops the proxy, closes every connection and waits for its
// goroutines. It is safe to call more than once.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.stop.Stop()
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// track registers c, or closes it and reports false if the proxy closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		m := p.mode
		p.mu.Unlock()
		if m == refuse || !p.track(c) {
			c.Close()
			continue
		}
		p.wg.Add(1)
		go p.serve(c, m)
	}
}

func (p *Proxy) serve(c net.Conn, m mode) {
	defer p.wg.Done()
	if m == blackhole {
		p.pump(c, nil, false)
		return
	}
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	s, err := net.DialTimeout("tcp", target, 2*time.Second)
	if err != nil || !p.track(s) {
		if s != nil {
			s.Close()
		}
		c.Close()
		return
	}
	p.wg.Add(1)
	go func() { defer p.wg.Done(); p.pump(s, c, true) }()
	p.pump(c, s, false)
}

// pump copies from src to dst while the proxy forwards, dropping the bytes
// while it blackholes (dst nil: always drop). It closes both ends when src
// ends. fromServer marks the server-to-client direction, the one
// DropNextReply acts on. With a delay, a second goroutine writes each chunk
// to dst once its own delivery time has come, so that chunks read in quick
// succession arrive in quick succession, each delay after it was read.
func (p *Proxy) pump(src, dst net.Conn, fromServer bool) {
	defer func() {
		src.Close()
		if dst != nil {
			dst.Close()
		}
	}()
	var queue chan chunk // nil until the first delayed chunk
	defer func() {
		if queue != nil {
			close(queue)
		}
	}()
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 && dst != nil {
			now := time.Now()
			p.mu.Lock()
			m, delay := p.mode, p.delay
			drop := fromServer && p.dropReply
			if drop {
				p.dropReply = false
			}
			p.mu.Unlock()
			if drop { // the reply is lost, and with it the connection
				return
			}
			if m == forward {
				if delay <= 0 && queue == nil {
					if _, werr := dst.Write(buf[:n]); werr != nil {
						return
					}
				} else {
					if queue == nil {
						queue = make(chan chunk, 4096)
						p.wg.Add(1)
						go func() { defer p.wg.Done(); p.deliver(queue, src, dst) }()
					}
					queue <- chunk{buf[:n], now.Add(delay)}
				}
			}
		}
		if err != nil { // EOF or closed: end both directions
			return
		}
	}
}

// chunk is bytes read from one side, to be written to the other at due.
type chunk struct {
	b   []byte
	due time.Time
}

// deliver writes every chunk of queue to dst at its due time, and closes
// both ends if a write fails.
func (p *Proxy) deliver(queue <-chan chunk, src, dst net.Conn) {
	failed := false
	for c := range queue {
		if failed {
			continue // drain, so that pump never blocks on a dead writer
		}
		if d := time.Until(c.due); d > 0 {
			sleep(d)
		}
		if _, err := dst.Write(c.b); err != nil {
			failed = true
			src.Close()
			dst.Close()
		}
	}
}
