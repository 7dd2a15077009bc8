#!/usr/bin/env bash
# Runs idkit's benchmarks beside its peers' in one run and prints the target
# table and every idkit/peer ratio. Usage: bench/run.sh [count]
# Writes results/latest.txt (raw), results/latest.md (tables),
# results/summary.md (the README's table) and results/throughput.svg
# (chart). With count 5 it takes about 10 minutes on
# two cores; the sustained rows, whose every run lasts seconds and sorts or
# merges every ID made, run min(count, 3) times.
#
# - Generation over a fixed number of IDs per run, on 1 goroutine and on
#   every core: ObjectID over 4,000,000 IDs; Snowflake, UUIDv7 and ULID over
#   8,000,000, so that the Snowflake format's cap (4096 IDs per ms without
#   borrowing) shows as such rather than as a start-up effect.
# - A leased Snowflake generator (SQLite lease) beside a plain one, over
#   4,000,000 IDs.
# - Hex, JSON, SQL and BSON encoding and decoding.
# - Sustained windows flat out: Snowflake one second on 1 and 2 goroutines,
#   failing on any duplicate; ObjectID two seconds on every core with
#   duplicates counted (mongo-driver's 3-byte counter wraps after 2^24 IDs
#   in a second).
# - Process CPU per ID (getrusage) at 1, 10, 1k and 100k IDs/s and flat out,
#   beside bwmarrin, mongo-driver v2 and no generator at all.
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-5}
slow=$(( count < 3 ? count : 3 ))
mkdir -p results
b() { go test -run '^$' -timeout 60m "$@" .; }
{
	b -bench '^BenchmarkGenerate(Parallel)?$/^ObjectID/' -benchtime 4000000x -count "$count"
	b -bench '^BenchmarkGenerate(Parallel)?$/^(Snowflake|UUIDv7|ULID)/' -benchtime 8000000x -count "$count"
	b -bench '^BenchmarkLeased$' -benchtime 4000000x -count "$count"
	b -bench '^Benchmark(Hex|JSON|ValueScan|BSON)' -benchtime 500ms -count "$count"
	b -bench '^BenchmarkSustained$' -benchtime 1x -count "$slow"
	b -bench '^BenchmarkRate$' -benchtime 1x -count "$count"
} | tee results/latest.txt
go run ./cmd/benchreport -svg results/throughput.svg -summary results/summary.md < results/latest.txt | tee results/latest.md
