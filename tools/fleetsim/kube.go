package main

import (
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
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// kubeAPIServerEnv names the kube-apiserver binary a run on -store kube
// starts, as kubelease's tests take it.
const kubeAPIServerEnv = "IDKIT_KUBE_APISERVER"

// kubeToken is the bearer token of the run's cluster admin, the identity
// every worker's clientset uses.
const kubeToken = "fleetsim-admin-token"

// kubeNamespace holds a run's Lease objects.
const kubeNamespace = "default"

// kubeServer is a -store kube run's Kubernetes: a real kube-apiserver
// (the binary IDKIT_KUBE_APISERVER names) in front of one etcd member
// embedded in the parent process, each on a private port, with its data
// in a temporary directory. It follows kubelease's test server
// (generator/node/kubelease/apiserver_test.go), which is in a _test file
// and so cannot be imported.
type kubeServer struct {
	bin, dir string
	etcd     *embed.Etcd
	etcdURL  string
	Host     string // the API server's address, host:port
	port     int
	cmd      *exec.Cmd
	exited   chan struct{}
}

func startKube() (*kubeServer, error) {
	bin := os.Getenv(kubeAPIServerEnv)
	if bin == "" {
		return nil, fmt.Errorf("-store kube: %s is not set: build kube-apiserver v1.37.2 with generator/node/kubelease/build-kube-apiserver.sh and point %s at it", kubeAPIServerEnv, kubeAPIServerEnv)
	}
	dir, err := os.MkdirTemp("", "fleetsim-kube-")
	if err != nil {
		return nil, err
	}
	k := &kubeServer{bin: bin, dir: dir}
	ports, err := freePorts(3)
	if err != nil {
		k.close()
		return nil, err
	}
	if err := k.startEtcd(ports[0], ports[1]); err != nil {
		k.close()
		return nil, err
	}
	if err := k.writeCredentials(); err != nil {
		k.close()
		return nil, err
	}
	k.port = ports[2]
	k.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(k.port))
	if err := k.Start(); err != nil {
		k.close()
		return nil, err
	}
	return k, nil
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

// startEtcd starts the member the API server stores in (etcd's default
// timing, its WAL fsynced).
func (k *kubeServer) startEtcd(client, peer int) error {
	cu := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", client)}
	pu := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peer)}
	cfg := embed.NewConfig()
	cfg.Name = "kube"
	cfg.Dir = filepath.Join(k.dir, "etcd")
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.ListenMetricsUrls = nil
	cfg.InitialCluster = "kube=" + pu.String()
	cfg.InitialClusterToken = "fleetsim-kube"
	cfg.ClusterState = embed.ClusterStateFlagNew
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
	k.etcd, k.etcdURL = e, cu.String()
	return nil
}

// writeCredentials writes the service-account key pair and the token file.
func (k *kubeServer) writeCredentials() error {
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
		"tokens.csv": []byte(kubeToken + ",admin,1,system:masters\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(k.dir, name), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// Start starts the API server process (again, after Stop, on the same
// port and etcd) and waits until it is ready.
func (k *kubeServer) Start() error {
	cmd := exec.Command(k.bin,
		"--etcd-servers="+k.etcdURL,
		"--secure-port="+strconv.Itoa(k.port),
		"--bind-address=127.0.0.1",
		"--cert-dir="+filepath.Join(k.dir, "certs"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+filepath.Join(k.dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(k.dir, "sa.key"),
		"--token-auth-file="+filepath.Join(k.dir, "tokens.csv"),
		"--disable-admission-plugins=ServiceAccount",
		"--authorization-mode=AlwaysAllow",
	)
	logf, err := os.OpenFile(filepath.Join(k.dir, "apiserver.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	k.cmd, k.exited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(k.exited) }()
	return k.waitReady(2 * time.Minute)
}

// Stop kills the API server process (SIGKILL) and waits for it to exit.
func (k *kubeServer) Stop() {
	if k.cmd == nil {
		return
	}
	_ = k.cmd.Process.Kill()
	<-k.exited
	k.cmd = nil
}

// pid is the running API server's process ID (0: none).
func (k *kubeServer) pid() int {
	if k.cmd == nil || k.cmd.Process == nil {
		return 0
	}
	return k.cmd.Process.Pid
}

func (k *kubeServer) close() {
	k.Stop()
	if k.etcd != nil {
		k.etcd.Close()
		k.etcd = nil
	}
	os.RemoveAll(k.dir)
}

// waitReady polls /readyz and the default namespace until both answer.
func (k *kubeServer) waitReady(limit time.Duration) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-k.exited:
			log, _ := os.ReadFile(filepath.Join(k.dir, "apiserver.log"))
			if len(log) > 2000 {
				log = log[len(log)-2000:]
			}
			return fmt.Errorf("kube-apiserver exited: %s", log)
		default:
		}
		if last = k.ready(hc); last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after %v: %w", limit, last)
}

func (k *kubeServer) ready(hc *http.Client) error {
	for _, path := range []string{"/readyz", "/api/v1/namespaces/" + kubeNamespace} {
		req, _ := http.NewRequest(http.MethodGet, "https://"+k.Host+path, nil)
		req.Header.Set("Authorization", "Bearer "+kubeToken)
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

// version is the API server's version, as /version reports it.
func (k *kubeServer) version() string {
	c, err := kubeClient(k.Host)
	if err != nil {
		return "unknown"
	}
	v, err := c.Discovery().ServerVersion()
	if err != nil {
		return "unknown"
	}
	return "kube-apiserver " + v.GitVersion + " (etcd 3.7 member in process)"
}

// kubeClient is a clientset of the run's admin through host (the API
// server's address, or a worker's proxy in front of it): no client-side
// rate limit, as a service that sizes its API server does not throttle
// its own leases.
func kubeClient(host string) (*kubernetes.Clientset, error) {
	return kubernetes.NewForConfig(&rest.Config{
		Host:            "https://" + host,
		BearerToken:     kubeToken,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             -1,
		Timeout:         10 * time.Second,
	})
}

// kubePrefix is a run's Lease objects' prefix: the run's name as a DNS
// label (testdb's names have an underscore).
func kubePrefix(name string) string { return strings.ReplaceAll(name, "_", "-") }

// kubeOutagePlan stops the API server (SIGKILL) and starts it again on
// the same etcd.
func kubeOutagePlan(k *kubeServer) *failoverPlan {
	return &failoverPlan{what: "kube-apiserver (etcd member in process)", stopWhat: "killed (SIGKILL), then started again on the same port and etcd",
		stop: k.Stop,
		start: func() {
			if err := k.Start(); err != nil {
				panic(tbFailure{err.Error()})
			}
		}}
}

// kubeRestartPlan is -fault lossless on Kubernetes: the API server
// restarted (killed, started again on the same etcd, which keeps every
// write); the proxies stay where they are.
func kubeRestartPlan(k *kubeServer) *failoverPlan {
	return &failoverPlan{
		what: "kube-apiserver killed (SIGKILL) and started again on the same port and etcd (every write kept)",
		kill: func() string { k.Stop(); return k.Host },
		promote: func() {
			if err := k.Start(); err != nil {
				panic(tbFailure{err.Error()})
			}
		},
		next:     func(killed string) string { return killed },
		lossless: true,
	}
}
