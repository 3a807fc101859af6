//go:build !toolgate_small

package gate

import (
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
	"strings"
)

// Fetching bundles and their keys: the full build only (the small build
// runs the embedded policy and has no HTTP client).

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

var errInsecureBundle = errors.New("an unsigned bundle over plain http from another machine could be swapped by anyone on the way: fetch it over https, or sign it ('toolgate policy build --signing-key') and pass --bundle-verification-key")
