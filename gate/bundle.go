package gate

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
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

// BuildBundle loads and compiles the policy the options name, and returns it
// as an OPA bundle (.tar.gz bytes). The bundle is read back through OPA's
// reader (and, when signed, its signature verification) before it is
// returned, so what is built is what LoadBundle accepts.
func BuildBundle(ctx context.Context, o BuildOptions) ([]byte, error) {
	dirs := append([]string{}, o.Dirs...)
	if o.WithDefault {
		dirs = append([]string{Builtin}, dirs...)
	}
	if len(dirs) == 0 {
		return nil, errors.New("nothing to bundle: name policy directories or pass --with-default")
	}
	p, err := LoadPolicy(dirs, o.DataFiles)
	if err != nil {
		return nil, err
	}
	if _, err := p.prepare(ctx); err != nil {
		return nil, err
	}
	// Each directory becomes a top-level folder of the bundle, named after
	// it (builtin for the default; a suffix keeps two "rules" apart).
	folders := make([]string, len(dirs))
	used := map[string]bool{}
	for i, d := range dirs {
		base := "builtin"
		if d != Builtin {
			base = folderName(d)
		}
		name := base
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[name] = true
		folders[i] = name
	}
	var keys []string
	for k := range p.Modules {
		keys = append(keys, k)
	}
	for k := range p.Tests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := bundle.Bundle{Data: deepCopy(p.Data)}
	for _, k := range keys {
		src, ok := p.sources[k]
		if !ok {
			return nil, fmt.Errorf("internal error: no source for module %s", k)
		}
		raw, ok := p.Modules[k]
		if !ok {
			raw = p.Tests[k]
		}
		fp := "/" + path.Join(folders[src.dir], src.name)
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: fp, Path: fp, RelativePath: fp, Raw: []byte(raw)})
	}
	b.Manifest.Revision = o.Revision
	roots := append([]string{}, BundleRoots...)
	b.Manifest.Roots = &roots
	b.Manifest.SetRegoVersion(ast.RegoV1)
	var vc *bundle.VerificationConfig
	if o.SigningKey != "" {
		keyPEM, err := os.ReadFile(o.SigningKey)
		if err != nil {
			return nil, fmt.Errorf("signing key: %w", err)
		}
		alg, pub, err := privateKeyAlg(keyPEM)
		if err != nil {
			return nil, fmt.Errorf("signing key %s: %w", o.SigningKey, err)
		}
		if err := b.GenerateSignature(bundle.NewSigningConfig(string(keyPEM), alg, ""), BundleKeyID, false); err != nil {
			return nil, fmt.Errorf("signing the bundle: %w", err)
		}
		vc = verificationConfig(pub, alg)
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(b); err != nil {
		return nil, fmt.Errorf("writing the bundle: %w", err)
	}
	if _, err := readBundle(ctx, "the built bundle", buf.Bytes(), vc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var unsafeFolder = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func folderName(dir string) string {
	base := path.Base(strings.ReplaceAll(strings.TrimRight(dir, `/\`), `\`, "/"))
	base = strings.Trim(unsafeFolder.ReplaceAllString(base, "_"), ".")
	if base == "" || base == "_" {
		base = "policy"
	}
	return base
}

// LoadBundle reads the bundle at src (a file, or an http(s) URL fetched
// with a plain GET), verifies its signature with the public key in the PEM
// file keyFile when one is given, and returns its policy, parsed. A bundle
// that is signed when no key is given, unsigned when one is, or whose
// signature or files do not verify is refused; nothing falls back to the
// default policy. Compiling is gate.New's (or Prepare's) job.
func LoadBundle(ctx context.Context, src, keyFile string) (*Policy, error) {
	var vc *bundle.VerificationConfig
	if keyFile != "" {
		keyPEM, err := os.ReadFile(keyFile)
		if err != nil {
			return nil, fmt.Errorf("bundle verification key: %w", err)
		}
		alg, err := publicKeyAlg(keyPEM)
		if err != nil {
			return nil, fmt.Errorf("bundle verification key %s: %w", keyFile, err)
		}
		vc = verificationConfig(string(keyPEM), alg)
	}
	raw, err := fetchBundle(ctx, src, vc != nil)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", src, err)
	}
	return readBundle(ctx, "bundle "+src, raw, vc)
}

func verificationConfig(pubPEM, alg string) *bundle.VerificationConfig {
	return bundle.NewVerificationConfig(map[string]*bundle.KeyConfig{BundleKeyID: {Key: pubPEM, Algorithm: alg}}, BundleKeyID, "", nil)
}

// readBundle reads raw with OPA's bundle reader (which checks the
// signature and every file's hash when vc is set) and makes a Policy.
func readBundle(_ context.Context, what string, raw []byte, vc *bundle.VerificationConfig) (*Policy, error) {
	r := bundle.NewReader(bytes.NewReader(raw)).
		WithRegoVersion(ast.RegoV1).
		WithSizeLimitBytes(MaxBundleBytes)
	if vc != nil {
		r = r.WithBundleVerificationConfig(vc)
	}
	b, err := r.Read()
	if err != nil {
		msg := err.Error()
		switch {
		case vc == nil && strings.Contains(msg, "verification key not provided"):
			return nil, fmt.Errorf("%s is signed, and no key was given to verify it: pass --bundle-verification-key PUB", what)
		case vc != nil && strings.Contains(msg, "missing .signatures.json"):
			return nil, fmt.Errorf("%s is not signed (it has no .signatures.json), and a verification key was given: refusing it", what)
		case vc != nil && (strings.Contains(msg, "verify") || strings.Contains(msg, "digest mismatch") ||
			strings.Contains(msg, "signature") || strings.Contains(msg, "not found in the target bundle")):
			return nil, fmt.Errorf("%s failed signature verification: %v", what, err)
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if b.Type() != bundle.SnapshotBundleType {
		return nil, fmt.Errorf("%s is a delta bundle; toolgate loads snapshot bundles only", what)
	}
	p := &Policy{Modules: map[string]string{}, Tests: map[string]string{}, Data: b.Data, parsed: map[string]*ast.Module{}, Revision: b.Manifest.Revision}
	if p.Data == nil {
		p.Data = map[string]any{}
	}
	for _, m := range b.Modules {
		name := "bundle:" + strings.TrimPrefix(m.Path, "/")
		if strings.HasSuffix(m.Path, "_test.rego") {
			p.Tests[name] = string(m.Raw)
			continue
		}
		p.Modules[name] = string(m.Raw)
	}
	if len(p.Modules) == 0 {
		return nil, fmt.Errorf("%s holds no Rego modules", what)
	}
	if err := p.parse(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	p.Digest = p.digest()
	noteRevision(p.Digest, p.Revision)
	return p, nil
}

// fetchBundle returns the bytes of the bundle file or URL src, at most
// MaxBundleBytes. An unsigned bundle (signed false) is not fetched over
// plain http from another machine, nor through a redirect to one: anyone
// on the way could hand over another policy.
func fetchBundle(ctx context.Context, src string, signed bool) ([]byte, error) {
	tooBig := fmt.Errorf("larger than %d MiB", MaxBundleBytes>>20)
	if !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
		f, err := os.Open(src)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, MaxBundleBytes+1))
		if err != nil {
			return nil, err
		}
		if len(b) > MaxBundleBytes {
			return nil, tooBig
		}
		return b, nil
	}
	ctx, cancel := context.WithTimeout(ctx, BundleFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	if !signed && insecureRemote(req.URL) {
		return nil, errInsecureBundle
	}
	req.Header.Set("Accept", "application/gzip, application/vnd.openpolicyagent.bundles, */*")
	client := &http.Client{CheckRedirect: func(next *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !signed && insecureRemote(next.URL) {
			return fmt.Errorf("redirected to %s: %w", next.URL.Redacted(), errInsecureBundle)
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching: HTTP %s", resp.Status)
	}
	if resp.ContentLength > MaxBundleBytes {
		return nil, tooBig
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBundleBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetching: %w", err)
	}
	if len(b) > MaxBundleBytes {
		return nil, tooBig
	}
	return b, nil
}

// GenerateBundleKey returns a new ECDSA P-256 key pair for signing bundles
// (ES256), as PEM: the private key in PKCS #8, the public key in PKIX.
func GenerateBundleKey() (privPEM, pubPEM []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), nil
}

// privateKeyAlg returns the JWS algorithm for a PEM private key (ECDSA or
// RSA) and its public key as PEM.
func privateKeyAlg(keyPEM []byte) (alg, pubPEM string, err error) {
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return "", "", errors.New("not a PEM file")
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return "", "", fmt.Errorf("a %s is not a private key (want an ECDSA or RSA private key, e.g. from 'toolgate policy keygen')", block.Type)
	}
	if err != nil {
		return "", "", err
	}
	var pub any
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		pub = &k.PublicKey
	case *rsa.PrivateKey:
		pub = &k.PublicKey
	default:
		return "", "", fmt.Errorf("unsupported key type %T (want ECDSA or RSA)", key)
	}
	if alg, err = keyAlg(pub); err != nil {
		return "", "", err
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", "", err
	}
	return alg, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// publicKeyAlg returns the JWS algorithm for a PEM public key. A private
// key is refused: the verifying side holds the public half only.
func publicKeyAlg(keyPEM []byte) (string, error) {
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return "", errors.New("not a PEM file")
	}
	if block.Type != "PUBLIC KEY" {
		return "", fmt.Errorf("a %s is not a PKIX public key (want the PUBLIC KEY file from 'toolgate policy keygen')", block.Type)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return "", err
	}
	return keyAlg(pub)
}

func keyAlg(pub any) (string, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
		return "", fmt.Errorf("unsupported curve %s", k.Curve.Params().Name)
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return "", fmt.Errorf("RSA key of %d bits is too short (want 2048 or more)", k.N.BitLen())
		}
		return "RS256", nil
	}
	return "", fmt.Errorf("unsupported key type %T (want ECDSA or RSA)", pub)
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

var errInsecureBundle = errors.New("an unsigned bundle over plain http from another machine could be swapped by anyone on the way: fetch it over https, or sign it ('toolgate policy build --signing-key') and pass --bundle-verification-key")

// insecureRemote says whether u is plain http to a host other than this
// machine's loopback.
func insecureRemote(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return false
	}
	ip, err := netip.ParseAddr(h)
	return err != nil || !ip.IsLoopback()
}
