#!/usr/bin/env bash
# Writes results/mongodb.txt: mongocompat's BenchmarkDocumentRoundTrip (a
# {_id, name} document marshalled and unmarshalled), idkit's ObjectID beside
# each driver's own in one run, as benchstat tables with the driver's figure
# as the base of every ratio, then where the unregistered v2 round trip of
# idkit's ObjectID spends its CPU time (pprof, cumulative share of the
# driver's per-value reflection), then the raw output. The runs are
# interleaved (count runs of every sub-benchmark once), so that a load that
# comes and goes on a shared machine falls on all of them alike.
# Usage: bench/mongodb.sh [count]   (needs benchstat:
# go install golang.org/x/perf/cmd/benchstat@latest)
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-10}
benchstat=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
raw=$tmp/raw.txt
(cd .. && go test -c -o "$tmp/mongocompat.test" ./mongocompat)
for _ in $(seq "$count"); do
	"$tmp/mongocompat.test" -test.run '^$' -test.bench '^BenchmarkDocumentRoundTrip$' -test.benchtime 200ms
done | grep -v '^PASS$' >"$raw"
"$tmp/mongocompat.test" -test.run '^$' -test.bench '^BenchmarkDocumentRoundTrip$/^api=v2.Marshal$/^id=idkit$' \
	-test.benchtime 2s -test.cpuprofile "$tmp/cpu.out" >/dev/null
{
	echo "# bench/mongodb.sh $count, $(date -u +%Y-%m-%d); benchstat -col /id"
	"$benchstat" -col /id "$raw"
	echo
	echo "# CPU profile of api=v2.Marshal/id=idkit (go tool pprof -top -cum), the driver's per-value reflection"
	go tool pprof -top -cum "$tmp/mongocompat.test" "$tmp/cpu.out" 2>/dev/null |
		grep -E 'flat%|Total samples|reflect\.\(\*rtype\)\.Implements|valueMarshalerEncodeValue|valueUnmarshalerDecodeValue|isImplementationNil|bson\.isEmpty|bson\.Marshal$|bson\.Unmarshal$'
	echo
	echo "# raw"
	cat "$raw"
} >results/mongodb.txt
cat results/mongodb.txt
