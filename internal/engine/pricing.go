package engine

import (
	"math"
	"net/netip"
	"net/url"
	"strings"

	"github.com/parallax/parallax/llm"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	InputPerMTok, OutputPerMTok float64
}

// priceTable is the built-in list prices (USD per million tokens) by
// model-name prefix, longest prefix first within a family. Operators
// override or extend it with agent.prices in config.yaml; a model of a
// paid provider that is in neither is refused (its cost could not be
// held against the budget).
var priceTable = []struct {
	prefix string
	price  Price
}{
	{"claude-opus-4", Price{15, 75}},
	{"claude-sonnet-4", Price{3, 15}},
	{"claude-3-7-sonnet", Price{3, 15}},
	{"claude-3-5-sonnet", Price{3, 15}},
	{"claude-haiku-4", Price{1, 5}},
	{"claude-3-5-haiku", Price{0.8, 4}},
	{"gpt-4.1-nano", Price{0.1, 0.4}},
	{"gpt-4.1-mini", Price{0.4, 1.6}},
	{"gpt-4.1", Price{2, 8}},
	{"gpt-4o-mini", Price{0.15, 0.6}},
	{"gpt-4o", Price{2.5, 10}},
	{"gpt-5-nano", Price{0.05, 0.4}},
	{"gpt-5-mini", Price{0.25, 2}},
	{"gpt-5", Price{1.25, 10}},
	{"o4-mini", Price{1.1, 4.4}},
	{"o3-mini", Price{1.1, 4.4}},
	{"o3", Price{2, 8}},
	{"gemini-2.5-pro", Price{1.25, 10}},
	{"gemini-2.5-flash-lite", Price{0.1, 0.4}},
	{"gemini-2.5-flash", Price{0.3, 2.5}},
	{"gemini-2.0-flash", Price{0.1, 0.4}},
}

// free are the providers that cost nothing per token (local servers,
// scripts).
var free = map[llm.ProviderKind]bool{
	llm.ProviderOllama:   true,
	llm.ProviderVLLM:     true,
	llm.ProviderScripted: true,
}

// priceOf finds the price of a pool entry: the configured one by model
// name, the built-in table, or free for local providers, which includes
// an openai_compatible server on this machine (llama.cpp, vLLM, LM
// Studio on loopback). ok is false when none is known.
func priceOf(ref llm.ModelRef, override map[string]Price) (Price, bool) {
	if p, ok := override[ref.Model]; ok {
		return p, true
	}
	if free[ref.Provider] || ref.Provider == llm.ProviderOpenAICompatible && onLoopback(ref.BaseURL) {
		return Price{}, true
	}
	for _, e := range priceTable {
		if strings.HasPrefix(ref.Model, e.prefix) {
			return e.price, true
		}
	}
	return Price{}, false
}

// costMicro is the cost of u in millionths of a dollar, rounded up: a
// price per million tokens is the price of one token in micro-USD.
func (p Price) costMicro(u llm.Usage) int64 {
	c := float64(u.InputTokens)*p.InputPerMTok + float64(u.OutputTokens)*p.OutputPerMTok
	if c <= 0 || math.IsNaN(c) {
		return 0
	}
	if c >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(math.Ceil(c))
}

// onLoopback reports whether a base URL names this machine: localhost or
// a loopback address. A name that merely resolves to loopback does not
// count (it could resolve elsewhere tomorrow).
func onLoopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}
