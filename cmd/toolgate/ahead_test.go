package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func needBwrap(t *testing.T) {
	t.Helper()
	for _, p := range []string{"/usr/bin/bwrap", "/bin/bwrap"} {
		if _, err := os.Stat(p); err == nil {
			return
		}
	}
	t.Skip("bubblewrap is not installed (scripts/ensure-bwrap.sh installs it)")
}

// waitingBoxes counts the bwrap processes, on this machine, of boxes for a
// command holding token (other tests make boxes too).
func waitingBoxes(token string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte("--sync-fd\x00")) {
			continue
		}
		if argv0, _, _ := bytes.Cut(b, []byte{0}); filepath.Base(string(argv0)) == "bwrap" && bytes.Contains(b, []byte(token)) {
			n++
		}
	}
	return n
}

func execLine(id, command string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "name": "exec", "arguments": map[string]string{"command": command}})
	return string(b)
}

// A call whose box was made ahead, while the call before it ran, is
// decided again in its turn: here the call before it made the path it
// writes lead out of the workspace, so it is denied and nothing of it runs.
func TestRunDecidesABoxMadeAheadInItsTurn(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	in := strings.Join([]string{
		execLine("a", "true"),
		execLine("b", "true"),
		execLine("c", "sleep 0.5; ln -s /etc link"),
		execLine("d", "touch marker && echo x > link/evil # "+filepath.Base(ws)),
	}, "\n") + "\n"
	done := make(chan struct{})
	seen := make(chan bool, 1)
	go func() {
		for {
			select {
			case <-done:
				seen <- false
				return
			default:
			}
			if waitingBoxes(filepath.Base(ws)) > 0 {
				seen <- true
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	out, errs, code := run(t, in, "run", "--workspace", ws, "--approve", "deny", "--timeout", "20", "--audit", "none")
	close(done)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !<-seen {
		t.Fatalf("no box was made ahead: the test shows nothing\n%s\n%s", out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[3], `"decision":"deny"`) || !strings.Contains(lines[3], "workspace.write_outside") {
		t.Fatalf("records:\n%s", out)
	}
	for _, p := range []string{filepath.Join(ws, "marker"), "/etc/evil"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: the denied call ran", p)
		}
	}
}

// A toolgate that dies leaves the boxes it made ahead without a go-ahead:
// their commands, not yet decided in their turn, never run, and the boxes
// do not outlive it (sandbox/deathwatch.go).
func TestRunKilledWhileABoxWaits(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	marker := filepath.Join(ws, "marker")
	lines := []string{execLine("a", "true"), execLine("b", "true"), execLine("c", "sleep 10"), execLine("d", "touch "+marker)}
	if !killRunWhen(t, ws, lines, func() bool { return waitingBoxes(marker) > 0 }) {
		t.Fatal("the box made ahead outlived toolgate")
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command of a box made ahead ran after toolgate died")
	}
}

// processes counts the processes on this machine whose command line is
// argv.
func processes(argv ...string) int {
	want := []byte(strings.Join(argv, "\x00") + "\x00")
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && bytes.Equal(b, want) {
			n++
		}
	}
	return n
}

// A toolgate killed outright takes its running box with it (bubblewrap's
// --die-with-parent, and the watcher of sandbox/deathwatch.go behind it).
func TestRunKilledWhileABoxRuns(t *testing.T) {
	needBwrap(t)
	if os.Getuid() != 0 {
		t.Skip("the boxes' cgroups need root here")
	}
	ws := t.TempDir()
	// a sleep no other test runs
	secs := "29.5" + strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, filepath.Dir(ws))
	if !killRunWhen(t, ws, []string{execLine("a", "sleep "+secs)}, func() bool { return processes("sleep", secs) > 0 }) {
		t.Fatal("the box's command outlived the toolgate that ran it")
	}
}

// killRunWhen starts `toolgate run` in ws, hands it lines, waits until
// present says what it looks for is there, kills toolgate with SIGKILL
// and says whether that was gone within five seconds.
func killRunWhen(t *testing.T, ws string, lines []string, present func() bool) (gone bool) {
	t.Helper()
	cmd := toolgateCmd("run", "--workspace", ws, "--audit", "none", "--timeout", "60")
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdin.Write([]byte(strings.Join(lines, "\n") + "\n"))
	deadline := time.Now().Add(10 * time.Second)
	for !present() {
		if time.Now().After(deadline) {
			t.Fatal("what the test kills toolgate over never came (no box made ahead, or no command started)")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for deadline = time.Now().Add(5 * time.Second); present(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// With --fsync always, the answer to a line whose next line is already
// read waits for that line's decision record (one fsync for both): when it
// is written, the next decision is in the log. It is still out before the
// next call runs: here the next call reads the answers written so far, and
// finds it. The log holds every record, intact.
func TestRunHeldAnswerGoesOutBeforeTheNextCallRuns(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	answers, err := os.Create(filepath.Join(ws, "answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer answers.Close()
	ids := []string{"probe", "first", "second", "third", "fourth"}
	in := strings.Join([]string{
		// the first box is the sandbox's probe: nothing is read ahead of it
		execLine("probe", "true"),
		execLine("first", "echo one"),
		execLine("second", "cat answers.jsonl"),
		execLine("third", "rm -rf /"),
		execLine("fourth", "true"),
	}, "\n") + "\n"
	spy := &answerSpy{f: answers, log: logPath, next: map[string]string{}}
	for i := 1; i+1 < len(ids); i++ {
		spy.next[ids[i]] = ids[i+1]
	}
	var errb bytes.Buffer
	if code := execute([]string{"run", "--workspace", ws, "--approve", "deny", "--audit", logPath, "--fsync", "always"}, strings.NewReader(in), spy, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(answers.Name())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var second string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct{ ID, Output string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		got = append(got, r.ID)
		if r.ID == "second" {
			second = r.Output
		}
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Errorf("answers %v, want them in input order", got)
	}
	if !strings.Contains(second, `"id":"first"`) {
		t.Errorf("the second call ran before the first's answer was out: it read %q", second)
	}
	for _, id := range ids[1:4] {
		if !spy.sawNext[id] {
			t.Errorf("the answer to %q went out before the next call's decision was logged: not held for one fsync", id)
		}
	}
	out, errs, code := run(t, "", "audit", "verify", logPath)
	if code != 0 || !strings.Contains(out, "5 decisions, 4 outcomes") {
		t.Errorf("audit verify: exit %d: %s %s", code, out, errs)
	}
}

// answerSpy passes run's answers on to f and notes, for each answer whose
// id has a next one, whether the log held that next call's decision when
// the answer was written.
type answerSpy struct {
	f       *os.File
	log     string
	next    map[string]string
	sawNext map[string]bool
	partial []byte
}

func (a *answerSpy) Write(p []byte) (int, error) {
	a.partial = append(a.partial, p...)
	for {
		i := bytes.IndexByte(a.partial, '\n')
		if i < 0 {
			break
		}
		var r struct{ ID string }
		if json.Unmarshal(a.partial[:i], &r) == nil {
			if next, ok := a.next[r.ID]; ok {
				logged, _ := os.ReadFile(a.log)
				if a.sawNext == nil {
					a.sawNext = map[string]bool{}
				}
				a.sawNext[r.ID] = bytes.Contains(logged, []byte(`"id":"`+next+`","kind":"decision"`))
			}
		}
		a.partial = a.partial[i+1:]
	}
	return a.f.Write(p)
}
