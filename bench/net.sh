#!/usr/bin/env bash
# Runs insertbench's network scenarios (-net) through the delaying proxy at
# round trips of 0 (straight to the server), 0.5 ms and 2 ms, on PostgreSQL
# and MariaDB, with the sequence, Snowflake, ObjectID, UUIDv7 and UUIDv4
# keys. Writes results/net-*.md and results/net-*.json; the chart in
# docs/benchmarks.md is drawn from the JSON by `go -C tools run ./netchart`.
# Usage: bench/net.sh [insertbench flags...], added to every run.
# DSNs: IDKIT_POSTGRES_DSN and IDKIT_MYSQL_DSN, or -pg and -mysql.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results
keys=seq,snowflake,objectid,uuidv7,uuidv4
bin=$(mktemp -d)/insertbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/insertbench
run() {
	local name=$1
	shift
	"$bin" -keys "$keys" -rtt 0,500us,2ms -json "results/net-$name.json" -out "results/net-$name.md" "$@"
}
# Bulk loads of 1M rows: the sequence's keyed path against COPY / LOAD DATA.
run bulk -net bulk -methods returning,insert,copy,loaddata -netrows 1000000 -reps 2 "$@"
# The same through GORM's CreateInBatches, 200,000 rows.
run bulk-gorm -net bulk -methods gorm -netrows 200000 -reps 2 "$@"
# Orders: 5,000 orders of 10 lines, two round trips against one.
run orders -net orders -methods two,pipelined -orders 5000 "$@"
# GORM's association create, 1,000 orders.
run orders-gorm -net orders -methods gorm -orders 1000 "$@"
# Lost replies: 20 batches of 1,000 rows each.
run retry -net retry -retrybatches 20 "$@"
