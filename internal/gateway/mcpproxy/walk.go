package mcpproxy

import "sort"

// eachString calls fn with every string in a decoded JSON value and the
// object key it stands under (the nearest one; "" at the top, and array
// elements keep their array's key). Object keys are visited in sorted
// order, so what is found first does not depend on map order. It stops
// as soon as fn returns false and reports whether it went through.
func eachString(v any, fn func(key, s string) bool) bool {
	var walk func(key string, v any) bool
	walk = func(key string, v any) bool {
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
