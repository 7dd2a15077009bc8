#!/usr/bin/env bash
# Runs idkit's benchmarks beside its peers' in one run and prints the ratio
# table (idkit / peer). Usage: bench/run.sh [count] [benchmark regexp]
# Writes bench/results/latest.txt (raw), latest.md (table), throughput.svg.
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-5}
pattern=${2:-.}
mkdir -p results
go test -run '^$' -bench "$pattern" -count "$count" -timeout 60m . | tee results/latest.txt
go run ./cmd/benchreport -svg results/throughput.svg < results/latest.txt | tee results/latest.md
