package nodetest

import "time"

// SetExpiryLimit sets how long the protocol cases wait for a short claim
// to expire, for a store whose expiry is exact.
func SetExpiryLimit(d time.Duration) { expiryLimit = d }
