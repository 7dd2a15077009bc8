// Command vulnreport reads the JSON stream of `govulncheck -format json`
// from standard input and fails (exit status 1) if the code calls a
// vulnerable symbol for which a fixed version exists, unless the
// vulnerability is named in the exceptions file with an end date not yet
// passed. An expired exception fails on its own, whether or not it is still
// needed. It prints one line: LABEL, then the vulnerabilities found per
// level (called, imported only, required only) and how many were excepted;
// and on standard error each failing vulnerability with a call path.
//
// Usage: vulnreport -exceptions FILE -label LABEL <govulncheck.json
//
// The exceptions file has one exception a line: ID, end date (YYYY-MM-DD,
// the last day it holds) and the reason, separated by white space; blank
// lines and lines starting with # are ignored.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"
	"time"
)

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
	} `json:"position"`
}

type message struct {
	Finding *struct {
		OSV          string  `json:"osv"`
		FixedVersion string  `json:"fixed_version"`
		Trace        []frame `json:"trace"`
	} `json:"finding"`
}

const (
	levelModule = iota + 1
	levelPackage
	levelSymbol
)

type vuln struct {
	level int
	fixed string
	trace []frame
}

func main() {
	exceptionsFile := flag.String("exceptions", "", "file of exceptions (ID END-DATE REASON...)")
	label := flag.String("label", "scan", "name printed in the summary")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("vulnreport: ")

	today := time.Now().UTC().Format(time.DateOnly)
	excepted, expired, err := readExceptions(*exceptionsFile, today)
	if err != nil {
		log.Fatal(err)
	}

	vulns := map[string]*vuln{}
	dec := json.NewDecoder(bufio.NewReader(os.Stdin))
	for {
		var m message
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			log.Fatalf("reading govulncheck's JSON: %v", err)
		}
		f := m.Finding
		if f == nil || len(f.Trace) == 0 {
			continue
		}
		lvl := levelModule
		switch {
		case f.Trace[0].Function != "":
			lvl = levelSymbol
		case f.Trace[0].Package != "":
			lvl = levelPackage
		}
		v := vulns[f.OSV]
		if v == nil {
			v = &vuln{}
			vulns[f.OSV] = v
		}
		if lvl > v.level {
			v.level, v.fixed, v.trace = lvl, f.FixedVersion, f.Trace
		}
	}

	var ids []string
	for id := range vulns {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	count := map[int]int{}
	var failing []string
	nExcepted := 0
	for _, id := range ids {
		v := vulns[id]
		count[v.level]++
		if v.level != levelSymbol || v.fixed == "" {
			continue
		}
		if excepted[id] {
			nExcepted++
			continue
		}
		failing = append(failing, id)
		top := v.trace[0]
		fmt.Fprintf(os.Stderr, "%s: %s: %s@%s calls a vulnerable symbol, fixed in %s:\n", *label, id, top.Module, top.Version, v.fixed)
		for i := len(v.trace) - 1; i >= 0; i-- {
			fr := v.trace[i]
			name := fr.Function
			if fr.Receiver != "" {
				name = fr.Receiver + "." + name
			}
			pos := ""
			if fr.Position != nil {
				pos = fmt.Sprintf(" (%s:%d)", fr.Position.Filename, fr.Position.Line)
			}
			fmt.Fprintf(os.Stderr, "\t%s.%s%s\n", fr.Package, name, pos)
		}
	}
	for _, e := range expired {
		fmt.Fprintf(os.Stderr, "%s: exception expired: %s\n", *label, e)
	}
	line := fmt.Sprintf("%s: %d called, %d imported only, %d required only", *label, count[levelSymbol], count[levelPackage], count[levelModule])
	if nExcepted > 0 {
		line += fmt.Sprintf(" (%d excepted)", nExcepted)
	}
	if len(failing) > 0 {
		line += " FAILING: " + strings.Join(failing, " ")
	}
	if len(expired) > 0 {
		line += fmt.Sprintf(" (%d exceptions expired)", len(expired))
	}
	fmt.Println(line)
	if len(failing) > 0 || len(expired) > 0 {
		os.Exit(1)
	}
}

// readExceptions returns the IDs whose exception holds today and the lines
// of those that expired.
func readExceptions(name, today string) (map[string]bool, []string, error) {
	ok := map[string]bool{}
	if name == "" {
		return ok, nil, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	var expired []string
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			return nil, nil, fmt.Errorf("%s:%d: want ID END-DATE REASON", name, n+1)
		}
		if _, err := time.Parse(time.DateOnly, fields[1]); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: end date: %v", name, n+1, err)
		}
		if fields[1] < today {
			expired = append(expired, line)
			continue
		}
		ok[fields[0]] = true
	}
	return ok, expired, nil
}
