#!/usr/bin/env bash
# Regenerates the Go code of proto/parallax/v1 from its .proto files.
#
#   proto/generate.sh          write next to the sources (commit the result)
#   proto/generate.sh OUTDIR   write the tree under OUTDIR instead (.ci/proto-check)
#
# Needs protoc on PATH (Debian: apt-get install protobuf-compiler). The Go
# plugins are pinned below and built into a temporary directory, so the
# versions on the machine do not matter.
set -euo pipefail

PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/proto}"

if ! command -v protoc >/dev/null; then
	echo "generate.sh: protoc not found on PATH (apt-get install -y protobuf-compiler)" >&2
	exit 1
fi

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" GOFLAGS=-mod=mod go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
GOBIN="$bin" GOFLAGS=-mod=mod go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION"

mkdir -p "$out"
cd "$root/proto"
protoc \
	--plugin=protoc-gen-go="$bin/protoc-gen-go" \
	--plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
	-I . \
	--go_out="$out" --go_opt=paths=source_relative \
	--go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
	parallax/v1/*.proto
