package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// vmaOf returns the smaps entry of the mapping that holds p: its VmFlags and
// its AnonHugePages in kB.
func vmaOf(t *testing.T, p uintptr) (flags []string, hugeKB int) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	in := false
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if len(fs) > 0 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			a, z, _ := strings.Cut(fs[0], "-")
			lo, err1 := strconv.ParseUint(a, 16, 64)
			hi, err2 := strconv.ParseUint(z, 16, 64)
			in = err1 == nil && err2 == nil && uintptr(lo) <= p && p < uintptr(hi)
			found = found || in
			continue
		}
		if !in {
			continue
		}
		switch {
		case strings.HasPrefix(line, "VmFlags:"):
			flags = fs[1:]
		case strings.HasPrefix(line, "AnonHugePages:"):
			hugeKB, _ = strconv.Atoi(fs[1])
		}
	}
	if !found {
		t.Fatalf("no mapping holds %#x", p)
	}
	return flags, hugeKB
}

func has(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

// The heap the program allocates from after start-up is marked for huge
// pages: a block allocated and written now lies in a mapping with the "hg"
// flag.
func TestHeapAfterStartIsMarked(t *testing.T) {
	if !madviseMode() {
		t.Skip("transparent_hugepage is not in madvise mode here")
	}
	if os.Getenv("TOOLGATE_HUGEPAGES") != "" {
		t.Skip("TOOLGATE_HUGEPAGES is set")
	}
	if marked.hi <= marked.lo {
		t.Fatal("init marked nothing")
	}
	runtime.GC() // frees the reservation for reuse
	b := make([]byte, 8<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < marked.lo || p+uintptr(len(b)) > marked.hi {
		t.Fatalf("8 MiB allocated at %#x, outside the marked range %#x-%#x", p, marked.lo, marked.hi)
	}
	flags, hugeKB := vmaOf(t, p)
	if !has(flags, "hg") {
		t.Fatalf("mapping of a fresh heap block has flags %v, want hg (MADV_HUGEPAGE)", flags)
	}
	// Whether the kernel found free huge pages depends on the machine;
	// the mark is what toolgate controls.
	t.Logf("mapping flags %v, AnonHugePages %d kB", flags, hugeKB)
	runtime.KeepAlive(b)
}

// TOOLGATE_HUGEPAGES=0 turns the marking off (checked in a child process:
// init has run in this one).
func TestDisabledByEnvironment(t *testing.T) {
	if os.Getenv("HUGEHEAP_REPORT") == "1" {
		fmt.Printf("marked %d\n", marked.hi-marked.lo)
		return
	}
	for _, v := range []string{"0", "off"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDisabledByEnvironment$", "-test.v")
		cmd.Env = append(os.Environ(), "HUGEHEAP_REPORT=1", "TOOLGATE_HUGEPAGES="+v)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "marked 0\n") {
			t.Fatalf("TOOLGATE_HUGEPAGES=%s: child reports\n%s", v, out)
		}
	}
}

// A kernel mode other than madvise leaves the heap alone.
func TestModeFile(t *testing.T) {
	dir := t.TempDir()
	old := modeFile
	defer func() { modeFile = old }()
	for text, want := range map[string]bool{
		"always [madvise] never\n": true,
		"[always] madvise never\n": false,
		"always madvise [never]\n": false,
	} {
		modeFile = dir + "/enabled"
		if err := os.WriteFile(modeFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := madviseMode(); got != want {
			t.Errorf("mode %q: madviseMode() = %v, want %v", text, got, want)
		}
	}
	modeFile = dir + "/missing"
	if madviseMode() {
		t.Error("missing mode file: madviseMode() = true")
	}
}

// Strict overcommit or an address-space limit leaves the heap alone: the
// reservation could fail to map, which the runtime treats as fatal.
func TestRoomToReserve(t *testing.T) {
	dir := t.TempDir()
	old := overcommitFile
	defer func() { overcommitFile = old }()
	for text, want := range map[string]bool{"0\n": true, "1\n": true, "2\n": false, "": false} {
		overcommitFile = dir + "/overcommit"
		if err := os.WriteFile(overcommitFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur != ^uint64(0) {
			want = false // this test itself runs under ulimit -v
		}
		if got := roomToReserve(); got != want {
			t.Errorf("overcommit %q: roomToReserve() = %v, want %v", text, got, want)
		}
	}
	overcommitFile = dir + "/missing"
	if roomToReserve() {
		t.Error("unreadable overcommit policy: roomToReserve() = true")
	}
}

// Under ulimit -v the child process starts and marks nothing.
func TestAddressSpaceLimit(t *testing.T) {
	if os.Getenv("HUGEHEAP_REPORT") == "1" {
		return // TestDisabledByEnvironment's child prints
	}
	cmd := exec.Command("/bin/sh", "-c", `ulimit -v 4000000 && exec "$0" -test.run='^TestDisabledByEnvironment$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), "HUGEHEAP_REPORT=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child under ulimit -v: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "marked 0\n") {
		t.Fatalf("child under ulimit -v marked the heap:\n%s", out)
	}
}

// TestFirstCollectionFreesReservation runs a child that reserves and
// allocates until the first collection ends: that collection must find
// the reservation dead and free it. Had it counted the 128 MiB as live,
// the heap would grow to several times that before the next one.
func TestFirstCollectionFreesReservation(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HUGEHEAP_FIRSTGC=1", "GOGC=100")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var live uint64
	if strings.Contains(string(out), "marked 0\n") {
		t.Skip("the heap cannot be marked here (kernel mode or limits)")
	}
	if _, err := fmt.Sscanf(string(out), "live %d", &live); err != nil {
		t.Fatalf("child printed %q: %v", out, err)
	}
	if live >= reserve/2 {
		t.Fatalf("the first collection after Reserve found %d bytes live: the reservation (%d) was still referenced", live, reserve)
	}
}

// firstCollection reserves, allocates until the first collection has
// ended and prints the heap that collection found live.
func firstCollection() {
	cycles := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(cycles)
	before := cycles[0].Value.Uint64()
	Reserve()
	if marked.lo == 0 {
		fmt.Println("marked 0")
		return
	}
	var keep [][]byte
	for i := 0; ; i++ {
		keep = append(keep, make([]byte, 512))
		if len(keep) == 1024 {
			keep = keep[:0]
		}
		if i%256 == 0 {
			metrics.Read(cycles)
			if cycles[0].Value.Uint64() > before {
				break
			}
		}
	}
	fmt.Printf("live %d\n", cycles[1].Value.Uint64())
}

// TestMain reserves, as main does.
func TestMain(m *testing.M) {
	if os.Getenv("HUGEHEAP_FIRSTGC") == "1" {
		firstCollection()
		os.Exit(0)
	}
	Reserve()
	os.Exit(m.Run())
}
