package audit

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as an audit writer in a child process:
// AUDIT_WRITER=path AUDIT_COUNT=n (0: until killed) AUDIT_NAME=w. Each
// acknowledged record's id is printed once Append returned.
func TestMain(m *testing.M) {
	if path := os.Getenv("AUDIT_WRITER"); path != "" {
		os.Exit(writerMain(path))
	}
	os.Exit(m.Run())
}

func writerMain(path string) int {
	n, _ := strconv.Atoi(os.Getenv("AUDIT_COUNT"))
	name := os.Getenv("AUDIT_NAME")
	fs := Fsync(os.Getenv("AUDIT_FSYNC"))
	l, err := Open(Options{Path: path, Fsync: fs, Program: "writer " + name, MaxBytes: 0})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; n == 0 || i < n; i++ {
		id := fmt.Sprintf("%s-%d", name, i)
		// Records of varied size, some large, so writes are not all tiny.
		cmd := strings.Repeat("x", (i*7919)%5000)
		if _, err := l.Append(Record{Kind: KindDecision, ID: id, Tool: "exec", Decision: "allow",
			Args: []byte(`{"command":"` + cmd + `"}`)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(out, id)
		out.Flush()
	}
	if err := l.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func writer(t *testing.T, path, name string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AUDIT_WRITER="+path, "AUDIT_COUNT="+strconv.Itoa(n), "AUDIT_NAME="+name, "AUDIT_FSYNC=always")
	return cmd
}

func TestConcurrentWriters(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs, each = 6, 150
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := writer(t, p, fmt.Sprintf("w%d", i), each)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	res := Verify([]string{p}, VerifyOptions{})
	if res.Problem != nil {
		t.Fatalf("concurrent writers broke the log: %v", res.Problem)
	}
	if res.Decisions != procs*each || res.LastSeq != procs*each {
		t.Errorf("records lost or extra: %+v", res)
	}
}

func TestKilledWritersLeaveAtMostATornTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	acked := map[string]bool{}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	for round := range 6 {
		var wg sync.WaitGroup
		for i := range 3 {
			cmd := writer(t, p, fmt.Sprintf("r%dw%d", round, i), 0)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			started := make(chan struct{})
			go func() {
				defer wg.Done()
				sc := bufio.NewScanner(stdout)
				first := true
				for sc.Scan() {
					mu.Lock()
					acked[sc.Text()] = true
					mu.Unlock()
					if first {
						close(started)
						first = false
					}
				}
				if first {
					close(started)
				}
			}()
			// The kill lands at a random moment while the writer appends
			// (after its first record, so a slow start does not matter).
			delay := time.Duration(rng.IntN(100)) * time.Millisecond
			go func() {
				<-started
				time.Sleep(delay)
				_ = cmd.Process.Signal(syscall.SIGKILL)
			}()
			defer cmd.Wait()
		}
		wg.Wait()
		res := Verify([]string{p}, VerifyOptions{})
		if res.Problem != nil {
			if !res.Repairable {
				t.Fatalf("round %d: killed writers left more than a torn tail: %v", round, res.Problem)
			}
			if _, err := Repair(p, Options{}); err != nil {
				t.Fatalf("repair: %v", err)
			}
			if res := Verify([]string{p}, VerifyOptions{}); res.Problem != nil {
				t.Fatalf("after repair: %v", res.Problem)
			}
		}
	}
	// Every record a writer was told about is in the log.
	found := map[string]bool{}
	if err := scanIDs(p, found); err != nil {
		t.Fatal(err)
	}
	for id := range acked {
		if !found[id] {
			t.Errorf("acknowledged record %s is missing", id)
		}
	}
	if len(acked) == 0 {
		t.Fatal("no writer acknowledged anything")
	}
}

func scanIDs(p string, found map[string]bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			if _, r, perr := parseLine(line[:len(line)-1]); perr == nil && r.ID != "" {
				found[r.ID] = true
			}
		}
		if err != nil {
			return nil
		}
	}
}

func TestRepairRefusesOtherDamage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.jsonl")
	writeLog(t, p, 5, nil, 0)
	if _, err := Repair(p, Options{}); err == nil || !strings.Contains(err.Error(), "intact") {
		t.Errorf("repairing an intact log: %v", err)
	}
	ls := lines(t, p)
	ls[2], ls[3] = ls[3], ls[2]
	put(t, p, ls)
	if _, err := Repair(p, Options{}); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("repair of a reordered log: %v", err)
	}
	// A torn tail is cut, recorded, and writers can go on.
	p2 := filepath.Join(t.TempDir(), "b.jsonl")
	writeLog(t, p2, 5, nil, 0)
	f, _ := os.OpenFile(p2, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":1,"seq":6,"ki`)
	f.Close()
	if _, err := Open(Options{Path: p2}); err == nil || !strings.Contains(err.Error(), "torn") {
		t.Errorf("a writer appended after a torn tail: %v", err)
	}
	n, err := Repair(p2, Options{})
	if err != nil || n != int64(len(`{"v":1,"seq":6,"ki`)) {
		t.Fatalf("repair: %d %v", n, err)
	}
	res := Verify([]string{p2}, VerifyOptions{})
	if res.Problem != nil || res.LastSeq != 6 {
		t.Fatalf("after repair: %+v %v", res, res.Problem)
	}
	writeLog(t, p2, 1, nil, 0)
	if res := Verify([]string{p2}, VerifyOptions{}); res.Problem != nil {
		t.Fatal(res.Problem)
	}
}
