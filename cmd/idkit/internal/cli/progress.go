package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a one-line progress bar, redrawn in place with a carriage
// return at most every 100 ms. A nil *progress draws nothing.
type progress struct {
	w     io.Writer
	total int
	now   func() time.Time
	last  time.Time
}

func newProgress(w io.Writer, total int, now func() time.Time) *progress {
	return &progress{w: w, total: total, now: now}
}

func (p *progress) update(done int) {
	if p == nil || done%1024 != 0 {
		return
	}
	if t := p.now(); t.Sub(p.last) >= 100*time.Millisecond {
		p.last = t
		p.draw(done)
	}
}

func (p *progress) done() {
	if p == nil {
		return
	}
	p.draw(p.total)
	fmt.Fprintln(p.w)
}

func (p *progress) draw(done int) {
	const width = 30
	filled := width
	if p.total > 0 {
		filled = int(int64(done) * width / int64(p.total))
	}
	pct := 100
	if p.total > 0 {
		pct = int(int64(done) * 100 / int64(p.total))
	}
	fmt.Fprintf(p.w, "\r[%s%s] %3d%% %d/%d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), pct, done, p.total)
}
