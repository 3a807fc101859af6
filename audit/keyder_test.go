package audit

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"testing"
)

// TestKeyDERAsX509 holds the Ed25519 key documents toolgate writes and
// reads byte for byte to crypto/x509's, and checks that other key types
// and damaged documents are refused.
func TestKeyDERAsX509(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := marshalPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	theirs, _ := x509.MarshalPKCS8PrivateKey(priv)
	if !bytes.Equal(ours, theirs) {
		t.Errorf("PKCS #8:\n%x\nx509:\n%x", ours, theirs)
	}
	oursPub, err := marshalPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	theirsPub, _ := x509.MarshalPKIXPublicKey(pub)
	if !bytes.Equal(oursPub, theirsPub) {
		t.Errorf("PKIX:\n%x\nx509:\n%x", oursPub, theirsPub)
	}
	if k, err := parsePrivateKey(theirs); err != nil || !k.Equal(priv) {
		t.Errorf("parse x509's private key: %v", err)
	}
	if k, err := parsePublicKey(theirsPub); err != nil || !k.Equal(pub) {
		t.Errorf("parse x509's public key: %v", err)
	}

	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPriv, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecPub, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	if _, err := parsePrivateKey(ecPriv); err == nil {
		t.Error("an ECDSA private key was taken for Ed25519")
	}
	if _, err := parsePublicKey(ecPub); err == nil {
		t.Error("an ECDSA public key was taken for Ed25519")
	}
	for name, der := range map[string][]byte{
		"private truncated": theirs[:len(theirs)-1],
		"public truncated":  theirsPub[:len(theirsPub)-1],
		"public trailing":   append(append([]byte{}, theirsPub...), 0),
		"empty":             nil,
	} {
		_, e1 := parsePrivateKey(der)
		_, e2 := parsePublicKey(der)
		if e1 == nil && e2 == nil {
			t.Errorf("%s: accepted", name)
		}
		_, x1 := x509.ParsePKCS8PrivateKey(der)
		_, x2 := x509.ParsePKIXPublicKey(der)
		if (e1 == nil) != (x1 == nil) || (e2 == nil) != (x2 == nil) {
			t.Errorf("%s: ours %v / %v, x509 %v / %v", name, e1, e2, x1, x2)
		}
	}
}
