#!/usr/bin/env bash
# Runs idkit's benchmarks beside its peers' in one run and prints the ratio
# table (idkit / peer). Usage: bench/run.sh [count]
# Writes results/latest.txt (raw), results/latest.md (table) and
# results/throughput.svg (chart).
#
# Generation is measured over a fixed 8,000,000 IDs per run: an ObjectID
# generator may make at most 2^24 IDs in one second (the format's 3-byte
# counter; idkit waits for the next second rather than wrap), so a longer
# run would measure that cap instead of the cost per ID. Sustained runs
# measure one second flat out, with duplicate checks.
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
