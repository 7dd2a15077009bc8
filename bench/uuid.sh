#!/usr/bin/env bash
# Measures types.NewUUIDv7 beside Go 1.27's uuid.NewV7 and google/uuid's
# NewV7, on 1 goroutine and on every core, with -cpu 1 and 2. The standard
# library rows need Go 1.27 (std_test.go), so the toolchain is go1.27.4
# unless GOTOOLCHAIN says otherwise. Usage: bench/uuid.sh [rounds]
#
# Each round runs every implementation once per row, so load that drifts
# during the run falls on all of them alike. Writes results/uuid.txt (raw,
# benchstat's input) and results/uuid.md (benchstat's table, which
# docs/benchmarks.md includes).
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-8}
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.4}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" .
{
	for _ in $(seq "$rounds"); do
		for impl in idkit std google; do
			"$bin" -test.run '^$' -test.bench "^BenchmarkGenerate(Parallel)?\$/^UUIDv7/${impl}\$" \
				-test.benchtime 2000000x -test.cpu 1,2 -test.count 1
		done
	done
} | tee results/uuid.txt
# One benchstat column per implementation, the standard library's first:
# benchstat prints each other column's change against it.
dir=$(mktemp -d)
trap 'rm -f "$bin"; rm -rf "$dir"' EXIT
for impl in std idkit google; do
	grep -v '^Benchmark' results/uuid.txt | grep -v '^PASS' | sort -u > "$dir/$impl"
	sed -n "s|^\(Benchmark[A-Za-z]*/UUIDv7\)/$impl\([- ]\)|\1\2|p" results/uuid.txt >> "$dir/$impl"
done
{
	echo '```'
	(cd "$dir" && go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da -filter '.unit:sec/op' std idkit google)
	echo '```'
} > results/uuid.md
cat results/uuid.md
