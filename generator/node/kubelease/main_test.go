package kubelease

import (
	"flag"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
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
	// client-go logs a request cut by its context through klog, to stderr:
	// the tests cut requests on purpose.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
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
