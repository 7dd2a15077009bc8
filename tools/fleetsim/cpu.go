package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuMeter measures the server's CPU time over the run, from
// /proc/<pid>/stat (utime + stime). On PostgreSQL it sums the backends
// serving the fleet (application_name fleetsim), sampled every second, so
// other users of the server are left out; on Redis and MariaDB it is the
// whole server process, shared with anything else using it.
type cpuMeter struct {
	a     *admin
	stopc chan struct{}
	wg    sync.WaitGroup

	mu    sync.Mutex
	ticks map[int]int64 // last seen per PostgreSQL backend, or per Kubernetes process
	start map[int]int64 // Kubernetes: each process's ticks when the run began
	base  int64         // server process ticks at start (Redis, MariaDB)
}

const clkTck = 100 // USER_HZ on Linux

func startCPU(a *admin) *cpuMeter {
	m := &cpuMeter{a: a, stopc: make(chan struct{}), ticks: map[int]int64{}, start: map[int]int64{}}
	if a.kind == "kube" {
		for _, pid := range m.kubePIDs() {
			m.start[pid] = procTicks([]int{pid})
		}
	}
	if a.kind != "postgres" && a.kind != "kube" {
		m.base = procTicks(serverPIDs(a.kind))
		return m
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			m.sample()
			select {
			case <-m.stopc:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

// kubePIDs are a Kubernetes run's server processes: the API server
// running now, and this one, which runs its etcd member.
func (m *cpuMeter) kubePIDs() []int {
	pids := []int{os.Getpid()}
	if pid := m.a.kube.pid(); pid != 0 {
		pids = append(pids, pid)
	}
	return pids
}

func (m *cpuMeter) sample() {
	if m.a.kind == "kube" {
		// Sampled every second: a restart ends a process, and its count
		// with it.
		for _, pid := range m.kubePIDs() {
			if t := procTicks([]int{pid}); t > 0 {
				m.mu.Lock()
				m.ticks[pid] = max(m.ticks[pid], t)
				m.mu.Unlock()
			}
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	rows, err := m.a.db.QueryContext(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = 'fleetsim'")
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			if t := procTicks([]int{pid}); t > 0 {
				m.mu.Lock()
				m.ticks[pid] = max(m.ticks[pid], t)
				m.mu.Unlock()
			}
		}
	}
}

// stop returns the CPU seconds measured.
func (m *cpuMeter) stop() float64 {
	if m.a.kind != "postgres" && m.a.kind != "kube" {
		return float64(procTicks(serverPIDs(m.a.kind))-m.base) / clkTck
	}
	m.sample()
	close(m.stopc)
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	var sum int64
	for pid, t := range m.ticks {
		sum += t - m.start[pid]
	}
	return float64(sum) / clkTck
}

// serverPIDs returns the pids of the server processes of kind.
func serverPIDs(kind string) []int {
	if kind == "etcd" {
		return []int{os.Getpid()} // the members run in this process
	}
	want := map[string]string{"redis": "redis-server", "mysql": "mariadbd", "postgres": "postgres"}[kind]
	paths, _ := filepath.Glob("/proc/[0-9]*/comm")
	var pids []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || strings.TrimSpace(string(b)) != want {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procTicks sums utime + stime of pids, in clock ticks.
func procTicks(pids []int) int64 {
	var sum int64
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += u + st
	}
	return sum
}
