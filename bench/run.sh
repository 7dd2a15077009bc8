#!/usr/bin/env bash
# Runs idkit's benchmarks beside its peers' in one run and prints the ratio
# table (idkit / peer). Usage: bench/run.sh [count]
# Writes results/latest.txt (raw), results/latest.md (table) and
# results/throughput.svg (chart).
#
# Generation is measured over a fixed 8,000,000 IDs per run, so that a
# generator's cap (4096 Snowflake IDs per ms without borrowing) is not what
# is measured. Sustained runs measure whole windows flat out: Snowflake one
# second with duplicate checks; ObjectID two seconds on every core with
# duplicates counted (mongo-driver's 3-byte counter wraps after 2^24 IDs in
# a second).
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-5}
mkdir -p results
{
	go test -run '^$' -bench '^BenchmarkGenerate' -benchtime 8000000x -count "$count" -timeout 60m .
	go test -run '^$' -bench '^Benchmark(Hex|JSON|ValueScan|BSON)' -count "$count" -timeout 60m .
	go test -run '^$' -bench '^BenchmarkSustained' -benchtime 1x -count "$count" -timeout 60m .
} | tee results/latest.txt
go run ./cmd/benchreport -svg results/throughput.svg < results/latest.txt | tee results/latest.md
