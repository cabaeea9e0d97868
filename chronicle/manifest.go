package chronicle

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"strings"

	"github.com/parallax/parallax/internal/store"
)

// Domain prefixes keep a manifest hash from ever equalling a record hash.
const (
	manifestDomain = "parallax-chronicle-manifest-v1\n"
	recordDomain   = "parallax-chronicle-record-v1\n"
)

// canon writes length-prefixed fields, so no two different field lists
// encode to the same bytes.
type canon struct{ h hash.Hash }

func (c canon) str(s string) {
	var n [binary.MaxVarintLen64]byte
	c.h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
	c.h.Write([]byte(s))
}

func (c canon) i64(v int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v)) //nolint:gosec // bit pattern
	c.h.Write(b[:])
}

// manifestHash is the SHA-256 of the canonical encoding of the entries,
// which must be sorted by path.
func manifestHash(files []store.FileRecord) string {
	c := canon{sha256.New()}
	c.h.Write([]byte(manifestDomain))
	c.i64(int64(len(files)))
	for _, f := range files {
		c.str(f.Path)
		c.str(f.Type)
		c.i64(int64(f.Mode))
		c.i64(f.Size)
		c.i64(f.MtimeNS)
		c.str(f.Object)
		c.str(f.Link)
	}
	return hex.EncodeToString(c.h.Sum(nil))
}

// recordHash seals a snapshot record: every field, the manifest hash and
// the previous record's hash.
func recordHash(r *store.SnapshotRecord) string {
	c := canon{sha256.New()}
	c.h.Write([]byte(recordDomain))
	c.i64(r.ID)
	c.i64(r.CreatedAt.UnixNano())
	c.str(r.Reason)
	c.str(r.Session)
	c.i64(int64(len(r.Paths)))
	for _, p := range r.Paths {
		c.str(p)
	}
	c.i64(r.Files)
	c.i64(r.Bytes)
	c.i64(r.NewBytes)
	c.str(r.ManifestHash)
	c.str(r.PrevHash)
	return hex.EncodeToString(c.h.Sum(nil))
}

// checkRecord verifies a record against its files and the hash it must
// link to.
func checkRecord(r store.SnapshotRecord, files []store.FileRecord, prev string) error {
	if int64(len(files)) != r.Files {
		return fmt.Errorf("%w: %d entries, record says %d", ErrTampered, len(files), r.Files)
	}
	if got := manifestHash(files); got != r.ManifestHash {
		return fmt.Errorf("%w: manifest hash mismatch", ErrTampered)
	}
	if got := recordHash(&r); got != r.Hash {
		return fmt.Errorf("%w: record hash mismatch", ErrTampered)
	}
	if r.PrevHash != prev {
		return fmt.Errorf("%w: chain link broken (previous snapshot missing or altered)", ErrTampered)
	}
	for _, p := range r.Paths {
		if !validRel(p) {
			return fmt.Errorf("%w: invalid path %q", ErrTampered, p)
		}
	}
	for _, f := range files {
		if err := checkEntry(f); err != nil {
			return fmt.Errorf("%w: %w", ErrTampered, err)
		}
	}
	return nil
}

// checkEntry refuses entries no snapshot writes: paths that are not
// clean and relative, that reach into .parallax, unknown types, files
// without a well-formed object.
func checkEntry(f store.FileRecord) error {
	if !validRel(f.Path) {
		return fmt.Errorf("invalid path %q", f.Path)
	}
	switch Type(f.Type) {
	case TypeFile:
		if !validObject(f.Object) {
			return fmt.Errorf("entry %s: bad object name", f.Path)
		}
	case TypeDir, TypeSymlink, TypeAbsent:
		if f.Object != "" {
			return fmt.Errorf("entry %s: object on a %s", f.Path, f.Type)
		}
	default:
		return fmt.Errorf("entry %s: unknown type %q", f.Path, f.Type)
	}
	if f.Mode&^0o7777 != 0 {
		return fmt.Errorf("entry %s: mode %o out of range", f.Path, f.Mode)
	}
	return nil
}

// validRel reports whether p is a clean slash-separated path inside the
// workspace that does not reach into .parallax. "." is the workspace.
func validRel(p string) bool {
	if p == "." {
		return true
	}
	if !fs.ValidPath(p) {
		return false
	}
	first, _, _ := strings.Cut(p, "/")
	return first != sealedDir
}

// validObject reports whether o is a lowercase hex SHA-256.
func validObject(o string) bool {
	if len(o) != 64 {
		return false
	}
	for i := 0; i < len(o); i++ {
		c := o[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
