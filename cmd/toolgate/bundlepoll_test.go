package main

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bundleServer serves one bundle at a time with an ETag, as a static file
// server does, answering 304 to a matching If-None-Match.
type bundleServer struct {
	mu   sync.Mutex
	body []byte
	gets atomic.Int64
	full atomic.Int64 // 200 answers
}

func (b *bundleServer) set(body []byte) {
	b.mu.Lock()
	b.body = body
	b.mu.Unlock()
}

func (b *bundleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	body := b.body
	b.mu.Unlock()
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	b.gets.Add(1)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	b.full.Add(1)
	w.Header().Set("ETag", etag)
	w.Write(body)
}

// TestServeBundlePoll: serve follows a signed bundle at a URL: a new
// revision decides within seconds, while requests keep being answered; a
// tampered bundle is refused and the revision in force stays; an
// unchanged bundle is not downloaded again (304).
func TestServeBundlePoll(t *testing.T) {
	s := newBundleSetup(t)
	// revision s2: the team rule says something else
	team2 := filepath.Join(s.dir, "v2", "team") // the same folder name in the bundle
	os.MkdirAll(team2, 0o755)
	os.WriteFile(filepath.Join(team2, "terraform.rego"), []byte(strings.Replace(bundleTeamRule, "no terraform apply", "still no terraform apply", 1)), 0o644)
	signed2 := filepath.Join(s.dir, "signed2.tar.gz")
	if _, errs, code := run(t, "", "policy", "build", "--with-default", "--revision", "s2", "--signing-key", s.priv, "-o", signed2, team2); code != 0 {
		t.Fatalf("build: %s", errs)
	}
	tampered := filepath.Join(s.dir, "tampered.tar.gz")
	tamper(t, signed2, tampered)

	bs := &bundleServer{}
	bs.set(mustRead(t, s.signed))
	hs := httptest.NewServer(bs)
	defer hs.Close()

	ws := t.TempDir()
	sock := filepath.Join(shortDir(t), "tg.sock")
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	sv := startServe(t, "--socket", sock, "--workspace", ws, "--bundle", hs.URL+"/bundle.tar.gz",
		"--bundle-verification-key", s.pub, "--bundle-poll", "100ms", "--audit", log, "--sandbox", "none")
	c := unixHTTP(sock)
	if h := sv.wait(t, c, "http://localhost"); h["revision"] != "s1" {
		t.Fatalf("health: %v", h)
	}
	ask := `{"id":"a","name":"exec","arguments":{"command":"terraform apply"}}`
	if _, out := post(t, c, "http://localhost/v1/check", ask); !strings.Contains(out, `"message":"no terraform apply"`) {
		t.Fatalf("s1: %s", out)
	}

	// Requests go on while the bundle changes under them: every one is
	// answered, by one revision or the other.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var answered, bad atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, out := post(t, c, "http://localhost/v1/check", ask)
				if code != 200 || !strings.Contains(out, `"decision":"deny"`) || !strings.Contains(out, "no terraform apply") {
					bad.Add(1)
				}
				answered.Add(1)
			}
		}()
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("%s: not within 20 s\n%s", what, sv.stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The poller's first look (a full GET: it has no ETag yet) may come
	// after the first answers; a third GET means it has been made.
	waitFor("the poller's first looks", func() bool { return bs.gets.Load() >= 3 })
	fullBefore := bs.full.Load()
	time.Sleep(500 * time.Millisecond) // several polls of an unchanged bundle
	if n := bs.full.Load() - fullBefore; n != 0 {
		t.Errorf("an unchanged bundle was downloaded %d times", n)
	}
	bs.set(mustRead(t, signed2))
	waitFor("revision s2 in force", func() bool { return sv.wait(t, c, "http://localhost")["revision"] == "s2" })
	if _, out := post(t, c, "http://localhost/v1/check", ask); !strings.Contains(out, "still no terraform apply") {
		t.Errorf("s2 does not decide: %s", out)
	}

	bs.set(mustRead(t, tampered))
	waitFor("the tampered bundle rejected", func() bool { return strings.Contains(sv.stderr.String(), "policy reload (bundle poll) rejected") })
	close(stop)
	wg.Wait()
	if h := sv.wait(t, c, "http://localhost"); h["revision"] != "s2" {
		t.Errorf("after the tampered bundle: %v", h)
	}
	if bad.Load() != 0 || answered.Load() == 0 {
		t.Errorf("%d of %d requests during the swaps were not answered by a policy", bad.Load(), answered.Load())
	}
	if code := sv.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, sv.stderr)
	}
	out, _, _ := run(t, "", "audit", "show", "--json", log)
	for _, want := range []string{`"policy_revision":"s2"`, `"rule":"policy.reloaded"`, `"rule":"policy.reload_failed"`} {
		if !strings.Contains(out, want) {
			t.Errorf("audit log lacks %s", want)
		}
	}
}
