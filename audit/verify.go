package audit

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Problem kinds, as verify names them.
const (
	ProblemEdited     = "edited"          // a record's content no longer matches its hash, or its hash was recomputed
	ProblemRemoved    = "removed"         // records are missing
	ProblemReordered  = "reordered"       // records are out of order
	ProblemDuplicated = "duplicated"      // a record appears twice
	ProblemForeign    = "foreign line"    // a line that is not a record
	ProblemTorn       = "torn tail"       // the last line is partial (a writer died mid-write)
	ProblemGenesis    = "genesis missing" // the file does not start with its genesis record
	ProblemSignature  = "bad signature"   // a checkpoint does not verify or does not match the chain
	ProblemUnsigned   = "unsigned"        // a public key was given but no checkpoint proves the log
	ProblemChain      = "broken chain"    // files do not continue one another
)

// Problem is the first thing wrong with a log.
type Problem struct {
	File   string
	Line   int64 // 1-based line in File
	Seq    int64 // the record's sequence number, -1 when unknown
	Kind   string
	Detail string
}

func (p *Problem) String() string {
	seq := ""
	if p.Seq >= 0 {
		seq = fmt.Sprintf(" (seq %d)", p.Seq)
	}
	return fmt.Sprintf("%s:%d%s: %s: %s", p.File, p.Line, seq, p.Kind, p.Detail)
}

// Result is what Verify found.
type Result struct {
	Files       int
	Records     int64 // every record, genesis and checkpoints included
	Decisions   int64
	Outcomes    int64
	Checkpoints int64
	// Verified counts checkpoints whose signature was checked with the
	// given public key; without a key none are.
	Verified int64
	// UnsignedTail is the number of records after the last verified
	// checkpoint (only with a public key).
	UnsignedTail int64
	LastSeq      int64
	Head         string
	Problem      *Problem
	// Repairable: the only damage is a torn last line.
	Repairable bool
}

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// PublicKey checks the checkpoints' signatures; with it, a log without
	// a valid checkpoint fails.
	PublicKey ed25519.PublicKey
	// Progress, when set, is called now and then with bytes read so far.
	Progress func(read int64)
}

// lookahead bounds how far verify reads past a gap in the sequence to tell
// removed records from reordered ones.
const lookahead = 100000

// recentHashes is how many record hashes verify keeps to tell a duplicate
// from a reordered record.
const recentHashes = 100000

// Verify streams the files, in order, as one chain and reports the first
// problem. Memory stays bounded whatever the size of the log.
func Verify(paths []string, o VerifyOptions) Result {
	return verify(paths, o, false)
}

// verify is Verify; slowOnly turns the fast path off (tests compare the
// two).
func verify(paths []string, o VerifyOptions, slowOnly bool) Result {
	v := &verifier{o: o, prevSeq: -1, slowOnly: slowOnly}
	for i, p := range paths {
		v.res.Files++
		if stop := v.file(p, i); stop {
			return v.res
		}
	}
	if o.PublicKey != nil && v.res.Problem == nil {
		if v.res.Verified == 0 {
			v.res.Problem = &Problem{File: paths[len(paths)-1], Line: v.line, Seq: -1, Kind: ProblemUnsigned,
				Detail: "no checkpoint signed by " + KeyID(o.PublicKey) + " proves this log"}
		}
	}
	v.res.LastSeq, v.res.Head = v.prevSeq, v.prevHash
	return v.res
}

type verifier struct {
	o        VerifyOptions
	res      Result
	prevSeq  int64
	prevHash string
	prevFile string
	recent   recentRing // seq → hash of the last recentHashes records
	line     int64
	read     int64

	scan     lineScan  // the fast path's record
	sha      hash.Hash // reused for every record
	sum      [sha256.Size]byte
	hex      [2 * sha256.Size]byte
	slowOnly bool // tests: verify every line the slow way
}

// file verifies one file; it returns true when verification must stop.
func (v *verifier) file(path string, index int) bool {
	f, err := os.Open(path)
	if err != nil {
		v.fail(path, 0, -1, ProblemForeign, err.Error())
		return true
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	v.line = 0
	for {
		// line is only valid until br is read again: record reads ahead
		// only once it is done with the line.
		line, err := readLineView(br)
		if len(line) == 0 && err == io.EOF {
			break
		}
		v.line++
		v.read += int64(len(line))
		if v.o.Progress != nil && v.line%4096 == 0 {
			v.o.Progress(v.read)
		}
		if err == io.EOF {
			// The last line has no newline. A writer that died in mid-write
			// leaves the beginning of a record; anything else there was put
			// there, and is not repairable.
			if why := notTorn(line); why != "" {
				v.fail(path, v.line, -1, ProblemForeign, "the last line has no newline and "+why)
				return true
			}
			v.fail(path, v.line, -1, ProblemTorn, fmt.Sprintf("the last line is partial (%d bytes without a newline); 'toolgate audit repair' cuts it off", len(line)))
			v.res.Repairable = true
			return true
		}
		if err != nil {
			v.fail(path, v.line, -1, ProblemForeign, err.Error())
			return true
		}
		body := line[:len(line)-1]
		if stop := v.record(path, index, body, br); stop {
			return true
		}
	}
	if v.line == 0 {
		v.fail(path, 1, -1, ProblemGenesis, "the file is empty")
		return true
	}
	v.prevFile = path
	return false
}

// readLineView is readLine without a copy when the line fits in br's
// buffer: what it returns is only valid until br is read again.
func readLineView(br *bufio.Reader) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return chunk, err
	}
	return readRest(br, append([]byte(nil), chunk...))
}

// readLine reads one line with its newline; at the end of input it returns
// what is left and io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	out := append([]byte(nil), chunk...)
	if err != bufio.ErrBufferFull {
		return out, err
	}
	return readRest(br, out)
}

// readRest appends the rest of a line longer than br's buffer to out.
func readRest(br *bufio.Reader, out []byte) ([]byte, error) {
	for {
		if len(out) > 256<<20 {
			return out, errors.New("a line longer than 256 MiB")
		}
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if err != bufio.ErrBufferFull {
			return out, err
		}
	}
}

func (v *verifier) fail(file string, line, seq int64, kind, detail string) {
	if v.res.Problem == nil {
		v.res.Problem = &Problem{File: file, Line: line, Seq: seq, Kind: kind, Detail: detail}
	}
}

// record checks one line; true stops the verification.
func (v *verifier) record(path string, index int, body []byte, br *bufio.Reader) bool {
	r, stop := v.parse(path, body)
	if stop {
		return true
	}
	v.res.Records++
	if v.line == 1 {
		if r.Kind != KindGenesis {
			v.fail(path, 1, r.Seq, ProblemGenesis, "the first record is a "+r.Kind+", not the genesis: the start of the file was removed")
			return true
		}
		return v.genesis(path, index, r)
	}
	if r.Kind == KindGenesis {
		v.fail(path, v.line, r.Seq, ProblemForeign, "a genesis record in the middle of a file")
		return true
	}
	switch {
	case r.Seq == v.prevSeq+1 && r.Prev == v.prevHash:
	case r.Seq == v.prevSeq+1:
		v.fail(path, v.line, r.Seq, ProblemEdited, fmt.Sprintf("its prev does not match record %d's hash: record %d was changed and its hash recomputed", v.prevSeq, v.prevSeq))
		return true
	case r.Seq <= v.prevSeq:
		if old, ok := v.recent.get(r.Seq); ok && old == r.Hash {
			v.fail(path, v.line, r.Seq, ProblemDuplicated, fmt.Sprintf("record %d appears again after record %d", r.Seq, v.prevSeq))
		} else {
			v.fail(path, v.line, r.Seq, ProblemReordered, fmt.Sprintf("record %d comes after record %d", r.Seq, v.prevSeq))
		}
		return true
	default:
		want := v.prevSeq + 1
		if v.seenLater(br, want) {
			v.fail(path, v.line, r.Seq, ProblemReordered, fmt.Sprintf("record %d comes where record %d belongs; %d appears later", r.Seq, want, want))
		} else {
			v.fail(path, v.line, r.Seq, ProblemRemoved, fmt.Sprintf("records %d to %d are missing", want, r.Seq-1))
		}
		return true
	}
	switch r.Kind {
	case KindDecision:
		v.res.Decisions++
	case KindOutcome:
		v.res.Outcomes++
	case KindCheckpoint:
		if stop := v.checkpoint(path, r); stop {
			return true
		}
	}
	v.advance(r)
	if v.o.PublicKey != nil && r.Kind != KindCheckpoint {
		v.res.UnsignedTail++
	}
	return false
}

// parse reads a line as a record whose form, version and hash are right;
// true stops the verification. The fast path (scanRecord) decides every
// line of an intact log; any line it cannot decide takes the slow path,
// which names what is wrong with it.
func (v *verifier) parse(path string, body []byte) (*Record, bool) {
	if !v.slowOnly && scanRecord(body, &v.scan, v.prevHash) {
		r := &v.scan.Rec
		if r.V != Version {
			v.fail(path, v.line, r.Seq, ProblemForeign, fmt.Sprintf("record version %d is not %d", r.V, Version))
			return nil, true
		}
		if !v.hashMatches(r.Hash, body[:v.scan.CutFrom], body[v.scan.CutTo:]) {
			v.fail(path, v.line, r.Seq, ProblemEdited, "the record's content does not match its hash")
			return nil, true
		}
		return r, false
	}
	m, r, err := chainFields(body)
	if err != nil {
		v.fail(path, v.line, -1, ProblemForeign, err.Error())
		return nil, true
	}
	full, covered, err := canonicalWithout(m, "hash")
	if err != nil || !bytes.Equal(full, body) {
		v.fail(path, v.line, r.Seq, ProblemEdited, "the line was rewritten (it is not the canonical form the writer wrote)")
		return nil, true
	}
	if r.V != Version {
		v.fail(path, v.line, r.Seq, ProblemForeign, fmt.Sprintf("record version %d is not %d", r.V, Version))
		return nil, true
	}
	if sumOf(covered) != r.Hash {
		v.fail(path, v.line, r.Seq, ProblemEdited, "the record's content does not match its hash")
		return nil, true
	}
	return r, false
}

// hashMatches says whether want is sumOf(a followed by b), without
// allocating.
func (v *verifier) hashMatches(want string, a, b []byte) bool {
	const tag = "sha256:"
	if len(want) != len(tag)+2*sha256.Size || want[:len(tag)] != tag {
		return false
	}
	if v.sha == nil {
		v.sha = sha256.New()
	}
	v.sha.Reset()
	v.sha.Write([]byte(hashPrefix))
	v.sha.Write(a)
	v.sha.Write(b)
	hex.Encode(v.hex[:], v.sha.Sum(v.sum[:0]))
	return string(v.hex[:]) == want[len(tag):]
}

func (v *verifier) advance(r *Record) {
	v.prevSeq, v.prevHash = r.Seq, r.Hash
	v.recent.put(r.Seq, r.Hash)
}

// recentRing keeps the hashes of the last recentHashes records by seq. The
// records verify accepts have consecutive seqs, so slot seq mod size holds
// the newest record with that remainder; a map did the same with a
// deletion per record (a sixth of verify's time).
type recentRing struct {
	seqs   []int64
	hashes []string
}

func (r *recentRing) put(seq int64, hash string) {
	if seq < 0 {
		return
	}
	if r.seqs == nil {
		r.seqs, r.hashes = make([]int64, recentHashes), make([]string, recentHashes)
		for i := range r.seqs {
			r.seqs[i] = -1
		}
	}
	i := seq % recentHashes
	r.seqs[i], r.hashes[i] = seq, hash
}

func (r *recentRing) get(seq int64) (string, bool) {
	if seq < 0 || r.seqs == nil {
		return "", false
	}
	i := seq % recentHashes
	if r.seqs[i] != seq {
		return "", false
	}
	return r.hashes[i], true
}

// seenLater reads ahead (the rest of the file, bounded) for a record with
// sequence number seq. It reads each line as verify reads a record, not
// with encoding/json's struct decoding: that matches keys regardless of
// case, and would take "SEQ" or "Seq" for seq.
func (v *verifier) seenLater(br *bufio.Reader, seq int64) bool {
	var s lineScan
	for range lookahead {
		line, err := readLine(br)
		if len(line) > 0 {
			body := bytes.TrimSuffix(line, []byte("\n"))
			if scanRecord(body, &s, "") {
				if s.Rec.Seq == seq {
					return true
				}
			} else if _, r, err := chainFields(body); err == nil && r.Seq == seq {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
	return false
}

func (v *verifier) genesis(path string, index int, r *Record) bool {
	switch {
	case index == 0 && r.PrevFile == "":
		if r.Prev != ZeroHash || r.Seq != 0 {
			v.fail(path, 1, r.Seq, ProblemGenesis, "a first genesis must have seq 0 and the zero prev")
			return true
		}
	case index == 0:
		// Continues a file not given: the chain is checked from here.
	default:
		if r.PrevFile != filepath.Base(v.prevFile) || r.Prev != v.prevHash || r.Seq != v.prevSeq+1 {
			v.fail(path, 1, r.Seq, ProblemChain, fmt.Sprintf("the genesis continues %q at seq %d, not %s (last seq %d)", r.PrevFile, r.Seq-1, filepath.Base(v.prevFile), v.prevSeq))
			return true
		}
	}
	v.advance(r)
	return false
}

func (v *verifier) checkpoint(path string, r *Record) bool {
	v.res.Checkpoints++
	if r.Count != v.prevSeq || r.Head != v.prevHash {
		v.fail(path, v.line, r.Seq, ProblemSignature, fmt.Sprintf("the checkpoint covers seq %d with head %s, but the chain has seq %d with head %s", r.Count, r.Head, v.prevSeq, v.prevHash))
		return true
	}
	if v.o.PublicKey == nil {
		return false
	}
	if r.KeyID != KeyID(v.o.PublicKey) {
		v.fail(path, v.line, r.Seq, ProblemSignature, "signed by "+r.KeyID+", not by the given key "+KeyID(v.o.PublicKey))
		return true
	}
	if !verifySig(v.o.PublicKey, r.Count, r.Head, r.Sig) {
		v.fail(path, v.line, r.Seq, ProblemSignature, "the signature does not verify: the records it covers were rewritten")
		return true
	}
	v.res.Verified++
	v.res.UnsignedTail = 0
	return false
}

// notTorn says why b (a last line without newline) cannot be the start of
// a record cut short by a crash, or "" when it can: a record's canonical
// form starts with {" and holds no control characters, and a cut can only
// leave an incomplete UTF-8 sequence at its very end. A complete record
// without its newline is not torn either: a writer writes the line and its
// newline with one write.
func notTorn(b []byte) string {
	if !bytes.HasPrefix(b, []byte(`{"`)) && !bytes.Equal(b, []byte("{")) {
		return "does not start like a record"
	}
	for _, c := range b {
		if c < 0x20 {
			return "holds a control character"
		}
	}
	trim := b
	for i := 0; i < utf8.UTFMax-1 && len(trim) > 0 && !utf8.Valid(trim); i++ {
		trim = trim[:len(trim)-1]
	}
	if !utf8.Valid(trim) {
		return "is not UTF-8"
	}
	if json.Valid(b) {
		return "is a complete value, not a record cut short"
	}
	return ""
}
