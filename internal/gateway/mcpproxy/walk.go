package mcpproxy

import (
	"sort"

	"github.com/parallax/parallax/action"
)

// maxWalkDepth bounds the walks over decoded JSON values. Arguments are
// refused past action.MaxJSONDepth before they are decoded; this is
// defence in depth for a value that did not pass there.
const maxWalkDepth = action.MaxJSONDepth

// eachString calls fn with every string in a decoded JSON value and the
// object key it stands under (the nearest one; "" at the top, and array
// elements keep their array's key). Object keys are visited in sorted
// order, so what is found first does not depend on map order. It stops
// as soon as fn returns false and reports whether it went through. A
// value nested deeper than maxWalkDepth stops it too: it did not go
// through.
func eachString(v any, fn func(key, s string) bool) bool {
	depth := 0
	var walk func(key string, v any) bool
	walk = func(key string, v any) bool {
		switch v.(type) {
		case []any, map[string]any:
			if depth++; depth > maxWalkDepth {
				return false
			}
			defer func() { depth-- }()
		}
		switch x := v.(type) {
		case string:
			return fn(key, x)
		case []any:
			for _, e := range x {
				if !walk(key, e) {
					return false
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !walk(k, x[k]) {
					return false
				}
			}
		}
		return true
	}
	return walk("", v)
}

// eachText calls fn with every object key and every string of a decoded
// JSON value (keys in sorted order, each before what it holds), as
// eachString walks it: it stops when fn returns false or past
// maxWalkDepth, and reports whether it went through.
func eachText(v any, fn func(s string) bool) bool {
	depth := 0
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return fn(x)
		case []any:
			if depth++; depth > maxWalkDepth {
				return false
			}
			defer func() { depth-- }()
			for _, e := range x {
				if !walk(e) {
					return false
				}
			}
		case map[string]any:
			if depth++; depth > maxWalkDepth {
				return false
			}
			defer func() { depth-- }()
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !fn(k) || !walk(x[k]) {
					return false
				}
			}
		}
		return true
	}
	return walk(v)
}
