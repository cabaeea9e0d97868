# The same gates CI runs. `make test` is the README's test command.
GO        ?= go
FUZZTIME  ?= 60s
# Minimising a new crasher or corpus entry defaults to 60s per input, which
# ate a fuzzer's whole budget; a few seconds keeps each fuzzer fuzzing.
FUZZMIN   ?= 5s
FUZZ       = $(GO) test -run='^$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMIN)
export CGO_ENABLED ?= 0

.PHONY: build test lint bench fuzz corpus nl2bash

build:
	$(GO) build -trimpath -o bin/parallax ./cmd/parallax

test:
	CGO_ENABLED=1 $(GO) test -race ./...

lint:
	gofmt -l . | (! grep .) || (echo "gofmt would change the files above" && exit 1)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@2025.1.1 ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./shield/ ./shell/ ./action/ ./guard/ ./policy/ ./heuristic/ ./ifc/ ./audit/ ./dlp/ ./chronicle/ ./internal/store/ ./approval/ ./judge/ ./llm/

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
	$(FUZZ) ./policy/ -fuzz=FuzzParse
	$(FUZZ) ./action/ -fuzz=FuzzDecode
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

corpus:
	$(GO) run ./cmd/parallax eval testdata/corpus

nl2bash:
	$(GO) run ./cmd/parallax shield bench ../shared/corpora/nl2bash/all.cm
