package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"
)

const (
	// reserve is how much heap address space is marked: more than a long
	// `toolgate check` stream keeps at GOGC=800.
	reserve = 128 << 20
	// arena is the Go runtime's heap arena size on 64-bit Linux; the heap
	// mapped before this package ran starts at an arena boundary.
	arena    = 64 << 20
	hugePage = 2 << 20

	madvHugepage = 14 // MADV_HUGEPAGE
)

// modeFile holds the kernel's transparent huge page mode, the chosen one in
// brackets: "always [madvise] never".
var modeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// marked is the range passed to madvise, for tests; zero when nothing was
// marked.
var marked struct{ lo, hi uintptr }

// Reserve marks the heap, unless TOOLGATE_HUGEPAGES is "0" or "off" or
// the kernel or limits do not allow it (see doc.go). The reservation is
// freed by the next collection.
func Reserve() {
	switch os.Getenv("TOOLGATE_HUGEPAGES") {
	case "0", "off":
		return
	}
	if !madviseMode() || !roomToReserve() {
		return
	}
	// The allocation must not start a collection while the reservation
	// is still referenced: that collection would count its 128 MiB as
	// live and let the heap grow to several times that before the next
	// one (most of it fresh pages, each faulted in and zeroed). With the
	// collector held off, the first collection comes after mark returns
	// and frees it.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	mark()
}

// overcommitFile holds the kernel's overcommit policy; "2" counts every
// writable mapping against a commit limit.
var overcommitFile = "/proc/sys/vm/overcommit_memory"

// roomToReserve reports whether mapping the reservation cannot fail: the
// runtime treats a failed heap mapping as fatal, so under strict overcommit
// or an address-space limit (ulimit -v) nothing is reserved.
func roomToReserve() bool {
	b, err := os.ReadFile(overcommitFile)
	if err != nil {
		return false
	}
	switch string(bytes.TrimSpace(b)) {
	case "0", "1":
	default:
		return false
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur != ^uint64(0) {
		return false
	}
	return true
}

func madviseMode() bool {
	b, err := os.ReadFile(modeFile)
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
}

func mark() {
	// Larger than anything the heap can have free this early, so the
	// runtime maps fresh address space for it: fresh memory is known to be
	// zero, so the allocation touches no page.
	b := make([]byte, reserve)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := p &^ (arena - 1)
	hi := (p + reserve) &^ (hugePage - 1)
	// Parts of [lo, hi) may be unmapped (madvise then reports ENOMEM after
	// marking the rest); the mark stays with the mappings, which the
	// runtime keeps for the life of the process.
	syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage)
	marked.lo, marked.hi = lo, hi
	runtime.KeepAlive(b)
}
