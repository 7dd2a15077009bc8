package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// saved is a report as -json writes it and -render reads it back, so that
// the tables can be written again without running the benchmark again.
type saved struct {
	Rows, Batch, Chunk, Payload, Reps int
	Warmup                            int `json:",omitempty"`
	Prepare, PerStmt                  bool
	Autocommit, PgxRegister           bool `json:",omitempty"`
	Interpolate                       bool `json:",omitempty"`
	Keys, Versions                    []string
	LoadBefore, LoadAfter             string
	Start                             time.Time
	Elapsed                           time.Duration
	Results                           []savedResult
}

type savedResult struct {
	DB, Mode, Key        string
	Rep, Rows, LastRows  int
	Secs, LastSecs       float64
	PK, Total, WAL       int64
	ClientCPU, ServerCPU float64
	Mallocs, AllocBytes  uint64 `json:",omitempty"`
	GCs                  uint32 `json:",omitempty"`
}

func (rep *report) save(path string, kinds []keyKind) error {
	s := saved{Prepare: rep.prepare, Autocommit: rep.autocommit, PgxRegister: rep.pgxRegister, Interpolate: rep.interpolate, Warmup: rep.warmup, PerStmt: rep.perStmt, Rows: rep.rows, Batch: rep.batch, Chunk: rep.chunk, Payload: rep.payload, Reps: rep.reps,
		Versions: rep.versions, LoadBefore: rep.loadBefore, LoadAfter: rep.loadAfter, Start: rep.start, Elapsed: rep.elapsed}
	for _, k := range kinds {
		s.Keys = append(s.Keys, k.name)
	}
	for _, r := range rep.results {
		s.Results = append(s.Results, savedResult{r.db, r.mode, r.key, r.rep, r.rows, r.lastRows,
			r.secs, r.lastSecs, r.pk, r.total, r.wal, r.clientCPU, r.srvCPU, r.mallocs, r.allocB, r.gcs})
	}
	b, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// load reads the reports -json wrote (several invocations' repetitions of
// the same benchmark), with the key kinds the first one ran.
func load(paths ...string) (*report, []keyKind, error) {
	var rep *report
	var keys []string
	reps := map[int]bool{}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		var s saved
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if rep == nil {
			rep = &report{prepare: s.Prepare, autocommit: s.Autocommit, pgxRegister: s.PgxRegister, interpolate: s.Interpolate, warmup: s.Warmup, perStmt: s.PerStmt, rows: s.Rows, batch: s.Batch, chunk: s.Chunk, payload: s.Payload,
				versions: s.Versions, loadBefore: s.LoadBefore, start: s.Start}
			keys = s.Keys
		} else if s.Rows != rep.rows || s.Batch != rep.batch || s.Chunk != rep.chunk || s.Payload != rep.payload || s.Prepare != rep.prepare || s.Autocommit != rep.autocommit || s.PgxRegister != rep.pgxRegister || s.Interpolate != rep.interpolate || s.PerStmt != rep.perStmt {
			return nil, nil, fmt.Errorf("%s: runs of other sizes than %s's", path, paths[0])
		}
		rep.loadAfter = s.LoadAfter
		rep.elapsed += s.Elapsed
		for _, r := range s.Results {
			reps[r.Rep] = true
			rep.results = append(rep.results, result{db: r.DB, mode: r.Mode, key: r.Key, rep: r.Rep, rows: r.Rows,
				lastRows: r.LastRows, secs: r.Secs, lastSecs: r.LastSecs, pk: r.PK, total: r.Total, wal: r.WAL,
				clientCPU: r.ClientCPU, srvCPU: r.ServerCPU, mallocs: r.Mallocs, allocB: r.AllocBytes, gcs: r.GCs})
		}
	}
	rep.reps = len(reps)
	var kinds []keyKind
	for _, name := range keys {
		k, err := keyByName(name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", paths[0], err)
		}
		kinds = append(kinds, k)
	}
	return rep, kinds, nil
}
