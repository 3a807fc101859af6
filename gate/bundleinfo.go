package gate

import (
	"sync"
	"sync/atomic"
	"time"
)

// A toolgate bundle is an OPA bundle (a .tar.gz with .manifest, .rego
// files, data.json and, when signed, .signatures.json) whose manifest roots
// are BundleRoots: it owns data.toolgate (the decision, its rules and
// data.toolgate.config) and data.toolgate_test (the unit tests of the
// default policy), and nothing else, so OPA refuses a module or a data
// document outside them.
var BundleRoots = []string{"toolgate", "toolgate_test"}

// BundleKeyID is the key id a bundle is signed with and verified against:
// OPA's own default ("opa build --signing-key", "opa run
// --verification-key"), so OPA's tooling verifies toolgate bundles without
// further flags.
const BundleKeyID = "default"

// MaxBundleBytes bounds a bundle, compressed (as fetched or read) and each
// file in it uncompressed.
const MaxBundleBytes = 64 << 20

// BundleFetchTimeout bounds fetching a bundle by URL.
const BundleFetchTimeout = 30 * time.Second

// BuildOptions say what goes into a bundle.
type BuildOptions struct {
	Dirs        []string // policy directories (Builtin names the embedded default)
	DataFiles   []string
	WithDefault bool   // include the embedded default policy (first)
	Revision    string // the manifest revision
	SigningKey  string // PEM private key file; empty: unsigned
}

// revisions maps the digest of every policy loaded from a bundle to the
// bundle's revision, so that audit records made with a digest can carry
// the revision too.
var (
	revisions    sync.Map // digest → revision
	anyRevisions atomic.Bool
)

func noteRevision(digest, revision string) {
	if revision == "" {
		return
	}
	revisions.Store(digest, revision)
	anyRevisions.Store(true)
}

// RevisionOf returns the bundle revision of the policy whose digest is
// given, or "" when it did not come from a bundle (or has no revision).
func RevisionOf(digest string) string {
	if !anyRevisions.Load() {
		return ""
	}
	v, _ := revisions.Load(digest)
	s, _ := v.(string)
	return s
}
