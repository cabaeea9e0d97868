# The same gates CI runs. `make test` is the README's test command.
GO        ?= go
FUZZTIME  ?= 60s
# Minimising a new crasher or corpus entry defaults to 60s per input, which
# ate a fuzzer's whole budget; a few seconds keeps each fuzzer fuzzing.
FUZZMIN   ?= 5s
FUZZ       = $(GO) test -run='^$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMIN)
export CGO_ENABLED ?= 0
# staticcheck at an exact version that resolves through the module proxy
# and builds with our Go (2025.1.1 does not exist as a module version).
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build test lint bench fuzz corpus nl2bash proto proto-check

build:
	$(GO) build -trimpath -o bin/parallax ./cmd/parallax

test:
	CGO_ENABLED=1 $(GO) test -race ./...

lint:
	gofmt -l . | (! grep .) || (echo "gofmt would change the files above" && exit 1)
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./shield/ ./sandbox/ ./shell/ ./action/ ./guard/ ./policy/ ./heuristic/ ./ifc/ ./audit/ ./dlp/ ./chronicle/ ./internal/store/ ./approval/ ./judge/ ./llm/ ./internal/engine/ ./internal/agentlink/ ./internal/egress/

fuzz:
	$(FUZZ) ./shell/ -fuzz=FuzzAnalyze
	$(FUZZ) ./shell/ -fuzz=FuzzFastParse
	$(FUZZ) ./action/ -fuzz=FuzzFastCommand
	$(FUZZ) ./action/ -fuzz=FuzzHashCommand
	$(FUZZ) ./guard/ -fuzz=FuzzSegEnd
	$(FUZZ) ./internal/glob/ -fuzz=FuzzLastBytesBash
	$(FUZZ) ./internal/glob/ -fuzz=FuzzLastBytesGo
	$(FUZZ) ./internal/glob/ -fuzz=FuzzMatchSegAgreesWithPathMatch
	$(FUZZ) ./internal/glob/ -fuzz=FuzzIntersectIsSound
	$(FUZZ) ./internal/glob/ -fuzz=FuzzSegPairMeets
	$(FUZZ) ./internal/glob/ -fuzz=FuzzSegIntersectAgreesWithOld
	$(FUZZ) ./internal/egress/ -fuzz=FuzzHandshake
	$(FUZZ) ./policy/ -fuzz=FuzzParse
	$(FUZZ) ./action/ -fuzz=FuzzDecode
	$(FUZZ) ./action/ -fuzz=FuzzParseFileURL
	$(FUZZ) ./shield/ -fuzz=FuzzStream
	$(FUZZ) ./ifc/ -fuzz=FuzzParse
	$(FUZZ) ./ifc/ -fuzz='^FuzzSegIntersect$$'
	$(FUZZ) ./ifc/ -fuzz=FuzzEvaluateCommand
	$(FUZZ) ./audit/ -fuzz=FuzzVerify
	$(FUZZ) ./audit/ -fuzz=FuzzParseAgree
	$(FUZZ) ./dlp/ -fuzz=FuzzScan
	$(FUZZ) ./chronicle/ -fuzz=FuzzLineDiff
	$(FUZZ) ./approval/ -fuzz=FuzzRedactPayload
	$(FUZZ) ./approval/ -fuzz=FuzzVerifySignature
	$(FUZZ) ./action/ -fuzz=FuzzDuplicateKeys
	$(FUZZ) ./llm/ -fuzz='^FuzzSSEReader$$'
	$(FUZZ) ./llm/ -fuzz='^FuzzParseConfig$$'
	$(FUZZ) ./internal/termtext/ -fuzz=FuzzClean
	$(FUZZ) ./llm/ -fuzz='^FuzzParseScript$$'
	$(FUZZ) ./internal/gateway/claudecode/ -fuzz=FuzzMemoryImports

corpus:
	$(GO) run ./cmd/parallax eval testdata/corpus

nl2bash:
	$(GO) run ./cmd/parallax shield bench ../shared/corpora/nl2bash/all.cm

# Regenerate proto/parallax/v1 (needs protoc; plugins are pinned in the script).
proto:
	proto/generate.sh

# Fail when the committed generated code is stale (what CI runs).
proto-check:
	bash .ci/proto-check
