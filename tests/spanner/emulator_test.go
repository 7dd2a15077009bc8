package spanner_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instance "cloud.google.com/go/spanner/admin/instance/apiv1"
	"cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"

	"github.com/idkit-go/idkit/internal/testdb"
)

// The tests start their own Cloud Spanner emulator on a free local port,
// make one instance in it, and give each test a database of its own.

const (
	serverName   = "Spanner emulator"
	emulatorPath = "/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main"
	instancePath = "projects/idkit/instances/test"
)

// emulatorAttr is the emulator process's SysProcAttr (see
// emulator_linux_test.go).
var emulatorAttr *syscall.SysProcAttr

var emu struct {
	once sync.Once
	cmd  *exec.Cmd
	err  error // why the emulator is not available
	dbs  *database.DatabaseAdminClient
	n    atomic.Int64 // databases made so far
}

func TestMain(m *testing.M) {
	code := testdb.Main(m)
	stopEmulator()
	os.Exit(code)
}

// emulatorBinary returns the emulator's path: emulatorPath (where the
// Debian package google-cloud-cli-spanner-emulator puts it), or beside the
// gcloud on PATH.
func emulatorBinary() (string, error) {
	if _, err := os.Stat(emulatorPath); err == nil {
		return emulatorPath, nil
	}
	if g, err := exec.LookPath("gcloud"); err == nil {
		if g, err = filepath.EvalSymlinks(g); err == nil {
			p := filepath.Join(filepath.Dir(g), "cloud_spanner_emulator", "emulator_main")
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("no %s and no cloud_spanner_emulator/emulator_main beside gcloud: install the Debian package google-cloud-cli-spanner-emulator", emulatorPath)
}

// startEmulator starts the emulator on a free port of 127.0.0.1, points the
// client at it (SPANNER_EMULATOR_HOST) and makes the instance.
func startEmulator() error {
	bin, err := emulatorBinary()
	if err != nil {
		return err
	}
	var addr string
	for try := 0; ; try++ {
		addr, err = runEmulator(bin)
		if err == nil {
			break
		}
		if try == 2 {
			return err
		}
	}
	os.Setenv("SPANNER_EMULATOR_HOST", addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ic, err := instance.NewInstanceAdminClient(ctx)
	if err != nil {
		return err
	}
	defer ic.Close()
	op, err := ic.CreateInstance(ctx, &instancepb.CreateInstanceRequest{
		Parent:     "projects/idkit",
		InstanceId: "test",
		Instance: &instancepb.Instance{
			Config:      "projects/idkit/instanceConfigs/emulator-config",
			DisplayName: "idkit tests",
			NodeCount:   1,
		},
	})
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("create instance: %w", err)
	}
	emu.dbs, err = database.NewDatabaseAdminClient(context.Background())
	return err
}

// runEmulator starts bin on a port that was free a moment ago and waits
// until it accepts connections, or exits (another process took the port).
func runEmulator(bin string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	l.Close()
	var out strings.Builder
	cmd := exec.Command(bin, "--host_port="+addr)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = emulatorAttr
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case err := <-exited:
			return "", fmt.Errorf("emulator on %s exited (%v): %s", addr, err, out.String())
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			return "", fmt.Errorf("emulator on %s did not accept connections within 30 s: %s", addr, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			emu.cmd = cmd
			go func() { <-exited }() // reap it when stopEmulator kills it
			return addr, nil
		}
	}
}

func stopEmulator() {
	if emu.dbs != nil {
		emu.dbs.Close()
	}
	if emu.cmd != nil {
		emu.cmd.Process.Kill()
	}
}

// newDB makes a database with the given DDL statements and returns a
// client of it, closed when t ends. Without the emulator it skips t, or
// fails it under CI.
func newDB(t testing.TB, ddl ...string) *spanner.Client {
	t.Helper()
	emu.once.Do(func() { emu.err = startEmulator() })
	if emu.err != nil {
		testdb.Unavailable(t, serverName, emu.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := "db" + strconv.FormatInt(emu.n.Add(1), 10)
	op, err := emu.dbs.CreateDatabase(ctx, &databasepb.CreateDatabaseRequest{
		Parent:          instancePath,
		CreateStatement: "CREATE DATABASE " + name,
		ExtraStatements: ddl,
	})
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("create database with %q: %v", ddl, err)
	}
	c, err := spanner.NewClient(context.Background(), instancePath+"/databases/"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// updateDDL runs statements on the database of c and returns the error.
func updateDDL(ctx context.Context, c *spanner.Client, statements ...string) error {
	op, err := emu.dbs.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{
		Database:   c.DatabaseName(),
		Statements: statements,
	})
	if err != nil {
		return err
	}
	return op.Wait(ctx)
}
