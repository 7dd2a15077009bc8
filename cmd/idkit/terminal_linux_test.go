package main_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY returns the terminal side of a new pseudo-terminal, or skips the
// test where the system has none to give.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlocking the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("numbering the pseudo-terminal: %v", e)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestNoArgumentsOnTerminal checks what 'idkit help inspect' says: with no
// arguments and a terminal on standard input, inspect and convert print
// their usage (exit status 2) instead of waiting for typed input.
func TestNoArgumentsOnTerminal(t *testing.T) {
	tty := openPTY(t)
	for _, cmd := range []string{"inspect", "convert"} {
		r := runStdin(t, tty, cmd)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "usage: idkit "+cmd) || r.stdout != "" {
			t.Errorf("idkit %s on a terminal: exit status %d, stdout %q, stderr %.40q", cmd, r.code, r.stdout, r.stderr)
		}
	}
}
