//go:build race

package uuidgen

import "sync"

// lock makes the exclusion that pinning gives visible to the race detector.
type lock struct{ mu sync.Mutex }

func (l *lock) acquire() { l.mu.Lock() }
func (l *lock) release() { l.mu.Unlock() }
