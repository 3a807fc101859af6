package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets the test binary run as the toolgate command
// (TOOLGATE_MAIN=1, the arguments after "--"), so end-to-end tests drive
// the real stdio server the way an MCP client does.
func TestMain(m *testing.M) {
	if os.Getenv("TOOLGATE_MAIN") == "1" {
		args := os.Args[1:]
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Exit(execute(args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// toolgateCmd is the test binary running toolgate with args.
func toolgateCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "TOOLGATE_MAIN=1")
	return cmd
}

func TestMCPOverStdio(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	ctx := context.Background()
	for range 2 {
		cmd := toolgateCmd("mcp", "--workspace", ws, "--audit", log)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) != 7 {
			t.Fatalf("tools: %v %v", err, tools)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "alpha\n" {
			t.Errorf("read_file: %v %+v", err, res)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "../escape.txt", "content": "x"}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "blocked by safety guard") {
			t.Errorf("write outside: %v %+v", err, res)
		}
		cs.Close()
	}
	if out, _, code := run(t, "", "audit", "verify", log); code != 0 || !strings.Contains(out, "4 decisions") {
		t.Errorf("audit: %d %s", code, out)
	}
}

// TestMCPProtocolVersions speaks raw JSON-RPC: each version a client asks
// for is the one the server answers with.
func TestMCPProtocolVersions(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		cmd := toolgateCmd("mcp", "--workspace", ws, "--audit", "none")
		in, _ := cmd.StdinPipe()
		outp, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
		first, _ := bufio.NewReader(outp).ReadString('\n')
		in.Close()
		cmd.Wait()
		if !strings.Contains(first, `"protocolVersion":"`+v+`"`) || !strings.Contains(first, `"id":1`) {
			t.Errorf("%s: %s", v, first)
		}
	}
}
