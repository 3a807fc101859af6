package sandbox

import (
	"encoding/binary"
	"maps"
	"runtime"
	"slices"
)

// The box's seccomp filter refuses (EPERM, or ENOSYS where libc should fall
// back) the few system calls that would let a process reach past the box
// even without capabilities:
//
//   - keyctl, add_key, request_key: kernel keyrings belong to a host uid, so
//     a box sharing it (toolgate run as root with a root-owned workspace)
//     could read its keys;
//   - chmod, fchmod, fchmodat(2), and file creation (open, openat, creat,
//     mknod(at)) with a set-user-ID or set-group-ID bit: a setuid binary
//     left in the workspace runs as its owner on the host;
//   - openat2 (its mode sits behind a pointer the filter cannot read; libc
//     falls back to openat on ENOSYS) and io_uring (its operations bypass
//     seccomp altogether);
//   - bpf, perf_event_open, userfaultfd: kernel attack surface no build or
//     test needs;
//   - a new user namespace: clone and unshare with CLONE_NEWUSER, and
//     clone3 (its flags sit behind a pointer; libc falls back to clone on
//     ENOSYS). Inside one a process holds every capability over what it
//     then makes, the way to most of the kernel's namespace bugs. This
//     is what bubblewrap's --disable-userns would do, which costs each
//     box another user namespace of bubblewrap's and a sysctl write.
//
// Calls from another architecture's ABI (x32, i386 on x86-64) are refused.

// Classic BPF as seccomp reads it.
const (
	bpfLD  = 0x00
	bpfW   = 0x00
	bpfABS = 0x20
	bpfJMP = 0x05
	bpfJEQ = 0x10
	bpfJGE = 0x30
	bpfK   = 0x00
	bpfALU = 0x04
	bpfAND = 0x50
	bpfRET = 0x06

	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000
	ePERM           = 1
	eNOSYS          = 38

	auditArchX86_64  = 0xc000003e
	auditArchAARCH64 = 0xc00000b7

	offNr   = 0
	offArch = 4
	offArgs = 16

	setIDBits = 0o6000
)

type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// syscallTable holds one architecture's numbers for the filter.
type syscallTable struct {
	arch uint32
	// x32 is the bit x86-64 sets for its x32 ABI (0 elsewhere).
	x32 uint32
	// deny are refused outright (errno per entry).
	deny map[uint32]uint32
	// modeArg: system call → index of its mode argument, refused when the
	// mode carries set-ID bits.
	modeArg map[uint32]int
	// flagArg: system call → index of its flags argument, refused when
	// the flags ask for a new user namespace.
	flagArg map[uint32]int
}

// cloneNewUser is CLONE_NEWUSER.
const cloneNewUser = 0x10000000

var syscallTables = map[string]syscallTable{
	"amd64": {
		arch: auditArchX86_64,
		x32:  0x40000000,
		deny: map[uint32]uint32{
			250: ePERM, 248: ePERM, 249: ePERM, // keyctl, add_key, request_key
			437: eNOSYS,                           // openat2
			425: eNOSYS, 426: eNOSYS, 427: eNOSYS, // io_uring_setup, _enter, _register
			321: ePERM, 298: ePERM, 323: ePERM, // bpf, perf_event_open, userfaultfd
			435: eNOSYS, // clone3
		},
		modeArg: map[uint32]int{
			90: 1, 91: 1, 268: 2, 452: 2, // chmod, fchmod, fchmodat, fchmodat2
			2: 2, 257: 3, 85: 1, // open, openat, creat
			133: 1, 259: 2, // mknod, mknodat
		},
		flagArg: map[uint32]int{56: 0, 272: 0}, // clone, unshare
	},
	"arm64": {
		arch: auditArchAARCH64,
		deny: map[uint32]uint32{
			219: ePERM, 217: ePERM, 218: ePERM, // keyctl, add_key, request_key
			437: eNOSYS,
			425: eNOSYS, 426: eNOSYS, 427: eNOSYS,
			280: ePERM, 241: ePERM, 282: ePERM, // bpf, perf_event_open, userfaultfd
			435: eNOSYS, // clone3
		},
		modeArg: map[uint32]int{
			52: 1, 53: 2, 452: 2, // fchmod, fchmodat, fchmodat2
			56: 3, // openat
			33: 2, // mknodat
		},
		flagArg: map[uint32]int{220: 0, 97: 0}, // clone, unshare
	},
}

// seccompProgram returns the filter for this machine's architecture, or
// nil where toolgate has no table (the box then runs without one).
func seccompProgram() []byte {
	t, ok := syscallTables[runtime.GOARCH]
	if !ok {
		return nil
	}
	var p []sockFilter
	stmt := func(code uint16, k uint32) { p = append(p, sockFilter{code: code, k: k}) }
	retErrno := func(e uint32) sockFilter { return sockFilter{code: bpfRET | bpfK, k: seccompRetErrno | e} }

	// A foreign architecture is refused.
	stmt(bpfLD|bpfW|bpfABS, offArch)
	p = append(p, sockFilter{code: bpfJMP | bpfJEQ | bpfK, jt: 1, jf: 0, k: t.arch})
	p = append(p, retErrno(ePERM))
	stmt(bpfLD|bpfW|bpfABS, offNr)
	if t.x32 != 0 {
		p = append(p, sockFilter{code: bpfJMP | bpfJGE | bpfK, jt: 0, jf: 1, k: t.x32})
		p = append(p, retErrno(ePERM))
	}
	for _, nr := range sortedKeys(t.deny) {
		p = append(p, sockFilter{code: bpfJMP | bpfJEQ | bpfK, jt: 0, jf: 1, k: nr})
		p = append(p, retErrno(t.deny[nr]))
	}
	// Argument checks: for each call, load the argument (low 32 bits,
	// little-endian), keep the bits that matter, refuse when any is set:
	// set-ID bits of a mode, CLONE_NEWUSER of clone's flags. A call
	// matched returns here; the accumulator then holds an argument, and
	// the next call's check must not compare that with its number.
	bits := func(nrs map[uint32]int, mask uint32) {
		for _, nr := range sortedKeys(nrs) {
			// if nr != this: skip the 5 instructions below
			p = append(p, sockFilter{code: bpfJMP | bpfJEQ | bpfK, jt: 0, jf: 5, k: nr})
			stmt(bpfLD|bpfW|bpfABS, uint32(offArgs+8*nrs[nr]))
			stmt(bpfALU|bpfAND|bpfK, mask)
			p = append(p, sockFilter{code: bpfJMP | bpfJEQ | bpfK, jt: 1, jf: 0, k: 0})
			p = append(p, retErrno(ePERM))
			stmt(bpfRET|bpfK, seccompRetAllow)
		}
	}
	bits(t.modeArg, setIDBits)
	bits(t.flagArg, cloneNewUser)
	stmt(bpfRET|bpfK, seccompRetAllow)

	out := make([]byte, 0, 8*len(p))
	for _, f := range p {
		out = binary.LittleEndian.AppendUint16(out, f.code)
		out = append(out, f.jt, f.jf)
		out = binary.LittleEndian.AppendUint32(out, f.k)
	}
	return out
}

func sortedKeys[V any](m map[uint32]V) []uint32 { return slices.Sorted(maps.Keys(m)) }
