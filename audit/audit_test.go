package audit

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// writeLog appends n decision records to a new log at path.
func writeLog(t testing.TB, path string, n int, key ed25519.PrivateKey, every int64) {
	t.Helper()
	l, err := Open(Options{Path: path, Key: key, CheckpointEvery: every, Program: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		_, err := l.Append(Record{Kind: KindDecision, ID: fmt.Sprintf("c%d", i), Tool: "exec",
			Args: json.RawMessage(`{"command":"echo ` + fmt.Sprint(i) + `"}`), Decision: "allow", Policy: "sha256:test"})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func lines(t testing.TB, path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ls := bytes.SplitAfter(b, []byte("\n"))
	if len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func put(t testing.TB, path string, ls [][]byte) {
	if err := os.WriteFile(path, bytes.Join(ls, nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestIntactLogVerifies(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.jsonl")
	writeLog(t, p, 50, nil, 0)
	res := Verify([]string{p}, VerifyOptions{})
	if res.Problem != nil {
		t.Fatalf("intact log: %v", res.Problem)
	}
	if res.Records != 51 || res.Decisions != 50 || res.LastSeq != 50 {
		t.Errorf("counts: %+v", res)
	}
	// Reopening continues the chain.
	writeLog(t, p, 5, nil, 0)
	if res := Verify([]string{p}, VerifyOptions{}); res.Problem != nil || res.LastSeq != 55 {
		t.Fatalf("after reopen: %+v %v", res, res.Problem)
	}
}

func TestCanonicalNumbers(t *testing.T) {
	for lit, want := range map[string]string{
		"0": "0", "-0": "0", "1": "1", "1.0": "1", "1e21": "1e+21", "1e20": "100000000000000000000",
		"0.000001": "0.000001", "0.0000001": "1e-7", "123.456": "123.456", "-1.5e-10": "-1.5e-10",
		"9007199254740993": "9007199254740992",
	} {
		got, err := canonNumber(lit)
		if err != nil || got != want {
			t.Errorf("%s: got %s %v, want %s", lit, got, err, want)
		}
	}
	b, _ := Canonical(map[string]any{"b": "<&>\u2028", "a": []any{json.Number("1"), nil, true}, "\u00e9": "x", "\U0001F600": "y"})
	if string(b) != `{"a":[1,null,true],"b":"<&>`+"\u2028"+`","é":"x","😀":"y"}` {
		t.Errorf("canonical: %s", b)
	}
}

// tamper is one way to damage a log, and the problem verify must name.
type tamper struct {
	name string
	kind string
	do   func(t testing.TB, path string)
}

// tampers is the tampered-log corpus generator: each entry rewrites an
// intact log (genesis + 20 decisions, signed checkpoints every 5) in one
// way an attacker or an accident could.
var tampers = []tamper{
	{"flip a bit", ProblemEdited, func(t testing.TB, p string) {
		ls := lines(t, p)
		i := bytes.Index(ls[7], []byte(`"decision":"allow"`))
		ls[7][i+12] ^= 0x01 // "allow" -> "`llow" or similar
		put(t, p, ls)
	}},
	{"edit a decision", ProblemEdited, func(t testing.TB, p string) {
		ls := lines(t, p)
		ls[4] = bytes.Replace(ls[4], []byte(`"decision":"allow"`), []byte(`"decision":"deny"`), 1)
		put(t, p, ls)
	}},
	{"edit and recompute the hash", ProblemEdited, func(t testing.TB, p string) {
		ls := lines(t, p)
		ls[4] = rehash(t, bytes.Replace(ls[4], []byte(`"decision":"allow"`), []byte(`"decision":"deny"`), 1))
		put(t, p, ls)
	}},
	{"reformat a line", ProblemEdited, func(t testing.TB, p string) {
		ls := lines(t, p)
		ls[3] = bytes.Replace(ls[3], []byte(`,"decision":`), []byte(`, "decision":`), 1)
		put(t, p, ls)
	}},
	{"delete a record", ProblemRemoved, func(t testing.TB, p string) {
		ls := lines(t, p)
		put(t, p, append(ls[:3:3], ls[4:]...))
	}},
	{"swap two records", ProblemReordered, func(t testing.TB, p string) {
		ls := lines(t, p)
		ls[3], ls[4] = ls[4], ls[3]
		put(t, p, ls)
	}},
	{"duplicate a record", ProblemDuplicated, func(t testing.TB, p string) {
		ls := lines(t, p)
		put(t, p, append(ls[:4:4], append([][]byte{ls[3]}, ls[4:]...)...))
	}},
	{"trailing garbage", ProblemForeign, func(t testing.TB, p string) {
		ls := lines(t, p)
		put(t, p, append(ls, []byte("{\"hello\":\"world\"}\n")))
	}},
	{"torn tail", ProblemTorn, func(t testing.TB, p string) {
		ls := lines(t, p)
		last := ls[len(ls)-1]
		ls[len(ls)-1] = last[:len(last)/2]
		put(t, p, ls)
	}},
	{"trailing garbage without a newline", ProblemForeign, func(t testing.TB, p string) {
		ls := lines(t, p)
		put(t, p, append(ls, []byte("\x00\x01garbage")))
	}},
	{"flip the last newline", ProblemForeign, func(t testing.TB, p string) {
		ls := lines(t, p)
		last := ls[len(ls)-1]
		last[len(last)-1] ^= 0x01
		put(t, p, ls)
	}},
	{"remove the last newline", ProblemForeign, func(t testing.TB, p string) {
		ls := lines(t, p)
		last := ls[len(ls)-1]
		ls[len(ls)-1] = last[:len(last)-1]
		put(t, p, ls)
	}},
	{"delete the genesis", ProblemGenesis, func(t testing.TB, p string) {
		put(t, p, lines(t, p)[1:])
	}},
	{"truncate to nothing", ProblemGenesis, func(t testing.TB, p string) {
		put(t, p, nil)
	}},
	{"whole rewrite with a recomputed chain", ProblemSignature, func(t testing.TB, p string) {
		ls := lines(t, p)
		ls[4] = bytes.Replace(ls[4], []byte(`"decision":"allow"`), []byte(`"decision":"deny"`), 1)
		rechain(t, ls)
		put(t, p, ls)
	}},
	{"whole rewrite dropping the checkpoints", ProblemUnsigned, func(t testing.TB, p string) {
		var keep [][]byte
		for _, l := range lines(t, p) {
			if !bytes.Contains(l, []byte(`"kind":"checkpoint"`)) {
				keep = append(keep, l)
			}
		}
		rechain(t, keep)
		put(t, p, keep)
	}},
}

// rehash recomputes one line's hash after an edit.
func rehash(t testing.TB, line []byte) []byte {
	m, _, err := parseLine(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hashOf(m)
	m["hash"] = h
	c, _ := Canonical(m)
	return append(c, '\n')
}

// rechain renumbers and rehashes every line as a forger without the key
// would: the chain is consistent, the signatures are not.
func rechain(t testing.TB, ls [][]byte) {
	prev := ""
	for i, l := range ls {
		m, _, err := parseLine(bytes.TrimSuffix(l, []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		m["seq"] = json.Number(fmt.Sprint(i))
		if i > 0 {
			m["prev"] = prev
		}
		if m["kind"] == KindCheckpoint {
			m["count"] = json.Number(fmt.Sprint(i - 1))
			m["head"] = prev
		}
		h, _ := hashOf(m)
		m["hash"] = h
		prev = h
		c, _ := Canonical(m)
		ls[i] = append(c, '\n')
	}
}

func TestTamperedLogs(t *testing.T) {
	dir := t.TempDir()
	pub, err := GenerateKey(filepath.Join(dir, "k"), filepath.Join(dir, "k.pub"))
	if err != nil {
		t.Fatal(err)
	}
	priv, err := LoadPrivateKey(filepath.Join(dir, "k"))
	if err != nil {
		t.Fatal(err)
	}
	intact := filepath.Join(dir, "intact.jsonl")
	writeLog(t, intact, 20, priv, 5)
	if res := Verify([]string{intact}, VerifyOptions{PublicKey: pub}); res.Problem != nil || res.Verified < 4 {
		t.Fatalf("intact signed log: %+v %v", res, res.Problem)
	}
	orig, _ := os.ReadFile(intact)
	for _, tc := range tampers {
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
		os.WriteFile(p, orig, 0o600)
		tc.do(t, p)
		res := Verify([]string{p}, VerifyOptions{PublicKey: pub})
		if res.Problem == nil {
			t.Errorf("%s: verify found nothing wrong", tc.name)
			continue
		}
		if res.Problem.Kind != tc.kind {
			t.Errorf("%s: got %v, want kind %q", tc.name, res.Problem, tc.kind)
		}
		if res.Repairable != (tc.kind == ProblemTorn) {
			t.Errorf("%s: repairable = %v", tc.name, res.Repairable)
		}
	}
}

func TestRotationKeepsTheChain(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.jsonl")
	l, err := Open(Options{Path: p, MaxBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if _, err := l.Append(Record{Kind: KindDecision, ID: fmt.Sprint(i), Tool: "exec", Decision: "deny"}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	files, _ := filepath.Glob(p + ".*")
	if len(files) < 2 {
		t.Fatalf("no rotation: %v", files)
	}
	all := append(files, p) // rotated names sort by time
	res := Verify(all, VerifyOptions{})
	if res.Problem != nil || res.Decisions != 40 {
		t.Fatalf("rotated chain: %+v %v", res, res.Problem)
	}
	// Leaving a rotated file out breaks the chain.
	res = Verify(append(all[:1:1], all[2:]...), VerifyOptions{})
	if res.Problem == nil || res.Problem.Kind != ProblemChain {
		t.Errorf("a missing file went unnoticed: %v", res.Problem)
	}
}

func TestRedactAndMask(t *testing.T) {
	args := json.RawMessage(`{"path":"a","content":"hello","command":"curl -H 'Authorization: Bearer abcdefghijklmnop' https://u:hunter2@x.io AKIAABCDEFGHIJKLMNOP password=s3cret"}`)
	got := string(MaskArgs("write_file", args, DefaultMask))
	for _, bad := range []string{"abcdefghijklmnop", "hunter2", "AKIAABCDEFGHIJKLMNOP", "s3cret", "hello"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q left in %s", bad, got)
		}
	}
	for _, want := range []string{`"masked":true`, `"bytes":5`, "Bearer [REDACTED]", "password=[REDACTED]", "://u:[REDACTED]@"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q missing from %s", want, got)
		}
	}
}

// redactEvery is Redact without its needle shortcut: every pattern runs.
func redactEvery(s string) string {
	for _, re := range secretPatterns {
		s = re().ReplaceAllString(s, redacted)
	}
	return s
}

// TestRedactShortcutChangesNothing: skipping the patterns whose needles are
// absent gives the same text as running them all, on text built from
// pieces of every credential form, in any case.
func TestRedactShortcutChangesNothing(t *testing.T) {
	if len(secretNeedles) != len(secretSources) || len(secretGates) != len(secretSources) {
		t.Fatalf("%d needle lists and %d gates for %d patterns", len(secretNeedles), len(secretGates), len(secretSources))
	}
	pieces := []string{"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "AKIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOP",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_" + strings.Repeat("a1", 25), "glpat-abcdefghijklmnopqrstu",
		"xoxb-1234567890-abc", "sk-proj-abcdefghijklmnopqrstuvwxyz", "eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeK",
		"Bearer abcdefghijklmnop", "BEARER  zyxwvutsrqponm", "password=hunter2", "PassWord: 'x y'", "API-KEY=abc", "Token:\"t t\"",
		"client_secret=s3", "https://user:pa55@host/x", "ſecret=x", "toKen=y", "pwd = z", " ", "\n", "=", ":", "a", "-", "_", "x.y.z", "é",
		"\u212aey=v", "BEARER \u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a", "ſk-", "bearer\u00a0", "\xff", "İ", "ß", "ǅ",
		"reads a secret", "key", "keys ", "passwords\t=", "\v", "secret-", "api_", "ghost", "gh", "ghp_", "_", "://", "http://", "@", "/", "u:p@", "host"}
	rng := rand.New(rand.NewSource(7))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.Intn(5) {
			p := pieces[rng.Intn(len(pieces))]
			switch rng.Intn(3) {
			case 0:
				p = strings.ToUpper(p)
			case 1:
				p = strings.ToLower(p)
			}
			b.WriteString(p)
		}
		s := b.String()
		if got, want := Redact(s), redactEvery(s); got != want {
			t.Fatalf("%q: Redact gives %q, every pattern gives %q", s, got, want)
		}
	}
}

// TestAppendAllGroupCommit: records appended in groups (with checkpoints
// and rotations falling inside groups, and single appends and other
// goroutines in between) make one intact chain with every record once.
func TestAppendAllGroupCommit(t *testing.T) {
	for _, mode := range []Fsync{FsyncAlways, FsyncBatch, FsyncNever} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "audit.jsonl")
			pub, priv, err := ed25519.GenerateKey(nil)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Open(Options{Path: p, Fsync: mode, MaxBytes: 6000, Key: priv, CheckpointEvery: 7})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			total := 0
			var mu sync.Mutex
			for g := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 20 {
						var rs []Record
						for j := range i % 6 {
							rs = append(rs, Record{Kind: KindDecision, ID: fmt.Sprintf("g%d-%d-%d", g, i, j), Tool: "exec", Decision: "allow"})
						}
						n, err := l.AppendAll(rs)
						if err != nil || n != len(rs) {
							t.Errorf("AppendAll: %d of %d: %v", n, len(rs), err)
						}
						if _, err := l.Append(Record{Kind: KindDecision, ID: fmt.Sprintf("g%d-%d", g, i), Tool: "exec", Decision: "deny"}); err != nil {
							t.Error(err)
						}
						mu.Lock()
						total += n + 1
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			l.Close()
			files, _ := filepath.Glob(p + ".*")
			if len(files) < 2 {
				t.Fatalf("no rotation: %v", files)
			}
			res := Verify(append(files, p), VerifyOptions{PublicKey: pub})
			if res.Problem != nil || res.Decisions != int64(total) {
				t.Fatalf("group-committed chain: %d decisions of %d, %v", res.Decisions, total, res.Problem)
			}
		})
	}
}

// A group whose third record cannot be sealed writes none of it (its lines
// are written together at its end) and says so; the chain in memory, ahead
// of the file by two records, is read back, so what comes next chains onto
// the file and the log verifies.
func TestAppendAllUnsealableRecord(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(Options{Path: p, Fsync: FsyncBatch})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	huge := int64(1) << 60 // past 2^53: not a canonical JSON number
	rs := []Record{
		{Kind: KindDecision, ID: "a", Tool: "exec", Decision: "allow"},
		{Kind: KindDecision, ID: "b", Tool: "exec", Decision: "allow"},
		{Kind: KindDecision, ID: "c", Tool: "exec", Decision: "allow", DurationMS: &huge},
	}
	if n, err := l.AppendAll(rs); n != 0 || err == nil {
		t.Fatalf("AppendAll of an unsealable group: %d written, %v", n, err)
	}
	if n, err := l.AppendAll(rs[:2]); n != 2 || err != nil {
		t.Fatalf("AppendAll after it: %d written, %v", n, err)
	}
	if _, err := l.Append(Record{Kind: KindDecision, ID: "d", Tool: "exec", Decision: "deny"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	res := Verify([]string{p}, VerifyOptions{})
	if res.Problem != nil || res.Decisions != 3 {
		t.Fatalf("after an unsealable group: %d decisions, %v", res.Decisions, res.Problem)
	}
}

// TestCollectedLinesVerify: the recipe README's "Running a fleet" gives a
// collector — the shipped lines, in order, one file per genesis record,
// each named as the next genesis's prev_file says — verifies, with the
// checkpoint key, as the log does on the host.
func TestCollectedLinesVerify(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.jsonl")
	pub, priv, _ := ed25519.GenerateKey(nil)
	l, err := Open(Options{Path: p, MaxBytes: 2000, Key: priv, CheckpointEvery: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if _, err := l.Append(Record{Kind: KindDecision, ID: fmt.Sprint(i), Tool: "exec", Decision: "deny"}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	files, _ := filepath.Glob(p + ".*")
	sort.Strings(files) // rotated names sort by time
	var lines [][]byte  // what a collector received, in order
	for _, f := range append(files, p) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.SplitAfter(b, []byte("\n")) {
			if len(line) > 0 {
				lines = append(lines, line)
			}
		}
	}
	var parts [][][]byte
	for _, line := range lines {
		if bytes.Contains(line, []byte(`"kind":"genesis"`)) {
			parts = append(parts, nil)
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], line)
	}
	out := t.TempDir()
	var paths []string
	for i, part := range parts {
		name := "current.jsonl"
		if i+1 < len(parts) {
			var g struct {
				PrevFile string `json:"prev_file"`
			}
			if err := json.Unmarshal(parts[i+1][0], &g); err != nil || g.PrevFile == "" {
				t.Fatalf("genesis without prev_file: %s", parts[i+1][0])
			}
			name = g.PrevFile
		}
		path := filepath.Join(out, name)
		if err := os.WriteFile(path, bytes.Join(part, nil), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	if len(paths) < 3 {
		t.Fatalf("no rotation to check: %d files", len(paths))
	}
	res := Verify(paths, VerifyOptions{PublicKey: pub})
	if res.Problem != nil || res.Decisions != 40 {
		t.Fatalf("collected files: %d decisions, %v", res.Decisions, res.Problem)
	}
}

// AppendDeferred leaves a record for the next fsync under --fsync always:
// Sync or the next Append puts it on disk, and the chain is as with Append.
// Other modes append as Append does.
func TestAppendDeferredIsSyncedByWhatFollows(t *testing.T) {
	for _, mode := range []Fsync{FsyncAlways, FsyncBatch} {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		l, err := Open(Options{Path: path, Fsync: mode})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.AppendDeferred(Record{Kind: KindOutcome, ID: "a"}); err != nil {
			t.Fatal(err)
		}
		if mode == FsyncAlways && !l.dirty {
			t.Errorf("%s: a deferred record was synced at once", mode)
		}
		if _, err := l.Append(Record{Kind: KindDecision, ID: "b"}); err != nil {
			t.Fatal(err)
		}
		if mode == FsyncAlways && l.dirty {
			t.Errorf("%s: the next Append left the deferred record unsynced", mode)
		}
		if _, err := l.AppendDeferred(Record{Kind: KindOutcome, ID: "b"}); err != nil {
			t.Fatal(err)
		}
		if err := l.Sync(); err != nil {
			t.Fatal(err)
		}
		if mode == FsyncAlways && l.dirty {
			t.Errorf("%s: Sync left a record unsynced", mode)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if res := Verify([]string{path}, VerifyOptions{}); res.Problem != nil || res.LastSeq < 3 {
			t.Errorf("%s: verify: %+v", mode, res)
		}
	}
}

// A deferred record in a file that is rotated away is synced there first:
// the new file's fsyncs do not cover it.
func TestDeferredRecordIsSyncedBeforeRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(Options{Path: path, Fsync: FsyncAlways, MaxBytes: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := 0; l.oldSyncs == 0; i++ {
		if i > 20 {
			t.Fatal("no rotation after 20 records")
		}
		if _, err := l.AppendDeferred(Record{Kind: KindOutcome, ID: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if l.dirty {
		t.Error("a record is left unsynced after the rotation")
	}
}
