package main

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// tb lets fleetsim start servers with internal/testservers, whose helpers
// take a testing.TB, outside a test. Fatal, Fatalf and Skip panic with a
// tbFailure that [tb.do] turns into an error; Cleanup collects functions
// that [tb.close] runs, last first. Any other testing.TB method panics (the
// embedded interface is nil): the helpers use only these.
type tb struct {
	testing.TB

	mu       sync.Mutex
	cleanups []func()
}

type tbFailure struct{ msg string }

func (t *tb) Helper()                   {}
func (t *tb) Fatal(args ...any)         { panic(tbFailure{fmt.Sprint(args...)}) }
func (t *tb) Fatalf(f string, a ...any) { panic(tbFailure{fmt.Sprintf(f, a...)}) }
func (t *tb) Skip(args ...any)          { panic(tbFailure{fmt.Sprint(args...)}) }
func (t *tb) Skipf(f string, a ...any)  { panic(tbFailure{fmt.Sprintf(f, a...)}) }
func (t *tb) Logf(f string, a ...any)   {}

func (t *tb) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// do runs f and returns the failure it reported, if any.
func (t *tb) do(what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			fail, ok := r.(tbFailure)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s: %s", what, fail.msg)
		}
	}()
	f()
	return nil
}

// close runs the cleanups, last registered first.
func (t *tb) close() {
	t.mu.Lock()
	fs := slices.Clone(t.cleanups)
	t.cleanups = nil
	t.mu.Unlock()
	for _, f := range slices.Backward(fs) {
		f()
	}
}
