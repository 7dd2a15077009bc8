package main

import (
	"encoding/json"
	"os"
	"time"
)

// saved is a report as -json writes it and -render reads it back, so that
// the tables can be written again without running the benchmark again.
type saved struct {
	Rows, Batch, Chunk, Payload, Reps int
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
}

func (rep *report) save(path string, kinds []keyKind) error {
	s := saved{Rows: rep.rows, Batch: rep.batch, Chunk: rep.chunk, Payload: rep.payload, Reps: rep.reps,
		Versions: rep.versions, LoadBefore: rep.loadBefore, LoadAfter: rep.loadAfter, Start: rep.start, Elapsed: rep.elapsed}
	for _, k := range kinds {
		s.Keys = append(s.Keys, k.name)
	}
	for _, r := range rep.results {
		s.Results = append(s.Results, savedResult{r.db, r.mode, r.key, r.rep, r.rows, r.lastRows,
			r.secs, r.lastSecs, r.pk, r.total, r.wal, r.clientCPU, r.srvCPU})
	}
	b, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// load reads a report -json wrote, with the key kinds it ran.
func load(path string) (*report, []keyKind, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var s saved
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, nil, err
	}
	rep := &report{rows: s.Rows, batch: s.Batch, chunk: s.Chunk, payload: s.Payload, reps: s.Reps,
		versions: s.Versions, loadBefore: s.LoadBefore, loadAfter: s.LoadAfter, start: s.Start, elapsed: s.Elapsed}
	for _, r := range s.Results {
		rep.results = append(rep.results, result{db: r.DB, mode: r.Mode, key: r.Key, rep: r.Rep, rows: r.Rows,
			lastRows: r.LastRows, secs: r.Secs, lastSecs: r.LastSecs, pk: r.PK, total: r.Total, wal: r.WAL,
			clientCPU: r.ClientCPU, srvCPU: r.ServerCPU})
	}
	var kinds []keyKind
	for _, name := range s.Keys {
		k, ok := keyByName(name)
		if ok != nil {
			// A kind this build lacks (idkit's UUIDv7 without the tag):
			// its rows keep their name as the label.
			k = keyKind{name: name, label: name}
			if name == "uuidv7" {
				k.label = uuidv7Label
			}
		}
		kinds = append(kinds, k)
	}
	return rep, kinds, nil
}
