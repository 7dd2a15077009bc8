package nodetest

import (
	"context"
	"errors"
	"net"
	"sync"
)

// errCut is what a dial over a cut link returns.
var errCut = errors.New("nodetest: link cut")

// link is one holder's path to the servers: every connection of the
// holder's store is dialled through it, so the suite can cut it (drop its
// connections, refuse new ones), hold it (drop its connections, make new
// ones wait until healed, then reach the server the harness routes to at
// that moment), heal it, and pin it (keep reaching the servers it reaches
// now, whatever the harness routes to later).
type link struct {
	route func(string) string
	mu    sync.Mutex
	cut   bool
	gate  chan struct{} // closed while the link is open or cut
	pin   bool
	seen  map[string]string // address asked → server reached
	conns map[net.Conn]struct{}
	dials int  // connections made
	deaf  bool // answers are read and dropped (Deafen)
	// unplug cuts the store off when it makes no connections (Harness.Unplug).
	unplug func()
}

func newLink(route func(string) string) *link {
	g := make(chan struct{})
	close(g)
	return &link{route: route, gate: g, seen: map[string]string{}, conns: map[net.Conn]struct{}{}}
}

// dial is the dialer the harness gives the store's client.
func (l *link) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	for {
		l.mu.Lock()
		cut, g := l.cut, l.gate
		l.mu.Unlock()
		if cut {
			return nil, errCut
		}
		select {
		case <-g:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		l.mu.Lock()
		if l.gate == g && !l.cut {
			break
		}
		l.mu.Unlock()
	}
	target, ok := l.seen[addr]
	if !ok || !l.pin {
		target = addr
		if l.route != nil {
			target = l.route(addr)
		}
		l.seen[addr] = target
	}
	l.mu.Unlock()
	var d net.Dialer
	c, err := d.DialContext(ctx, network, target)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut || !isOpen(l.gate) {
		c.Close()
		return nil, errCut
	}
	l.dials++
	tc := &tracked{Conn: c, l: l}
	l.conns[tc] = struct{}{}
	return tc, nil
}

// tracked is a connection of the link, forgotten when closed.
type tracked struct {
	net.Conn
	l *link
}

// Read returns what the server sent, or while the link is deaf reads it
// and drops it, returning only the connection's error.
func (c *tracked) Read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		c.l.mu.Lock()
		deaf := c.l.deaf
		c.l.mu.Unlock()
		if !deaf || err != nil {
			if deaf {
				n = 0
			}
			return n, err
		}
	}
}

func (c *tracked) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

func isOpen(g chan struct{}) bool {
	select {
	case <-g:
		return true
	default:
		return false
	}
}

// drop closes the link's connections; l.mu is held.
func (l *link) drop() {
	for c := range l.conns {
		c.(*tracked).Conn.Close()
	}
	clear(l.conns)
}

// Cut drops the connections and refuses new ones until Heal; a store
// that makes none is unplugged for good.
func (l *link) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = true
	if !isOpen(l.gate) {
		close(l.gate)
	}
	l.drop()
	if l.dials == 0 && l.unplug != nil {
		l.unplug()
	}
}

// Hold drops the connections and makes new ones wait until Heal.
func (l *link) Hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = false
	if isOpen(l.gate) {
		l.gate = make(chan struct{})
	}
	l.drop()
}

// Deafen keeps the link carrying requests but drops every answer, as when
// a server dies after it applied a request and before its answer left:
// the requests sent meanwhile are applied, none is answered, until Heal.
func (l *link) Deafen() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deaf = true
}

// Heal opens the link again; a deaf link drops its connections, whose
// answers it lost, and hears on new ones.
func (l *link) Heal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.deaf {
		l.deaf = false
		l.drop()
	}
	l.cut = false
	if !isOpen(l.gate) {
		close(l.gate)
	}
}

// Pin keeps the link reaching the servers it reaches now.
func (l *link) Pin() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pin = true
}

// dialled reports whether the link made a connection.
func (l *link) dialled() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dials > 0
}
