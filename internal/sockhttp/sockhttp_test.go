package sockhttp

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadResponse(t *testing.T) {
	read := func(s string) (int, string, error) {
		code, body, err := readResponse(bufio.NewReader(strings.NewReader(s)))
		return code, string(body), err
	}
	if code, body, err := read("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n{}\n\nextra"); err != nil || code != 200 || body != "{}\n\n" {
		t.Fatalf("sized answer: %d %q %v", code, body, err)
	}
	if code, _, err := read("HTTP/1.1 422 Unprocessable Entity\r\ncontent-length: 2\r\n\r\n{}"); err != nil || code != 422 {
		t.Fatalf("422: %d %v", code, err)
	}
	for _, bad := range []string{
		"",
		"SSH-2.0-OpenSSH\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\n{}", // no length
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n",               // over MaxAnswer
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}",                   // short body
		"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", // endless header
	} {
		if _, _, err := read(bad); err == nil {
			t.Errorf("%.60q: no error", bad)
		}
	}
}

func TestHeaderSafe(t *testing.T) {
	for s, want := range map[string]bool{"/ws": true, "/ws ": false, " /ws": false, "/w\ts": true, "/ws\t": false, "/w\ns": false} {
		if got := HeaderSafe(s); got != want {
			t.Errorf("HeaderSafe(%q) = %v", s, got)
		}
	}
}
