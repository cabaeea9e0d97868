# The same gates CI runs. `make test` is the README's test command.
GO        ?= go
FUZZTIME  ?= 60s
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
	$(GO) test ./shell/  -run='^$$' -fuzz=FuzzAnalyze -fuzztime=$(FUZZTIME)
	$(GO) test ./shell/  -run='^$$' -fuzz=FuzzFastParse -fuzztime=$(FUZZTIME)
	$(GO) test ./action/ -run='^$$' -fuzz=FuzzFastCommand -fuzztime=$(FUZZTIME)
	$(GO) test ./action/ -run='^$$' -fuzz=FuzzHashCommand -fuzztime=$(FUZZTIME)
	$(GO) test ./guard/  -run='^$$' -fuzz=FuzzSegEnd -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/shglob/ -run='^$$' -fuzz=FuzzLastBytesBash -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/shglob/ -run='^$$' -fuzz=FuzzLastBytesGo -fuzztime=$(FUZZTIME)
	$(GO) test ./policy/ -run='^$$' -fuzz=FuzzParse   -fuzztime=$(FUZZTIME)
	$(GO) test ./action/ -run='^$$' -fuzz=FuzzDecode  -fuzztime=$(FUZZTIME)
	$(GO) test ./shield/ -run='^$$' -fuzz=FuzzStream  -fuzztime=$(FUZZTIME)
	$(GO) test ./ifc/    -run='^$$' -fuzz=FuzzParse   -fuzztime=$(FUZZTIME)
	$(GO) test ./ifc/    -run='^$$' -fuzz='^FuzzSegIntersect$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./ifc/    -run='^$$' -fuzz=FuzzEvaluateCommand -fuzztime=$(FUZZTIME)
	$(GO) test ./audit/  -run='^$$' -fuzz=FuzzVerify  -fuzztime=$(FUZZTIME)
	$(GO) test ./audit/  -run='^$$' -fuzz=FuzzParseAgree -fuzztime=$(FUZZTIME)
	$(GO) test ./dlp/    -run='^$$' -fuzz=FuzzScan    -fuzztime=$(FUZZTIME)
	$(GO) test ./chronicle/ -run='^$$' -fuzz=FuzzLineDiff -fuzztime=$(FUZZTIME)
	$(GO) test ./approval/ -run='^$$' -fuzz=FuzzRedactPayload -fuzztime=$(FUZZTIME)
	$(GO) test ./approval/ -run='^$$' -fuzz=FuzzVerifySignature -fuzztime=$(FUZZTIME)
	$(GO) test ./action/ -run='^$$' -fuzz=FuzzDuplicateKeys -fuzztime=$(FUZZTIME)
	$(GO) test ./llm/ -run='^$$' -fuzz='^FuzzSSEReader$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./llm/ -run='^$$' -fuzz='^FuzzParseConfig$$' -fuzzminimizetime=2s -fuzztime=$(FUZZTIME)

corpus:
	$(GO) run ./cmd/parallax eval testdata/corpus

nl2bash:
	$(GO) run ./cmd/parallax shield bench ../shared/corpora/nl2bash/all.cm
