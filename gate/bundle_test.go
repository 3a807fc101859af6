package gate

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"
)

const teamRule = `package toolgate

deny contains {"rule": "team.terraform_apply", "message": "no terraform apply"} if {
	some c in input.commands
	c.name == "terraform"
	"apply" in c.argv
}
`

// bundleFixture writes a team policy directory and a key pair.
func bundleFixture(t *testing.T) (dir, priv, pub string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "team")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "terraform.rego"), []byte(teamRule), 0o644); err != nil {
		t.Fatal(err)
	}
	priv, pub = filepath.Join(root, "key.pem"), filepath.Join(root, "pub.pem")
	writeKeyPair(t, priv, pub)
	return dir, priv, pub
}

func writeKeyPair(t *testing.T, priv, pub string) {
	t.Helper()
	k, p, err := GenerateBundleKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(priv, k, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pub, p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeBundle(t *testing.T, b []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "bundle.tar.gz")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// rewriteTar rewrites the files of a .tar.gz: edit gets every name and
// content and returns the new content, or nil to drop the file; add
// appends files.
func rewriteTar(t *testing.T, in []byte, edit func(name string, b []byte) []byte, add map[string]string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	put := func(name string, b []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if nb := edit(h.Name, b); nb != nil {
			put(h.Name, nb)
		}
	}
	for name, s := range add {
		put(name, []byte(s))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestBuildBundleVerifiesWithOPA(t *testing.T) {
	ctx := context.Background()
	dir, priv, pub := bundleFixture(t)
	raw, err := BuildBundle(ctx, BuildOptions{Dirs: []string{dir}, WithDefault: true, Revision: "v7", SigningKey: priv})
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	// OPA's own reader, as "opa run --verification-key pub.pem" sets it
	// up: the key under id "default", found through the token's kid.
	vc := bundle.NewVerificationConfig(map[string]*bundle.KeyConfig{"default": {Key: string(pubPEM), Algorithm: "ES256"}}, "", "", nil)
	b, err := bundle.NewReader(bytes.NewReader(raw)).WithBundleVerificationConfig(vc).Read()
	if err != nil {
		t.Fatalf("OPA refuses the signed bundle: %v", err)
	}
	if b.Manifest.Revision != "v7" {
		t.Errorf("revision %q", b.Manifest.Revision)
	}
	if got := strings.Join(*b.Manifest.Roots, ","); got != "toolgate,toolgate_test" {
		t.Errorf("roots %s", got)
	}
	if len(b.Signatures.Signatures) != 1 {
		t.Errorf("want one signature, got %d", len(b.Signatures.Signatures))
	}
	names := map[string]bool{}
	for _, m := range b.Modules {
		names[m.Path] = true
	}
	for _, want := range []string{"/builtin/toolgate.rego", "/builtin/toolgate_test.rego", "/team/terraform.rego"} {
		if !names[want] {
			t.Errorf("bundle lacks %s (has %v)", want, names)
		}
	}
	if _, ok := b.Data["toolgate"].(map[string]any)["config"]; !ok {
		t.Errorf("data.json lacks toolgate.config")
	}

	// And toolgate loads it, with its revision, and decides with it.
	g, err := New(ctx, Options{Workspace: t.TempDir(), Bundle: writeBundle(t, raw), BundleKey: pub})
	if err != nil {
		t.Fatal(err)
	}
	if g.PolicyRevision() != "v7" || RevisionOf(g.PolicyDigest()) != "v7" {
		t.Errorf("revision %q / %q", g.PolicyRevision(), RevisionOf(g.PolicyDigest()))
	}
	if len(g.Policy().Tests) == 0 {
		t.Errorf("the bundle's tests were not kept")
	}
	res := g.Decide(ctx, Call{ID: "1", Tool: "exec", Args: []byte(`{"command":"terraform apply"}`)})
	if res.Decision != "deny" || res.Reasons[0].Rule != "team.terraform_apply" {
		t.Errorf("terraform apply: %+v", res)
	}
	res = g.Decide(ctx, Call{ID: "2", Tool: "exec", Args: []byte(`{"command":"rm -rf /"}`)})
	if res.Decision != "deny" {
		t.Errorf("rm -rf /: %+v", res)
	}
}

func TestBuildBundleRSA(t *testing.T) {
	ctx := context.Background()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	pubDER, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	d := t.TempDir()
	priv, pub := filepath.Join(d, "rsa.pem"), filepath.Join(d, "rsa.pub")
	os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644)
	raw, err := BuildBundle(ctx, BuildOptions{WithDefault: true, SigningKey: priv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBundle(ctx, writeBundle(t, raw), pub); err != nil {
		t.Fatal(err)
	}
}

func TestLoadBundleRefuses(t *testing.T) {
	ctx := context.Background()
	dir, priv, pub := bundleFixture(t)
	signed, err := BuildBundle(ctx, BuildOptions{Dirs: []string{dir}, WithDefault: true, Revision: "r1", SigningKey: priv})
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := BuildBundle(ctx, BuildOptions{Dirs: []string{dir}, WithDefault: true, Revision: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	otherPriv, otherPub := filepath.Join(t.TempDir(), "k"), filepath.Join(t.TempDir(), "p")
	writeKeyPair(t, otherPriv, otherPub)
	keep := func(_ string, b []byte) []byte { return b }

	cases := []struct {
		name   string
		raw    []byte
		key    string
		reason string
	}{
		{"changed rego", rewriteTar(t, signed, func(n string, b []byte) []byte {
			if strings.HasSuffix(n, "team/terraform.rego") {
				return bytes.Replace(b, []byte(`"apply" in c.argv`), []byte(`"nothing" in c.argv`), 1)
			}
			return b
		}, nil), pub, "failed signature verification"},
		{"changed data", rewriteTar(t, signed, func(n string, b []byte) []byte {
			if strings.HasSuffix(n, "data.json") {
				return []byte(`{"toolgate":{"config":{"restrict_to_workspace":false}}}`)
			}
			return b
		}, nil), pub, "failed signature verification"},
		{"changed manifest", rewriteTar(t, signed, func(n string, b []byte) []byte {
			if strings.HasSuffix(n, ".manifest") {
				return bytes.Replace(b, []byte(`"r1"`), []byte(`"r2"`), 1)
			}
			return b
		}, nil), pub, "failed signature verification"},
		{"added rego", rewriteTar(t, signed, keep, map[string]string{"/team/allow.rego": "package toolgate\n\nx := 1\n"}), pub, "failed signature verification"},
		{"removed rego", rewriteTar(t, signed, func(n string, b []byte) []byte {
			if strings.HasSuffix(n, "team/terraform.rego") {
				return nil
			}
			return b
		}, nil), pub, "failed signature verification"},
		{"signatures removed", rewriteTar(t, signed, func(n string, b []byte) []byte {
			if strings.HasSuffix(n, ".signatures.json") {
				return nil
			}
			return b
		}, nil), pub, "is not signed"},
		{"wrong key", signed, otherPub, "failed signature verification"},
		{"unsigned with a key", unsigned, pub, "is not signed"},
		{"signed without a key", signed, "", "is signed, and no key"},
		{"private key as verification key", signed, priv, "not a PKIX public key"},
		{"not a bundle", []byte("hello"), "", "bundle"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(ctx, Options{Workspace: t.TempDir(), Bundle: writeBundle(t, c.raw), BundleKey: c.key})
			if err == nil || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("want an error saying %q, got %v", c.reason, err)
			}
			t.Log(err)
		})
	}
}

func TestLoadBundleRefusesWhatDoesNotCompile(t *testing.T) {
	ctx := context.Background()
	_, priv, pub := bundleFixture(t)
	// Build it with OPA's writer directly: toolgate's build would refuse it.
	b := bundle.Bundle{
		Data:    map[string]any{},
		Modules: []bundle.ModuleFile{{URL: "/p.rego", Path: "/p.rego", Raw: []byte("package toolgate\n\ndecision := {\"decision\": \"allow\", \"reasons\": [], \"x\": undefined_thing}\n")}},
	}
	roots := []string{"toolgate"}
	b.Manifest.Roots = &roots
	b.Manifest.Revision = "broken"
	if err := b.GenerateSignature(bundle.NewSigningConfig(priv, "ES256", ""), BundleKeyID, false); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(b); err != nil {
		t.Fatal(err)
	}
	_, err := New(ctx, Options{Workspace: t.TempDir(), Bundle: writeBundle(t, buf.Bytes()), BundleKey: pub})
	if err == nil || !strings.Contains(err.Error(), "compiling policy") || !strings.Contains(err.Error(), `revision "broken"`) {
		t.Fatalf("got %v", err)
	}
}

func TestBundleOptionsConflict(t *testing.T) {
	ctx := context.Background()
	for _, o := range []Options{
		{Bundle: "x.tar.gz", PolicyDirs: []string{Builtin}},
		{Bundle: "x.tar.gz", DataFiles: []string{"d.json"}},
		{BundleKey: "pub.pem"},
	} {
		o.Workspace = t.TempDir()
		if _, err := New(ctx, o); err == nil || !strings.Contains(err.Error(), "--bundle") {
			t.Errorf("%+v: got %v", o, err)
		}
	}
}

func TestBuildBundleRefusesOutsideItsRoots(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "other.rego"), []byte("package other\n\nx := 1\n"), 0o644)
	_, err := BuildBundle(context.Background(), BuildOptions{Dirs: []string{dir}, WithDefault: true})
	if err == nil || !strings.Contains(err.Error(), "roots") {
		t.Fatalf("got %v", err)
	}
	if _, err := BuildBundle(context.Background(), BuildOptions{}); err == nil {
		t.Fatal("an empty build succeeded")
	}
}

// An unsigned bundle is not taken over plain http from another machine, nor
// through a redirect to one; from this machine's loopback it is.
func TestUnsignedBundleOverPlainHTTP(t *testing.T) {
	ctx := context.Background()
	dir, _, _ := bundleFixture(t)
	unsigned, err := BuildBundle(ctx, BuildOptions{Dirs: []string{dir}, WithDefault: true, Revision: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, "http://192.0.2.1/b.tar.gz", http.StatusFound)
			return
		}
		w.Write(unsigned)
	}))
	defer srv.Close()
	if _, err := LoadBundle(ctx, srv.URL+"/b.tar.gz", ""); err != nil {
		t.Fatalf("loopback: %v", err)
	}
	for _, src := range []string{"http://192.0.2.1/b.tar.gz", "http://policy.example/b.tar.gz", srv.URL + "/away"} {
		_, err := LoadBundle(ctx, src, "")
		if err == nil || !strings.Contains(err.Error(), "plain http") {
			t.Errorf("%s: %v", src, err)
		}
	}
}
