package policy

import (
	"embed"

	"os"
	"path/filepath"

	"github.com/parallax/parallax/internal/memo"
	"github.com/parallax/parallax/internal/yamlfile"
)

//go:embed presets/*.yaml
var presetFS embed.FS

var presets = yamlfile.Presets{FS: presetFS, Dir: "presets", Kind: "policy"}

// PresetNames lists the embedded presets: default, permissive, strict.
func PresetNames() []string { return presets.Names() }

// PresetSource returns the YAML text of a preset.
func PresetSource(name string) ([]byte, error) { return presets.Source(name) }

// Preset compiles an embedded preset. Its rules' source is "preset:NAME".
// A compiled preset depends only on the embedded text and v, and a Policy
// is never changed once compiled (With builds a new one), so compilations
// are remembered: a process that builds many gates (the hook daemon)
// parses each preset once per workspace and home.
func Preset(name string, v Vars) (*Policy, error) {
	key := name + "\x00" + v.Workspace + "\x00" + v.Home
	if p, ok := compiledPresets.Get(key); ok {
		return p, nil
	}
	data, err := PresetSource(name)
	if err != nil {
		return nil, err
	}
	p, err := Parse("preset:"+name, data, v)
	if err == nil {
		compiledPresets.Put(key, p)
	}
	return p, err
}

// compiledPresets remembers compiled presets by name and Vars.
var compiledPresets = memo.New[*Policy](64)

// IsPreset reports whether name is an embedded preset.
func IsPreset(name string) bool {
	for _, n := range PresetNames() {
		if n == name {
			return true
		}
	}
	return false
}

// Resolve compiles a --policy value: a preset name, else a file path. A
// file that shares a preset's name is reached as "./NAME". An empty spec
// means the default preset.
func Resolve(spec string, v Vars) (*Policy, error) {
	if spec == "" {
		spec = "default"
	}
	if IsPreset(spec) {
		return Preset(spec, v)
	}
	return Load(spec, v)
}

// UserFile is where a directory keeps its user rules: DIR/.parallax/policy.yaml.
func UserFile(dir string) string { return filepath.Join(dir, ".parallax", "policy.yaml") }

// Layered resolves spec and layers the user rules of ~/.parallax/policy.yaml
// and $WORKSPACE/.parallax/policy.yaml over it (With), skipping files
// that do not exist. Any other error reading or compiling them fails.
func Layered(spec string, v Vars) (*Policy, error) {
	base, err := Resolve(spec, v)
	if err != nil {
		return nil, err
	}
	var layers []*Policy
	for _, dir := range []string{v.Home, v.Workspace} {
		if dir == "" {
			continue
		}
		f := UserFile(dir)
		if _, err := os.Stat(f); os.IsNotExist(err) {
			continue
		}
		u, err := Load(f, v)
		if err != nil {
			return nil, err
		}
		layers = append(layers, u)
		if v.Home == v.Workspace {
			break
		}
	}
	return base.With(layers...), nil
}
