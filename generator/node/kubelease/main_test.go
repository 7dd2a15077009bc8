package kubelease

import (
	"os"
	"testing"
)

var tmpRoot string

// tempDir returns a new directory under the tests' temporary root.
func tempDir() string {
	d, err := os.MkdirTemp(tmpRoot, "apiserver")
	if err != nil {
		panic(err)
	}
	return d
}

func TestMain(m *testing.M) {
	var err error
	if tmpRoot, err = os.MkdirTemp("", "kubelease-test"); err != nil {
		panic(err)
	}
	code := m.Run()
	if sharedServer.stop != nil {
		sharedServer.stop()
	}
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}
