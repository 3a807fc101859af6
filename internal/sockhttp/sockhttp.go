package sockhttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The request headers the service reads.
const (
	// WorkspaceHeader names the workspace a request is for; the service
	// answers 409 when it serves another.
	WorkspaceHeader = "X-Toolgate-Workspace"
	// HomeHeader names the client's home directory; the service answers
	// 409 when its ~ is another.
	HomeHeader = "X-Toolgate-Home"
	// UnsandboxedHeader "1" says the call will run outside toolgate's
	// sandbox (the agent runs it).
	UnsandboxedHeader = "X-Toolgate-Unsandboxed"
)

// MaxAnswer bounds an answer's body.
const MaxAnswer = 4 << 20

// Header is one request header.
type Header struct{ Name, Value string }

// HeaderSafe says whether s travels in an HTTP header unchanged: HTTP trims
// white space around values, and line breaks would end the header.
func HeaderSafe(s string) bool {
	return s == strings.TrimSpace(s) && !strings.ContainsAny(s, "\r\n\x00")
}

// Post sends body (JSON) to path on the service listening on the unix
// socket, with the headers, and returns the answer's status and body. The
// whole exchange ends by deadline.
func Post(socket, path string, headers []Header, body []byte, deadline time.Time) (status int, answer []byte, err error) {
	var req bytes.Buffer
	req.WriteString("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n")
	for _, h := range headers {
		if !HeaderSafe(h.Name) || strings.ContainsAny(h.Name, ": ") || !HeaderSafe(h.Value) {
			return 0, nil, fmt.Errorf("the %s header cannot travel in HTTP", h.Name)
		}
		req.WriteString(h.Name + ": " + h.Value + "\r\n")
	}
	req.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	req.Write(body)
	conn, err := Dial(socket, deadline)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return 0, nil, err
	}
	if _, err := conn.Write(req.Bytes()); err != nil {
		return 0, nil, err
	}
	return readResponse(bufio.NewReader(conn))
}

// Dial connects to the unix socket at path before deadline. The socket is
// non-blocking, so the returned file takes deadlines.
func Dial(path string, deadline time.Time) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EAGAIN || !time.Now().Before(deadline) {
			break
		}
		// the service's backlog is full: try again shortly
		time.Sleep(time.Millisecond)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "dial unix", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// readResponse reads an HTTP/1.1 response with a Content-Length body (what
// the service sends); anything else is an error.
func readResponse(br *bufio.Reader) (status int, body []byte, err error) {
	line, err := readLine(br)
	if err != nil {
		return 0, nil, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(code) != 3 {
		return 0, nil, fmt.Errorf("not an HTTP response: %q", line)
	}
	if status, err = strconv.Atoi(code); err != nil {
		return 0, nil, fmt.Errorf("not an HTTP response: %q", line)
	}
	length := -1
	for {
		h, err := readLine(br)
		if err != nil {
			return 0, nil, err
		}
		if h == "" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return 0, nil, fmt.Errorf("bad Content-Length %q", v)
			}
			length = n
		case "transfer-encoding":
			return 0, nil, errors.New("the answer is not sized (Transfer-Encoding)")
		}
	}
	if length < 0 {
		return 0, nil, errors.New("the answer has no Content-Length")
	}
	if length > MaxAnswer {
		return 0, nil, errors.New("the answer is too large")
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, nil, err
	}
	return status, body, nil
}

func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > 64<<10 {
			return "", errors.New("a header line is too long")
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}
