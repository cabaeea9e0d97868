package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Access says what an action does to a path. Values combine as a bit set.
type Access uint8

// Access bits.
const (
	AccessRead Access = 1 << iota
	AccessWrite
	AccessDelete
)

// String renders the access set, e.g. "read+delete".
func (a Access) String() string {
	s := ""
	for _, p := range []struct {
		bit  Access
		name string
	}{{AccessRead, "read"}, {AccessWrite, "write"}, {AccessDelete, "delete"}} {
		if a&p.bit != 0 {
			if s != "" {
				s += "+"
			}
			s += p.name
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// PathField points at one path inside a payload.
type PathField struct {
	Name   string // payload field name, e.g. "path" or "attachments[1]"
	Path   *string
	Access Access
}

// TextField is free text in a payload that reaches a sink or an
// interpreter: a mail body, a request URL, a task handed to a sub-agent.
type TextField struct {
	Name  string
	Value string
}

// Payload is the typed body of an action.
type Payload interface {
	validate() error
	// PathFields lists the paths the payload names, with what it does to each.
	PathFields() []PathField
	// Texts lists free-text fields that carry data or instructions outward.
	Texts() []TextField
}

// StringList accepts a JSON string or an array of strings.
type StringList []string

// UnmarshalJSON reads "a" or ["a","b"].
func (l *StringList) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = StringList{s}
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return errors.New("want a string or an array of strings")
	}
	*l = a
	return nil
}

func required(name, v string) error {
	if v == "" {
		return fmt.Errorf("payload field %q is required", name)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

type noPaths struct{}

func (noPaths) PathFields() []PathField { return nil }

type noTexts struct{}

func (noTexts) Texts() []TextField { return nil }

// EmptyPayload is the body of actions that take no arguments.
type EmptyPayload struct {
	noPaths
	noTexts
}

func (*EmptyPayload) validate() error { return nil }

// ReadFilePayload is read_file.
type ReadFilePayload struct {
	noTexts
	Path   string `json:"path"`
	Offset Int    `json:"offset,omitempty"`
	Limit  Int    `json:"limit,omitempty"`
}

func (p *ReadFilePayload) validate() error {
	if p.Offset < 0 || p.Limit < 0 {
		return errors.New("payload fields \"offset\" and \"limit\" must not be negative")
	}
	return required("path", p.Path)
}

// PathFields implements Payload.
func (p *ReadFilePayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessRead}}
}

// WriteFilePayload is write_file.
type WriteFilePayload struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Append  bool   `json:"append,omitempty"`
}

func (p *WriteFilePayload) validate() error { return required("path", p.Path) }

// PathFields implements Payload.
func (p *WriteFilePayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessWrite}}
}

// Texts implements Payload.
func (p *WriteFilePayload) Texts() []TextField { return []TextField{{"content", p.Content}} }

// EditFilePayload is edit_file.
type EditFilePayload struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

func (p *EditFilePayload) validate() error { return required("path", p.Path) }

// PathFields implements Payload.
func (p *EditFilePayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessRead | AccessWrite}}
}

// Texts implements Payload.
func (p *EditFilePayload) Texts() []TextField { return []TextField{{"new", p.New}} }

// DeleteFilePayload is delete_file.
type DeleteFilePayload struct {
	noTexts
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
}

func (p *DeleteFilePayload) validate() error { return required("path", p.Path) }

// PathFields implements Payload.
func (p *DeleteFilePayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessDelete}}
}

// TransferPayload is move_file and copy_file.
type TransferPayload struct {
	noTexts
	Source      string `json:"source"`
	Destination string `json:"destination"`
	move        bool
}

func (p *TransferPayload) validate() error {
	return firstErr(required("source", p.Source), required("destination", p.Destination))
}

// PathFields implements Payload. A move deletes its source.
func (p *TransferPayload) PathFields() []PathField {
	src := AccessRead
	if p.move {
		src |= AccessDelete
	}
	return []PathField{{"source", &p.Source, src}, {"destination", &p.Destination, AccessWrite}}
}

// CreateDirectoryPayload is create_directory.
type CreateDirectoryPayload struct {
	noTexts
	Path string `json:"path"`
}

func (p *CreateDirectoryPayload) validate() error { return required("path", p.Path) }

// PathFields implements Payload.
func (p *CreateDirectoryPayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessWrite}}
}

// ListDirectoryPayload is list_directory.
type ListDirectoryPayload struct {
	noTexts
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
}

func (p *ListDirectoryPayload) validate() error { return required("path", p.Path) }

// PathFields implements Payload.
func (p *ListDirectoryPayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessRead}}
}

// SearchFilesPayload is search_files.
type SearchFilesPayload struct {
	noTexts
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
}

func (p *SearchFilesPayload) validate() error {
	return firstErr(required("path", p.Path), required("pattern", p.Pattern))
}

// PathFields implements Payload.
func (p *SearchFilesPayload) PathFields() []PathField {
	return []PathField{{"path", &p.Path, AccessRead}}
}

// ExecuteCommandPayload is execute_command. Its paths come from shell
// analysis, not from the payload.
type ExecuteCommandPayload struct {
	noPaths
	Command        string `json:"command"`
	TimeoutSeconds Int    `json:"timeout_seconds,omitempty"`
}

func (p *ExecuteCommandPayload) validate() error {
	if p.TimeoutSeconds < 0 {
		return errors.New("payload field \"timeout_seconds\" must not be negative")
	}
	return required("command", p.Command)
}

// Texts implements Payload.
func (p *ExecuteCommandPayload) Texts() []TextField {
	return []TextField{{"command", p.Command}}
}

// Int is an integer payload field that accepts any JSON spelling of an
// integral number (10, 10.0, 1e1), so number formatting cannot make two
// equal actions decode differently.
type Int int64

// UnmarshalJSON reads an integral JSON number.
func (n *Int) UnmarshalJSON(b []byte) error {
	var num json.Number
	if err := json.Unmarshal(b, &num); err != nil {
		return errors.New("want a number")
	}
	if i, err := num.Int64(); err == nil {
		*n = Int(i)
		return nil
	}
	f, err := num.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return fmt.Errorf("want an integer, got %s", num)
	}
	*n = Int(int64(f))
	return nil
}
