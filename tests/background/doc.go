// Package background holds tests of what making IDs leaves behind in a
// user's process: no goroutine after a burst (go.uber.org/goleak, which
// this test module and no published one requires), and IDs' times that
// keep up with the wall clock on a busy CPU.
package background
