#!/usr/bin/env bash
# Measures one encode plus one decode of a public ID: idkit's publicid
# beside sqids-go and go-hashids (Snowflake rows), and idkit's ObjectID,
# UUID and TypeID rows. Usage: bench/publicid.sh [rounds]
#
# Each round runs every implementation once per row, so load that drifts
# during the run falls on all of them alike. Writes results/publicid.txt
# (raw, benchstat's input) and results/publicid.md (benchstat's tables,
# which docs/publicid.md includes). "bench/publicid.sh report" only
# remakes results/publicid.md from results/publicid.txt.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-6}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
[ "$rounds" = report ] || {
go test -c -o "$bin" .
{
	for _ in $(seq "$rounds"); do
		for impl in idkit sqids hashids idkit-append; do
			"$bin" -test.run '^$' -test.bench "^BenchmarkPublicID\$/^Snowflake\$/^${impl}\$" \
				-test.benchtime 1s -test.count 1
		done
		"$bin" -test.run '^$' -test.bench '^BenchmarkPublicID$/^(ObjectID|UUID|TypeID)$' \
			-test.benchtime 1s -test.count 1
	done
} | tee results/publicid.txt
}
# The Snowflake rows, one benchstat column per implementation, sqids-go's
# first: benchstat prints each other column's change against it. Then
# idkit's other rows.
dir=$(mktemp -d)
trap 'rm -f "$bin"; rm -rf "$dir"' EXIT
grep -v '^Benchmark' results/publicid.txt | grep -v '^PASS' | grep -v '^ok' | sort -u > "$dir/header"
for impl in sqids idkit idkit-append hashids; do
	cp "$dir/header" "$dir/$impl"
	sed -En "s#^(BenchmarkPublicID/Snowflake)/${impl}(-[0-9]+)?([[:space:]])#\1\2\3#p" results/publicid.txt >> "$dir/$impl"
done
cp "$dir/header" "$dir/kinds"
grep -E '^BenchmarkPublicID/(ObjectID|UUID|TypeID)/' results/publicid.txt >> "$dir/kinds"
benchstat="go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
{
	echo '```'
	(cd "$dir" && $benchstat sqids idkit idkit-append hashids)
	echo
	(cd "$dir" && $benchstat kinds)
	echo '```'
} > results/publicid.md
cat results/publicid.md
