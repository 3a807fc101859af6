// Package audit is toolgate's append-only, tamper-evident audit log and the
// tools a reviewer uses on it.
//
// A log is JSON lines, one Record each: genesis, decision, outcome,
// checkpoint, repair. Every line is the record's canonical JSON (RFC 8785),
// so any textual change shows, and carries prev and hash: SHA-256, with a
// domain-separation prefix, over the canonical record without its hash,
// chained from a genesis (whose prev is the zero hash, or the last hash of
// the file it continues after a rotation). A canonical number is an
// IEEE-754 double, exact for integers up to 2^53-1 in magnitude: a record
// whose integer fields (seq, exit_code, duration_ms, ...) go beyond is
// refused by Log and reported by Verify as a foreign line, while numbers
// in args are kept as canonical JSON keeps them, rounded to a double's
// precision. Log appends under an flock with one write per record and an
// fsync (always, batch, never; AppendDeferred leaves one record for the
// next append's or Sync's fsync, so run syncs once per call), follows a
// file another writer rotated, and
// refuses to append after a torn line. With a signing key it appends
// Ed25519 checkpoints over (count, head) every N records and on Close, so
// a holder of the public key can detect a whole rewrite with a recomputed
// chain.
//
// Verify streams files as one chain with bounded memory and names the first
// problem (edited, removed, reordered, duplicated, foreign line, torn tail,
// genesis missing, broken chain, bad signature, unsigned). An intact line is
// decided in one pass over its bytes (scanRecord: it is canonical, and these
// are its chain fields); a line that pass cannot decide goes through the
// generic decode, which names what is wrong with it. Writers likewise
// encode a record's canonical form directly (sealAppend) and fall back to
// the generic encoding only for what that does not handle; tests and fuzz
// targets hold each fast path to the bytes of its slow one. Repair cuts a torn
// final line — the only damage a crash can cause — and records it; it
// refuses anything else. MaskArgs and Redact keep file contents and
// credentials out of records. Show, Report and ExportOCSF are the read side.
//
// Not covered: a log deleted or truncated back to an earlier checkpoint is
// only detectable against a copy of the head or count kept elsewhere (issue
// 7 ships records off the host); records after the last checkpoint are
// proven by the chain alone. Redaction is pattern-based and cannot know
// every secret format.
package audit
