#!/usr/bin/env bash
# Builds the Kubernetes API server v1.37.2 that this module's tests run
# (IDKIT_KUBE_APISERVER), from the Go module proxy, the way the binary the
# CI machines carry was built: k8s.io/kubernetes v1.37.2 with each of its
# staging modules replaced by the same module at v0.37.2. It takes about 5
# minutes on 2 cores and 3 GB of memory.
# Usage: build-kube-apiserver.sh [output path] (default ./kube-apiserver)
set -euo pipefail
out=$(realpath -m "${1:-kube-apiserver}")
mkdir -p "$(dirname "$out")"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cd "$src"
cat >go.mod <<'MOD'
module kapi

go 1.26.0

require k8s.io/kubernetes v1.37.2
MOD
for m in k8s.io/api k8s.io/apiextensions-apiserver k8s.io/apimachinery k8s.io/apiserver k8s.io/cli-runtime k8s.io/client-go k8s.io/cloud-provider k8s.io/cluster-bootstrap k8s.io/code-generator k8s.io/component-base k8s.io/component-helpers k8s.io/controller-manager k8s.io/cri-api k8s.io/cri-client k8s.io/cri-streaming k8s.io/csi-translation-lib k8s.io/dynamic-resource-allocation k8s.io/endpointslice k8s.io/externaljwt k8s.io/kms k8s.io/kube-aggregator k8s.io/kube-controller-manager k8s.io/kube-proxy k8s.io/kube-scheduler k8s.io/kubectl k8s.io/kubelet k8s.io/metrics k8s.io/mount-utils k8s.io/pod-security-admission k8s.io/sample-apiserver k8s.io/sample-cli-plugin k8s.io/sample-controller k8s.io/streaming ; do
	echo "replace $m => $m v0.37.2" >>go.mod
done
printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\nfunc main() {}\n' >main.go
go mod tidy
go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=v1.37.2 \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37" \
	-o "$out" k8s.io/kubernetes/cmd/kube-apiserver
echo "built $out"
