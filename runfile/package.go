package runfile

import (
	"encoding/json"
	"sort"
)

// packageUnits returns the scripts of a package.json named in sel (all
// of them when sel is nil), in order, each once.
func packageUnits(file, dir, content string, sel []string) ([]Unit, string) {
	var pkg struct {
		Scripts map[string]json.RawMessage `json:"scripts"`
	}
	if err := json.Unmarshal([]byte(content), &pkg); err != nil {
		return nil, file + " is not valid JSON"
	}
	if sel == nil {
		for name := range pkg.Scripts {
			sel = append(sel, name)
		}
		sort.Strings(sel)
	}
	var units []Unit
	unknown := ""
	seen := map[string]bool{}
	for _, name := range sel {
		raw, ok := pkg.Scripts[name]
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		var code string
		if err := json.Unmarshal(raw, &code); err != nil {
			unknown = file + " script " + name + " is not a string"
			continue
		}
		if len(units) >= MaxUnits {
			return units, file + " has more than " + itoa(MaxUnits) + " scripts"
		}
		units = append(units, Unit{File: file, Part: "script " + name, Lang: "sh", Code: code, Dir: dir})
	}
	return units, unknown
}

// npmLifecycle are the scripts npm (and yarn, pnpm) run around an
// install of the package itself.
var npmLifecycle = []string{"preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"}

// withPrePost returns pre<name>, name, post<name>.
func withPrePost(name string) []string {
	return []string{"pre" + name, name, "post" + name}
}
