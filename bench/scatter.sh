#!/usr/bin/env bash
# Measures what keys in a scatter form cost to make beside ordered IDs
# (BenchmarkScatter): Snowflake plain, reversed and shard:4, ObjectID and
# UUIDv7 plain and shard:8, on 1 goroutine. Usage: bench/scatter.sh [rounds]
#
# Each round runs every form once per kind, so load that drifts during the
# run falls on all of them alike. Writes results/scatter.txt (raw,
# benchstat's input) and results/scatter.md, which docs/benchmarks.md
# includes: benchstat's table (medians, one column per form against plain)
# and each form's fastest run beside plain's, the least disturbed by other
# work on a shared machine, with the difference and the ratio.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-8}
bin=$(mktemp)
dir=$(mktemp -d)
trap 'rm -f "$bin"; rm -rf "$dir"' EXIT
go test -c -o "$bin" .
{
	for _ in $(seq "$rounds"); do
		for form in plain reversed shard4 shard8; do
			"$bin" -test.run '^$' -test.bench "^BenchmarkScatter\$/^[A-Za-z0-9]*/${form}\$" \
				-test.benchtime 2000000x -test.cpu 1 -test.count 1
		done
	done
} | tee results/scatter.txt
for form in plain reversed shard4 shard8; do
	grep -v '^Benchmark' results/scatter.txt | grep -v '^PASS' | sort -u > "$dir/$form"
	sed -n "s|^\(BenchmarkScatter/[A-Za-z0-9]*\)/$form\([- ]\)|\1\2|p" results/scatter.txt >> "$dir/$form"
done
{
	echo '```'
	(cd "$dir" && go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da -filter '.unit:sec/op' plain reversed shard4 shard8)
	echo '```'
	echo
	echo '| kind | form | fastest run | plain, fastest run | difference | ratio |'
	echo '|---|---|---:|---:|---:|---:|'
	awk '$1 ~ /^BenchmarkScatter\// && $4 == "ns/op" {
		split($1, p, "/"); kind = p[2]; form = p[3]; sub(/-[0-9]+$/, "", form)
		k = kind "/" form
		if (!(k in best) || $3 < best[k]) best[k] = $3
		if (!(k in seen)) { seen[k] = 1; order[n++] = k }
	}
	END {
		for (i = 0; i < n; i++) {
			split(order[i], p, "/")
			if (p[2] == "plain") continue
			base = best[p[1] "/plain"]
			printf "| %s | %s | %.1f ns | %.1f ns | %+.1f ns | %.2f |\n", p[1], p[2], best[order[i]], base, best[order[i]] - base, best[order[i]] / base
		}
	}' results/scatter.txt
} > results/scatter.md
cat results/scatter.md
