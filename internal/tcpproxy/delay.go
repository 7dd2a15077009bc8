package tcpproxy

import "time"

// SetDelay makes the proxy deliver the bytes it reads, each way, d after it
// read them, as a network path with a one-way latency of d does: a round
// trip through the proxy takes at least 2*d more than without it. It is a
// latency, not a rate limit: bytes sent back to back arrive back to back,
// each d late, so a client that pipelines its requests waits d once, not
// once per request. A d of 0 or less forwards at once again; bytes already
// read keep the delay they were read with. It applies to every connection,
// open or new.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// DropNextReply makes the proxy lose the next bytes a server sends back, on
// whichever connection they come first, and close that connection both
// ways, as when the reply to a request is lost after the server acted on
// it: the server has done what it was asked, and the client sees the
// connection fail instead of the answer. Call it when no reply is on its
// way, just before sending the request whose reply is to be lost. It acts
// once; call it again to lose another reply.
func (p *Proxy) DropNextReply() {
	p.mu.Lock()
	p.dropReply = true
	p.mu.Unlock()
}
