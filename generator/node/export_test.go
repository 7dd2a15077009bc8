package node

import (
	"net"
	"testing"
	"time"
)

// SetInterfaceAddrs makes FromPrivateIP read f instead of the host's
// interfaces until t ends. Tests using it must not run in parallel.
func SetInterfaceAddrs(t testing.TB, f func() ([]net.Addr, error)) {
	old := interfaceAddrs
	interfaceAddrs = f
	t.Cleanup(func() { interfaceAddrs = old })
}

// SetHostname makes FromStatefulSet read f instead of the host's name
// until t ends. Tests using it must not run in parallel.
func SetHostname(t testing.TB, f func() (string, error)) {
	old := hostname
	hostname = f
	t.Cleanup(func() { hostname = old })
}

// HostnameOrdinal is hostnameOrdinal, for the fuzz test.
var HostnameOrdinal = hostnameOrdinal

// PrivateIPNode is privateIPNode, the rule of FromPrivateIP, for its table
// and fuzz tests.
var PrivateIPNode = privateIPNode

// Options, NotBefore and CloseTimeout expose the lease's settings with
// defaults filled in, its floor and Close's bound, for the tests.
func (l *Lease) Options() LeaseOptions       { return l.o }
func (l *Lease) NotBefore() time.Time        { return l.notBefore() }
func (l *Lease) CloseTimeout() time.Duration { return l.closeTimeout() }
