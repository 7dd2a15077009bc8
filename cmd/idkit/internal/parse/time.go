package parse

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimeSyntax documents the time arguments that [Time] accepts.
const TimeSyntax = `Times: RFC 3339 (2022-09-22T14:13:39Z, 2022-09-22T16:13:39.5+02:00),
a date (2022-09-22) or date and time without a zone (2022-09-22T14:13:39 or
'2022-09-22 14:13:39'), both read as UTC; @UNIXSECONDS (@1663856019); or now.`

// Time reads a time argument (see [TimeSyntax]); now is the result for
// "now". The result is in UTC. Anything else returns an error wrapping
// [ErrTime].
func Time(s string, now time.Time) (time.Time, error) {
	in := strings.TrimSpace(s)
	if strings.EqualFold(in, "now") {
		return now.UTC(), nil
	}
	if rest, ok := strings.CutPrefix(in, "@"); ok {
		secs, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || secs < -1<<40 || secs > 1<<40 {
			return time.Time{}, fmt.Errorf("%w: %q: want @ and Unix seconds", ErrTime, s)
		}
		return time.Unix(secs, 0).UTC(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, in); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %q: want RFC 3339 (2022-09-22T14:13:39Z), a date (2022-09-22), @UNIXSECONDS or now", ErrTime, s)
}
