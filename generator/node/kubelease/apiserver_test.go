package kubelease

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// buildScript is the script that builds the API server binary the tests
// need, named when none is given.
const buildScript = "generator/node/kubelease/build-kube-apiserver.sh"

// adminToken is the bearer token of the tests' cluster admin.
const adminToken = "idkit-admin-token"

// apiServer is a real kube-apiserver (the binary IDKIT_KUBE_APISERVER names)
// in front of an etcd member embedded in the test process, each on a
// private port, with its data under a temporary directory.
type apiServer struct {
	t       testing.TB
	bin     string
	dir     string
	etcd    *embed.Etcd
	etcdURL string
	// etcdPorts are the member's client and peer ports, kept across its
	// restarts.
	etcdPorts []int
	port      int
	// Flags are more flags for the API server, and Tokens more lines of
	// its token file ("TOKEN,user,uid,group"); set them before Start.
	Flags  []string
	Tokens []string
	cmd    *exec.Cmd
	exited chan struct{}
	// Host is the API server's address, host:port.
	Host string
}

// startAPIServer starts etcd and the API server and returns once the API
// server is ready and its default namespace exists. It skips the test when
// IDKIT_KUBE_APISERVER is unset, unless CI is set, where it fails.
func startAPIServer(t testing.TB) *apiServer {
	t.Helper()
	return startAPIServerWith(t, nil)
}

// startAPIServerWith is startAPIServer, calling setup (if not nil) before
// the API server starts, to set Flags and Tokens.
func startAPIServerWith(t testing.TB, setup func(*apiServer)) *apiServer {
	t.Helper()
	bin := os.Getenv("IDKIT_KUBE_APISERVER")
	if bin == "" {
		msg := "IDKIT_KUBE_APISERVER is not set: build kube-apiserver v1.37.2 with " + buildScript + " and point IDKIT_KUBE_APISERVER at it"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	s := &apiServer{t: t, bin: bin, dir: t.TempDir()}
	if setup != nil {
		setup(s)
	}
	var err error
	if s.etcdPorts, err = freePorts(2); err != nil {
		t.Fatal(err)
	}
	if err := s.startEtcd(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.StopEtcd)
	if err := s.writeCredentials(); err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	s.port = ports[0]
	s.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// startEtcd starts the embedded etcd member the API server stores in, on
// its ports, with the data in its directory if any.
func (s *apiServer) startEtcd() error {
	ports := s.etcdPorts
	cu := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	pu := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	cfg := embed.NewConfig()
	cfg.Name = "kube"
	cfg.Dir = s.etcdDir()
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.ListenMetricsUrls = nil
	cfg.InitialCluster = "kube=" + pu.String()
	cfg.InitialClusterToken = "idkit-kubelease-test"
	cfg.ClusterState = embed.ClusterStateFlagNew
	// The member stops within this process; the machine does not lose
	// power under it, so its WAL needs no fsync.
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return fmt.Errorf("etcd: %w", err)
	case <-time.After(time.Minute):
		e.Close()
		return errors.New("etcd not ready after a minute")
	}
	s.etcd, s.etcdURL = e, cu.String()
	return nil
}

// writeCredentials writes the service-account key pair and the token file.
func (s *apiServer) writeCredentials() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"sa.key":     pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		"sa.pub":     pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
		"tokens.csv": []byte(adminToken + ",admin,1,system:masters\n" + strings.Join(append(slices.Clone(s.Tokens), ""), "\n")),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(s.dir, name), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// Start starts the API server process (again, after Stop) and waits until
// it reports ready.
func (s *apiServer) Start() error {
	cmd := exec.Command(s.bin,
		"--etcd-servers="+s.etcdURL,
		"--secure-port="+strconv.Itoa(s.port),
		"--bind-address=127.0.0.1",
		"--cert-dir="+filepath.Join(s.dir, "certs"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+filepath.Join(s.dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(s.dir, "sa.key"),
		"--token-auth-file="+filepath.Join(s.dir, "tokens.csv"),
		"--disable-admission-plugins=ServiceAccount",
	)
	if !slices.ContainsFunc(s.Flags, func(f string) bool { return strings.HasPrefix(f, "--authorization-mode=") }) {
		cmd.Args = append(cmd.Args, "--authorization-mode=AlwaysAllow")
	}
	cmd.Args = append(cmd.Args, s.Flags...)
	logf, err := os.OpenFile(filepath.Join(s.dir, "apiserver.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(s.exited) }()
	return s.waitReady(2 * time.Minute)
}

// Stop kills the API server process and waits for it to exit.
func (s *apiServer) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// StopEtcd stops the etcd member (the API server keeps running, failing).
func (s *apiServer) StopEtcd() {
	if s.etcd != nil {
		s.etcd.Close()
		s.etcd = nil
	}
}

// etcdDir is the member's data directory.
func (s *apiServer) etcdDir() string { return filepath.Join(s.dir, "etcd") }

// CopyEtcd stops the member, copies its data directory to dst, and starts
// it again: a consistent copy, as a snapshot is.
func (s *apiServer) CopyEtcd(dst string) error {
	s.StopEtcd()
	if out, err := exec.Command("cp", "-a", s.etcdDir(), dst).CombinedOutput(); err != nil {
		return fmt.Errorf("copy etcd data: %v: %s", err, out)
	}
	return s.startEtcd()
}

// RestoreEtcd stops the API server and the member, puts the copy src (of
// CopyEtcd) in place of the member's data, and starts both again: the
// objects go back to the copy's revision, as after etcdutl snapshot
// restore, and the API server starts on them as an operator restarts it
// after a restore. Empty src: the member starts with no data.
func (s *apiServer) RestoreEtcd(src string) error {
	s.Stop()
	s.StopEtcd()
	if err := os.RemoveAll(s.etcdDir()); err != nil {
		return err
	}
	if src != "" {
		if out, err := exec.Command("cp", "-a", src, s.etcdDir()).CombinedOutput(); err != nil {
			return fmt.Errorf("restore etcd data: %v: %s", err, out)
		}
	}
	if err := s.startEtcd(); err != nil {
		return err
	}
	return s.Start()
}

// Restart stops the API server and starts it again on the same port and
// etcd.
func (s *apiServer) Restart() error {
	s.Stop()
	return s.Start()
}

// waitReady polls /readyz, then the default namespace, until both answer.
func (s *apiServer) waitReady(limit time.Duration) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "apiserver.log"))
			return fmt.Errorf("kube-apiserver exited: %s", tail(log, 2000))
		default:
		}
		last = s.ready(hc)
		if last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after %v: %w", limit, last)
}

func (s *apiServer) ready(hc *http.Client) error {
	for _, path := range []string{"/readyz", "/api/v1/namespaces/default", "/api/v1/namespaces/kube-system"} {
		req, _ := http.NewRequest(http.MethodGet, "https://"+s.Host+path, nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", path, resp.Status)
		}
	}
	return nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Config returns a client configuration for the admin through host (the
// API server's address, or a proxy's in front of it).
func (s *apiServer) Config(host, token string) *rest.Config {
	return &rest.Config{
		Host:            "https://" + host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             -1, // no client-side rate limit: the tests measure the server
		Timeout:         10 * time.Second,
	}
}

// Client returns an admin clientset talking to the API server directly.
func (s *apiServer) Client() *kubernetes.Clientset {
	c, err := kubernetes.NewForConfig(s.Config(s.Host, adminToken))
	if err != nil {
		panic(err) // a configuration of constants
	}
	return c
}

var _ = context.Background
