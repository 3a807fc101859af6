package gate

import (
	"crypto/sha256"
	"encoding/hex"
)

// The embedded policy's data document is also kept as Go source
// (builtin_data.go, written by go generate with the plan): a function that
// builds the document from literals, the document's index, and the digest
// of the default policy as a whole. A start on the default policy then
// neither parses data.json with encoding/json (on a cold process the
// decoder's first use, not the 17 KB, is what costs) nor builds the index
// (a shell parse per allowed command) nor encodes the data again to hash
// it: together a tenth of a cold hook's CPU.
//
// builtinDataKey is the SHA-256 of the data.json the source was written
// from; a binary whose data.json differs (edited without go generate)
// reads the file as before. TestEmbeddedPlan fails while the source is
// stale.

// builtinLiteral returns the embedded data document made from the
// generated literals when raw is the data.json they were written from.
func builtinLiteral(raw string) (map[string]any, bool) {
	sum := sha256.Sum256([]byte(raw))
	if hex.EncodeToString(sum[:]) != builtinDataKey {
		return nil, false
	}
	return builtinDataDoc(), true
}
