package serve

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/toolgate/toolgate/gate"
)

// PollBundle looks at the policy bundle at src (an http(s) URL or a file)
// every interval and, when it changed, reloads the policy: Reload fetches
// it again, verifies it (signature and files, when the service has a
// verification key), compiles it, runs its Rego tests and swaps it in
// atomically — or keeps the policy in force, logged and audited. A URL is
// asked with If-None-Match and the last ETag (304: unchanged); a change is
// otherwise told by the SHA-256 of the bundle's bytes. A bundle that was
// rejected is not tried again until it changes. It returns when ctx ends or
// the server has shut down.
func (s *Server) PollBundle(ctx context.Context, src string, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	p := &bundlePoll{src: src, client: &http.Client{Timeout: gate.BundleFetchTimeout}}
	// The policy in force was loaded from src just before: the first look
	// only sets what "unchanged" means.
	first := true
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		changed, err := p.changed(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.m.bundlePoll("error")
			s.logf("bundle poll: %v; the policy in force is kept", err)
		case changed && !first:
			s.m.bundlePoll("changed")
			s.Reload(ctx, "bundle poll")
		case err == nil:
			s.m.bundlePoll("unchanged")
		}
		first = false
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
	}
}

// bundlePoll remembers what the bundle looked like last time.
type bundlePoll struct {
	src    string
	client *http.Client
	etag   string
	sum    [sha256.Size]byte
	seen   bool
}

// changed fetches the bundle (conditionally) and says whether it differs
// from the last time.
func (p *bundlePoll) changed(ctx context.Context) (bool, error) {
	var body io.ReadCloser
	if strings.HasPrefix(p.src, "http://") || strings.HasPrefix(p.src, "https://") {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.src, nil)
		if err != nil {
			return false, err
		}
		if p.etag != "" {
			req.Header.Set("If-None-Match", p.etag)
		}
		resp, err := p.client.Do(req)
		if err != nil {
			return false, err
		}
		if resp.StatusCode == http.StatusNotModified {
			resp.Body.Close()
			return false, nil
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return false, fmt.Errorf("GET %s: %s", p.src, resp.Status)
		}
		p.etag = resp.Header.Get("ETag")
		body = resp.Body
	} else {
		f, err := os.Open(p.src)
		if err != nil {
			return false, err
		}
		body = f
	}
	defer body.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(body, gate.MaxBundleBytes+1))
	if err != nil {
		return false, err
	}
	if n > gate.MaxBundleBytes {
		return false, errors.New("the bundle is larger than the limit")
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	if p.seen && sum == p.sum {
		return false, nil
	}
	p.sum, p.seen = sum, true
	return true, nil
}
