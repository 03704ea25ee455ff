package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf16"

	"github.com/ulikunitz/xz"
)

// The replay in process. shared/tflm/tflm_ref is a replay of the real
// binary's recorded runs (shared/tflm/README.md, "Replay"): a Python
// script that answers one call from one shard of replay/, about 50 ms a
// call, which made gen/lower's long differential sweep take 45 minutes.
// Exec answers from the same recording in this process (a shard is read
// once per test binary), by the rules tflm_ref.py follows: the same key,
// the same files, stdout, stderr and exit status. Whatever it does not
// answer runs tflm_ref itself: a call the recording lacks (which then
// misses there, or runs a real binary put in its place), a command line
// tflm_ref.py keys verbatim (a usage error), a recording it cannot read,
// and every call while TFLM_REPLAY_LOG is set (tflm_ref.py logs each).

// replayKeyVersion is tflm_ref.py's KEY_VERSION.
const replayKeyVersion = "tflm_ref-replay-1"

// replayStores caches the recordings read, by directory: each test binary
// reads a shard once, whichever Oracle asks.
var replayStores = struct {
	sync.Mutex
	m map[string]*replayStore
}{m: map[string]*replayStore{}}

// replayStore is one recording: MANIFEST.json and the shards read so far.
type replayStore struct {
	dir    string
	prefix int
	mu     sync.Mutex
	shards map[string]*replayShard // nil: absent or unreadable
}

// replayShard is one decompressed shard: its entries and blobs.
type replayShard struct {
	Entries map[string]replayEntry `json:"entries"`
	Blobs   map[string][2]int      `json:"blobs"`
	body    []byte
}

// replayEntry is one recorded call.
type replayEntry struct {
	RC     int         `json:"rc"`
	Signal *int        `json:"signal"`
	Stdout replayRef   `json:"stdout"`
	Stderr replayRef   `json:"stderr"`
	Files  []replayRef `json:"files"`
	Mkdir  []string    `json:"mkdir"`
}

// replayRef is a blob of a shard; T marks one with placeholders for this
// call's paths. Files name their role and name too.
type replayRef struct {
	Blob string `json:"blob"`
	T    bool   `json:"t"`
	Role string `json:"role"`
	Name string `json:"name"`
}

// storeFor returns the recording in dir, nil when it has no manifest.
func storeFor(dir string) *replayStore {
	replayStores.Lock()
	defer replayStores.Unlock()
	if s, ok := replayStores.m[dir]; ok {
		return s
	}
	var s *replayStore
	if b, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json")); err == nil {
		var m struct {
			KeyVersion  string `json:"key_version"`
			ShardPrefix int    `json:"shard_prefix"`
		}
		if json.Unmarshal(b, &m) == nil && m.KeyVersion == replayKeyVersion && m.ShardPrefix > 0 && m.ShardPrefix <= 64 {
			s = &replayStore{dir: dir, prefix: m.ShardPrefix, shards: map[string]*replayShard{}}
		}
	}
	replayStores.m[dir] = s
	return s
}

// lookup returns the entry recorded for key and its shard.
func (s *replayStore) lookup(key string) (*replayEntry, *replayShard) {
	name := key[:s.prefix]
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, ok := s.shards[name]
	if !ok {
		sh = readShard(filepath.Join(s.dir, name+".xz"))
		s.shards[name] = sh
	}
	if sh == nil {
		return nil, nil
	}
	e, ok := sh.Entries[key]
	if !ok {
		return nil, nil
	}
	return &e, sh
}

// readShard decompresses and parses one shard, nil when it cannot.
func readShard(path string) *replayShard {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r, err := xz.NewReader(f)
	if err != nil {
		return nil
	}
	raw, err := io.ReadAll(r)
	if err != nil || len(raw) < 8 {
		return nil
	}
	n := binary.BigEndian.Uint64(raw)
	if n > uint64(len(raw)-8) {
		return nil
	}
	var sh replayShard
	if json.Unmarshal(raw[8:8+n], &sh) != nil {
		return nil
	}
	sh.body = raw[8+n:]
	return &sh
}

// blob returns a blob's bytes, ok false when the shard lacks it.
func (sh *replayShard) blob(sha string) ([]byte, bool) {
	r, ok := sh.Blobs[sha]
	if !ok || r[0] < 0 || r[1] < 0 || r[0]+r[1] > len(sh.body) {
		return nil, false
	}
	return sh.body[r[0] : r[0]+r[1]], true
}

// replayCall is a command line parsed as tflm_ref.py's Spec parses it.
type replayCall struct {
	roles map[string]string // role -> the path as given
	items []any             // the normalized arguments, in order
}

// parseCall parses args as tflm_ref.py does; ok is false for a command
// line it keys verbatim (raw) and for an input it cannot read.
func parseCall(args []string) (c *replayCall, ok bool) {
	c = &replayCall{roles: map[string]string{}}
	type flag struct {
		name string
		val  string
		pos  int // index into pos for a positional argument, else -1
		val2 bool
	}
	var flags []flag
	var pos []string
	csv := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-arena" || a == "-invokes" || a == "-dump-pattern" || a == "-dump":
			if i+1 >= len(args) {
				return nil, false
			}
			if a == "-dump" {
				c.roles["dump"] = args[i+1]
			}
			flags = append(flags, flag{name: a, val: args[i+1], pos: -1, val2: true})
			i++
		case a == "-min-arena" || a == "-csv":
			csv = csv || a == "-csv"
			flags = append(flags, flag{name: a, pos: -1})
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, false
		default:
			flags = append(flags, flag{pos: len(pos)})
			pos = append(pos, a)
		}
	}
	var names []string
	if csv {
		if len(pos) < 3 {
			return nil, false
		}
		names = []string{"model", "out"}
		for k := range len(pos) - 2 {
			names = append(names, fmt.Sprintf("in%d", k))
		}
	} else {
		if len(pos) != 2 {
			return nil, false
		}
		names = []string{"model", "outstem"}
	}
	for k, n := range names {
		c.roles[n] = pos[k]
	}
	for _, f := range flags {
		switch {
		case f.pos >= 0:
			d, ok := c.describe(names[f.pos])
			if !ok {
				return nil, false
			}
			c.items = append(c.items, d)
		case f.name == "-dump":
			d, ok := c.describe("dump")
			if !ok {
				return nil, false
			}
			c.items = append(c.items, "-dump", d)
		case f.val2:
			c.items = append(c.items, f.name, f.val)
		default:
			c.items = append(c.items, f.name)
		}
	}
	return c, true
}

// splitName is tflm_ref.py's split_name: the directory as given (or ""),
// the base name without extension and the extension of a path argument.
func splitName(given string) (dir, base, ext string) {
	p := strings.TrimRight(given, "/")
	if p == "" {
		p = given
	}
	name := p
	if i := strings.LastIndex(p, "/"); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	base, ext = name, ""
	// os.path.splitext: the last dot, unless the name is only dots
	// before it (a leading dot starts no extension).
	if i := strings.LastIndex(name, "."); i > 0 && strings.TrimLeft(name[:i], ".") != "" {
		base, ext = name[:i], name[i:]
	}
	return dir, base, ext
}

// dirState is tflm_ref.py's _dir_ok: "dir" for a writable, searchable
// directory (d, or "." when empty), else "nodir".
func dirState(d string) string {
	if d == "" {
		d = "."
	}
	if fi, err := os.Stat(d); err == nil && fi.IsDir() && syscall.Access(d, 2|1) == nil {
		return "dir"
	}
	return "nodir"
}

// describe is tflm_ref.py's _describe; ok is false for an input it cannot
// read as a file (left to tflm_ref, which keys its state).
func (c *replayCall) describe(role string) (map[string]any, bool) {
	given := c.roles[role]
	dir, _, ext := splitName(given)
	d := map[string]any{"role": role, "ext": ext}
	switch {
	case role == "model" || strings.HasPrefix(role, "in") && isDigits(role[2:]):
		data, err := os.ReadFile(given)
		if err != nil {
			return nil, false
		}
		sum := sha256.Sum256(data)
		d["sha256"] = hex.EncodeToString(sum[:])
	case role == "dump":
		state := "other"
		if fi, err := os.Stat(given); err == nil && fi.IsDir() {
			state = "dir"
		} else if _, err := os.Lstat(given); errors.Is(err, os.ErrNotExist) {
			state = "absent"
		}
		d["state"], d["parent"], d["slash"] = state, dirState(dir), strings.HasSuffix(given, "/")
	default:
		d["parent"] = dirState(dir)
	}
	return d, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// key is the SHA-256 of the call's normalized arguments as Python's
// json.dumps(..., sort_keys=True, separators=(",", ":")) writes them.
func (c *replayCall) key() (string, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]any{replayKeyVersion, c.items}); err != nil {
		return "", false
	}
	js := pyASCII(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if js == nil {
		return "", false
	}
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:]), true
}

// pyASCII turns Go's JSON into Python's ensure_ascii form: each non-ASCII
// character as \uXXXX (UTF-16). It returns nil for a control character,
// which the two escape differently (never in the calls the tests make).
func pyASCII(js []byte) []byte {
	var out []byte
	for _, r := range string(js) {
		switch {
		case r < 0x20:
			return nil
		case r < 0x80:
			out = append(out, byte(r))
		case r > 0xffff:
			a, b := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, a, b)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
	}
	return out
}

// fill replaces the placeholders of a recorded blob with this call's
// paths: @@TFLMREC:role:PATH@@ (as given), DIR (without trailing slashes)
// and BASE (the name without extension).
func (c *replayCall) fill(b []byte) []byte {
	if !bytes.Contains(b, []byte("@@TFLMREC:")) {
		return b
	}
	for role, given := range c.roles {
		_, base, _ := splitName(given)
		dir := strings.TrimRight(given, "/")
		if dir == "" {
			dir = given
		}
		b = bytes.ReplaceAll(b, []byte("@@TFLMREC:"+role+":PATH@@"), []byte(given))
		b = bytes.ReplaceAll(b, []byte("@@TFLMREC:"+role+":DIR@@"), []byte(dir))
		b = bytes.ReplaceAll(b, []byte("@@TFLMREC:"+role+":BASE@@"), []byte(base))
	}
	return b
}

// replay answers args from the recording in process: the files written,
// stdout, and the error tflm_ref's exit would give. ok is false where it
// cannot, and the caller runs tflm_ref.
func (o *Oracle) replay(args []string) (stdout []byte, err error, ok bool) {
	if os.Getenv("TFLM_REPLAY_LOG") != "" {
		return nil, nil, false
	}
	dir := os.Getenv("TFLM_REPLAY_DIR")
	if dir == "" {
		dir = filepath.Join(filepath.Dir(o.bin), "replay")
	}
	s := storeFor(dir)
	if s == nil {
		return nil, nil, false
	}
	c, ok := parseCall(args)
	if !ok {
		return nil, nil, false
	}
	key, ok := c.key()
	if !ok {
		return nil, nil, false
	}
	e, sh := s.lookup(key)
	if e == nil {
		return nil, nil, false
	}
	get := func(r replayRef) ([]byte, bool) {
		b, ok := sh.blob(r.Blob)
		if ok && r.T {
			b = c.fill(b)
		}
		return b, ok
	}
	out, ok1 := get(e.Stdout)
	errOut, ok2 := get(e.Stderr)
	if !ok1 || !ok2 {
		return nil, nil, false
	}
	type file struct {
		path string
		data []byte
	}
	var files []file
	for _, f := range e.Files {
		data, ok := get(f)
		given, known := c.roles[f.Role]
		if !ok || !known {
			return nil, nil, false
		}
		name := string(c.fill([]byte(f.Name)))
		path := name
		if f.Role == "dump" {
			path = filepath.Join(given, name)
		} else if d, _, _ := splitName(given); d != "" {
			path = filepath.Join(d, name)
		}
		files = append(files, file{path, data})
	}
	for _, role := range e.Mkdir {
		d, known := c.roles[role]
		if !known {
			return nil, nil, false
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			if err := os.Mkdir(d, 0o777); err != nil {
				return nil, err, true
			}
		}
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return nil, err, true
		}
	}
	if e.Signal != nil && *e.Signal != 0 {
		return nil, fmt.Errorf("tflm_ref: signal: %v: %s", syscall.Signal(*e.Signal), strings.TrimSpace(string(errOut))), true
	}
	if e.RC != 0 {
		return nil, statusError(e.RC, errOut), true
	}
	return out, nil, true
}
