package audit

import (
	"crypto/ed25519"
	"encoding/asn1"
	"errors"
)

// Keys are stored as RFC 8410 documents: the private key as PKCS #8, the
// public key as PKIX SubjectPublicKeyInfo, the forms crypto/x509 (and
// `openssl genpkey -algorithm ed25519`) write. Only Ed25519 is used, so
// they are written and read here with encoding/asn1: crypto/x509 would
// bring every other key type (RSA, ECDSA, DSA, their curves and big-number
// code) into each toolgate process and its start.

// oidEd25519 is id-Ed25519 (RFC 8410).
var oidEd25519 = asn1.ObjectIdentifier{1, 3, 101, 112}

type algorithmID struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type subjectPublicKeyInfo struct {
	Algorithm algorithmID
	PublicKey asn1.BitString
}

// oneAsymmetricKey is PKCS #8's PrivateKeyInfo; a version 2 document's
// optional attributes and public key after the key are not read.
type oneAsymmetricKey struct {
	Version    int
	Algorithm  algorithmID
	PrivateKey []byte
}

func marshalPublicKey(pub ed25519.PublicKey) ([]byte, error) {
	return asn1.Marshal(subjectPublicKeyInfo{
		Algorithm: algorithmID{Algorithm: oidEd25519},
		PublicKey: asn1.BitString{Bytes: pub, BitLength: 8 * len(pub)},
	})
}

func marshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	seed, err := asn1.Marshal(priv.Seed())
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(oneAsymmetricKey{Algorithm: algorithmID{Algorithm: oidEd25519}, PrivateKey: seed})
}

func parsePublicKey(der []byte) (ed25519.PublicKey, error) {
	var spki subjectPublicKeyInfo
	rest, err := asn1.Unmarshal(der, &spki)
	switch {
	case err != nil:
		return nil, errors.New("malformed public key: " + err.Error())
	case len(rest) != 0:
		return nil, errors.New("trailing data after the public key")
	case !spki.Algorithm.Algorithm.Equal(oidEd25519):
		return nil, errors.New("not an Ed25519 key")
	case len(spki.Algorithm.Parameters.FullBytes) != 0:
		return nil, errors.New("Ed25519 public key with parameters")
	}
	key := spki.PublicKey.RightAlign()
	if len(key) != ed25519.PublicKeySize {
		return nil, errors.New("Ed25519 public key of the wrong size")
	}
	return ed25519.PublicKey(key), nil
}

func parsePrivateKey(der []byte) (ed25519.PrivateKey, error) {
	var k oneAsymmetricKey
	if _, err := asn1.Unmarshal(der, &k); err != nil {
		return nil, errors.New("malformed PKCS #8 private key: " + err.Error())
	}
	if !k.Algorithm.Algorithm.Equal(oidEd25519) {
		return nil, errors.New("not an Ed25519 key")
	}
	if len(k.Algorithm.Parameters.FullBytes) != 0 {
		return nil, errors.New("Ed25519 private key with parameters")
	}
	var seed []byte
	if _, err := asn1.Unmarshal(k.PrivateKey, &seed); err != nil {
		return nil, errors.New("malformed Ed25519 private key: " + err.Error())
	}
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("Ed25519 private key of the wrong size")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
