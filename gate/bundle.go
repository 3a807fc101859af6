//go:build !toolgate_small

package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
)

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
	p := &Policy{Modules: map[string]string{}, Tests: map[string]string{}, Data: b.Data, parsed: parsedModules{}, Revision: b.Manifest.Revision}
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
