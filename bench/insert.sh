#!/usr/bin/env bash
# Runs the insert benchmark (cmd/insertbench) with its defaults: 3M rows
# per run into PostgreSQL and MariaDB, raw multi-row INSERTs and GORM with
# gormplugin, every key kind, the kinds taking turns. Writes
# results/insert.md, the table docs/benchmarks.md includes; copy it there
# with `go -C tools run ./docgen` from the repository root.
# Usage: bench/insert.sh [repetitions] [insertbench flags...]
# DSNs: IDKIT_POSTGRES_DSN and IDKIT_MYSQL_DSN, or -pg and -mysql.
set -euo pipefail
cd "$(dirname "$0")"
reps=${1:-3}
shift || true
mkdir -p results
go run ./cmd/insertbench -reps "$reps" -json results/insert.json -out results/insert.md "$@"
