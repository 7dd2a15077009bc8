# Shell functions the .ci scripts share (sourced, not run).

# idkit_clean_cache VERSION: removes VERSION of idkit's modules from the
# module cache (the throwaway releases of .ci/release-check), chmod first:
# the module cache is read-only. Other versions stay.
idkit_clean_cache() {
	local version=$1 cache base dl d
	[ -n "$version" ] || return 0
	cache=$(go env GOMODCACHE)
	base="$cache/github.com/idkit-go"
	dl="$cache/cache/download/github.com/idkit-go"
	[ -d "$base" ] && chmod -R u+w "$base"
	[ -d "$dl" ] && chmod -R u+w "$dl"
	[ -d "$base" ] && find "$base" -maxdepth 3 -name "*@$version" -exec rm -rf {} +
	if [ -d "$dl" ]; then
		find "$dl" -path "*/@v/$version.*" -delete
		# @v/list only lists what the cache holds: gone with the last version.
		find "$dl" -type d -name @v | while read -r d; do
			ls "$d" | grep -qv '^list' || rm -f "$d"/list*
		done
	fi
	for d in "$base" "$dl"; do [ -d "$d" ] && find "$d" -depth -type d -empty -delete; done
	return 0
}

# idkit_use_proxy DIR: serves the modules in DIR (a file:// proxy that
# .ci/release-check wrote) before the usual proxy, without checksum-database
# look-ups for idkit's modules, which no public database knows.
idkit_use_proxy() {
	export GOPROXY="file://$1,$(go env GOPROXY)"
	export GONOSUMDB=github.com/idkit-go/idkit
	export GOFLAGS=-mod=mod GOWORK=off
	unset GOPRIVATE GONOPROXY
}
