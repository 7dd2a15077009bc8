package tcpproxy

import (
	"fmt"
	"net"
)

// MoveTo makes the proxy forward new connections to target, as a virtual
// IP or a connection pooler moves to a new primary: it closes every
// connection to the old target and forwards again if it was cut or
// blackholed. It returns an error wrapping [ErrNotLoopback] if target is
// not on loopback.
func (p *Proxy) MoveTo(target string) error {
	host, _, err := net.SplitHostPort(target)
	if err != nil {
		return fmt.Errorf("tcpproxy: target %q: %w", target, err)
	}
	if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) {
		return fmt.Errorf("%w: %s", ErrNotLoopback, target)
	}
	p.mu.Lock()
	p.target = target
	p.mu.Unlock()
	p.Restore()
	return nil
}
