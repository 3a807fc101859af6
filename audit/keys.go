package audit

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"strconv"
)

// checkpointPrefix separates checkpoint signatures from every other use of
// the key.
const checkpointPrefix = "toolgate-audit-checkpoint-v1\n"

// KeyID names a public key: the first 16 hex digits of its SHA-256.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "ed25519:" + hex.EncodeToString(sum[:8])
}

func checkpointMessage(count int64, head string) []byte {
	return []byte(checkpointPrefix + strconv.FormatInt(count, 10) + "\n" + head + "\n")
}

func sign(key ed25519.PrivateKey, count int64, head string) string {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(key, checkpointMessage(count, head)))
}

func verifySig(pub ed25519.PublicKey, count int64, head, sig string) bool {
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(b) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(pub, checkpointMessage(count, head), b)
}

// GenerateKey writes a new Ed25519 key pair: the private key to privPath
// (PKCS #8 PEM, mode 0600) and the public key to pubPath (PKIX PEM). It
// refuses to overwrite either.
func GenerateKey(privPath, pubPath string) (ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pkcs8, err := marshalPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pkix, err := marshalPublicKey(pub)
	if err != nil {
		return nil, err
	}
	if err := writeNew(privPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}), 0o644); err != nil {
		os.Remove(privPath)
		return nil, err
	}
	return pub, nil
}

func writeNew(path string, b []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoadPrivateKey reads a PEM PKCS #8 Ed25519 private key.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%s: not a PEM private key (make one with 'toolgate audit keygen')", path)
	}
	priv, err := parsePrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return priv, nil
}

// LoadPublicKey reads a PEM PKIX Ed25519 public key.
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("%s: not a PEM public key", path)
	}
	pub, err := parsePublicKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pub, nil
}
