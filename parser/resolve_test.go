package parser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// resolveTempDir is a fresh temporary directory with its own symlinks resolved
// (/tmp itself may be a link), so expected answers can be spelled from it.
func resolveTempDir(tb testing.TB) string {
	tb.Helper()
	d, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func resolveMkdir(tb testing.TB, dirs ...string) {
	tb.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
}

func resolveWrite(tb testing.TB, files ...string) {
	tb.Helper()
	for _, f := range files {
		if err := os.WriteFile(f, []byte(f), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func resolveLink(tb testing.TB, target, link string) {
	tb.Helper()
	if err := os.Symlink(target, link); err != nil {
		tb.Fatal(err)
	}
}

// resolveOnHost reports whether path exists on this machine (for answers under /etc,
// which the test does not own).
func resolveOnHost(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// resolveLexicalArea reports whether r lies in /proc or /dev, which Resolve does not
// consult and where the kernel's answer is the gateway's own process.
func resolveLexicalArea(r string) bool {
	for _, top := range []string{"/proc", "/dev"} {
		if r == top || strings.HasPrefix(r, top+"/") {
			return true
		}
	}
	return false
}

// resolveIsClean reports whether r is absolute and already clean.
func resolveIsClean(r string) bool {
	return strings.HasPrefix(r, "/") && filepath.Clean(r) == r
}

// resolveCheckKernel compares Resolve's answer for the absolute path p with the real
// kernel: when Resolve says it exists, stat(2) of p must succeed and be the
// same file as real, and real must not itself be a symlink; when Resolve says
// it does not (or loops), stat(2) of p must fail.
func resolveCheckKernel(tb testing.TB, p, real string, exists, loop bool) {
	tb.Helper()
	pfi, perr := os.Stat(p)
	switch {
	case loop || !exists:
		if perr == nil {
			tb.Errorf("Resolve(%q) = %q exists=false loop=%v, but the kernel opens it", p, real, loop)
		}
	case perr != nil:
		tb.Errorf("Resolve(%q) = %q exists=true, but the kernel says %v", p, real, perr)
	default:
		rfi, err := os.Lstat(real)
		if err != nil {
			tb.Errorf("Resolve(%q) = %q: lstat of the result: %v", p, real, err)
			return
		}
		if rfi.Mode()&os.ModeSymlink != 0 {
			tb.Errorf("Resolve(%q) = %q, which is still a symlink", p, real)
		}
		if !os.SameFile(pfi, rfi) {
			tb.Errorf("Resolve(%q) = %q, but the kernel lands on another file", p, real)
		}
	}
}

// resolveTree builds the fixture shared by the tests and the benchmark:
//
//	root/x                       file (where src/link_up/../x lands)
//	root/outside/secret.txt      file
//	root/home/ws/                the workspace
//	  file.txt  src/main.go  src/pkg/sub/main.go
//	  src/link_up -> ../..       (root/home)
//	  link_etc -> /etc   link_proc -> /proc/self   link_out -> ../../outside
//	  link_file -> file.txt      dangling -> ../../outside/new.txt
//	  chain1 -> chain2 -> sub/chain3 -> <root>/home/ws/abs -> src/
//	  loop_a -> loop_b -> loop_a     self -> self
//	root/long40/l0 -> l1 -> … -> l39 -> <root>/home/ws/src   (40 links)
//	root/long41/l0 -> l1 -> … -> l40 -> <root>/home/ws/src   (41 links)
func resolveTree(tb testing.TB) (root, ws string) {
	tb.Helper()
	root = resolveTempDir(tb)
	ws = filepath.Join(root, "home", "ws")
	resolveMkdir(tb, filepath.Join(root, "outside"), filepath.Join(ws, "src", "pkg", "sub"), filepath.Join(ws, "sub"))
	resolveWrite(tb,
		filepath.Join(root, "x"),
		filepath.Join(root, "outside", "secret.txt"),
		filepath.Join(ws, "file.txt"),
		filepath.Join(ws, "src", "main.go"),
		filepath.Join(ws, "src", "pkg", "sub", "main.go"))
	resolveLink(tb, "../..", filepath.Join(ws, "src", "link_up"))
	resolveLink(tb, "/etc", filepath.Join(ws, "link_etc"))
	resolveLink(tb, "/proc/self", filepath.Join(ws, "link_proc"))
	resolveLink(tb, "../../outside", filepath.Join(ws, "link_out"))
	resolveLink(tb, "file.txt", filepath.Join(ws, "link_file"))
	resolveLink(tb, "../../outside/new.txt", filepath.Join(ws, "dangling"))
	resolveLink(tb, "chain2", filepath.Join(ws, "chain1"))
	resolveLink(tb, "sub/chain3", filepath.Join(ws, "chain2"))
	resolveLink(tb, filepath.Join(ws, "abs"), filepath.Join(ws, "sub", "chain3"))
	resolveLink(tb, "src/", filepath.Join(ws, "abs"))
	resolveLink(tb, "loop_b", filepath.Join(ws, "loop_a"))
	resolveLink(tb, "loop_a", filepath.Join(ws, "loop_b"))
	resolveLink(tb, "self", filepath.Join(ws, "self"))
	for _, n := range []int{40, 41} {
		dir := filepath.Join(root, fmt.Sprintf("long%d", n))
		resolveMkdir(tb, dir)
		for i := 0; i < n-1; i++ {
			resolveLink(tb, fmt.Sprintf("l%d", i+1), filepath.Join(dir, fmt.Sprintf("l%d", i)))
		}
		resolveLink(tb, filepath.Join(ws, "src"), filepath.Join(dir, fmt.Sprintf("l%d", n-1)))
	}
	return root, ws
}

func TestResolve(t *testing.T) {
	root, ws := resolveTree(t)
	osRelease, err := filepath.EvalSymlinks("/etc/os-release") // a link itself on many systems
	if err != nil {
		osRelease = "/etc/os-release"
	}
	tests := []struct {
		name, p, want string
		exists, loop  bool
	}{
		{"plain file", ws + "/src/main.go", ws + "/src/main.go", true, false},
		{"plain dir", ws + "/src", ws + "/src", true, false},
		{"trailing slash on dir", ws + "/src/", ws + "/src", true, false},
		{"repeated slashes and dots", root + "//home///ws/./src/.//main.go", ws + "/src/main.go", true, false},
		{"dotdot between real dirs", ws + "/src/pkg/../../file.txt", ws + "/file.txt", true, false},
		{"missing leaf", ws + "/src/new.go", ws + "/src/new.go", false, false},
		{"missing leaf trailing slash", ws + "/src/newdir/", ws + "/src/newdir", false, false},
		{"missing middle", ws + "/nope/a/../b.txt", ws + "/nope/b.txt", false, false},
		{"missing middle, lexical dot", ws + "/nope/./a//b", ws + "/nope/a/b", false, false},
		{"missing middle, dotdot back past it", ws + "/nope/a/../../file.txt", ws + "/file.txt", false, false},
		{"missing middle, link after it is followed", ws + "/nope/../link_out/secret.txt", root + "/outside/secret.txt", false, false},
		{"link to /etc", ws + "/link_etc/passwd", "/etc/passwd", resolveOnHost("/etc/passwd"), false},
		{"link to /etc, os-release", ws + "/link_etc/os-release", osRelease, resolveOnHost(osRelease), false},
		{"link to /etc, shadow", ws + "/link_etc/shadow", "/etc/shadow", resolveOnHost("/etc/shadow"), false},
		{"link to /etc, dotdot is /etc's parent", ws + "/link_etc/../etc/passwd", "/etc/passwd", resolveOnHost("/etc/passwd"), false},
		{"relative link up, then dotdot", ws + "/src/link_up/../x", root + "/x", true, false},
		{"relative link up", ws + "/src/link_up", root + "/home", true, false},
		{"relative link up, trailing slash", ws + "/src/link_up/", root + "/home", true, false},
		{"link out of the workspace", ws + "/link_out/secret.txt", root + "/outside/secret.txt", true, false},
		{"chain of links", ws + "/chain1/main.go", ws + "/src/main.go", true, false},
		{"chain of links, last component", ws + "/chain1", ws + "/src", true, false},
		{"chain of links, then dotdot", ws + "/chain1/../file.txt", ws + "/file.txt", true, false},
		{"dangling link", ws + "/dangling", root + "/outside/new.txt", false, false},
		{"link to file", ws + "/link_file", ws + "/file.txt", true, false},
		{"link to file, trailing slash", ws + "/link_file/", ws + "/file.txt", false, false},
		{"link loop", ws + "/loop_a/x", ws + "/loop_a/x", false, true},
		{"link loop, lexical clean", ws + "/./loop_b/../loop_a", ws + "/loop_a", false, true},
		{"self loop", ws + "/self", ws + "/self", false, true},
		{"40 links", root + "/long40/l0/main.go", ws + "/src/main.go", true, false},
		{"41 links", root + "/long41/l0/main.go", root + "/long41/l0/main.go", false, true},
		{"link to /proc/self", ws + "/link_proc/environ", "/proc/self/environ", true, false},
		{"link to /proc/self, dotdot lexical", ws + "/link_proc/../1/environ", "/proc/1/environ", true, false},
		{"/proc/self/cwd not followed", "/proc/self/cwd/x", "/proc/self/cwd/x", true, false},
		{"/proc/self/root not followed", "/proc/self/root/etc/shadow", "/proc/self/root/etc/shadow", true, false},
		{"/proc lexical dots", "/proc//self/./fd/../environ", "/proc/self/environ", true, false},
		// a magic link's .. is its target's parent, unknown here: the
		// path stays below the link, where it is judged
		{"/proc/self/cwd/.. stays below", "/proc/self/cwd/../../etc/shadow", "/proc/self/cwd/etc/shadow", true, false},
		{"/proc/1/root/.. stays below", "/proc/1/root/../etc", "/proc/1/root/etc", true, false},
		{"/proc/self/task/T/cwd/..", "/proc/self/task/7/cwd/../x", "/proc/self/task/7/cwd/x", true, false},
		{"/proc/self/fd/N/..", "/proc/self/fd/3/../../etc/shadow", "/proc/self/fd/3/etc/shadow", true, false},
		{"/dev/fd/N/..", "/dev/fd/3/../../etc/shadow", "/dev/fd/3/etc/shadow", true, false},
		{"/dev/stdout", "/dev/stdout", "/dev/stdout", true, false},
		{"/dev/fd", "/dev/fd/3", "/dev/fd/3", true, false},
		{"/dev/tcp", "/dev/tcp/1.2.3.4/80", "/dev/tcp/1.2.3.4/80", true, false},
		{"out of /dev resumes the walk", "/dev/../etc/passwd", "/etc/passwd", resolveOnHost("/etc/passwd"), false},
		{"out of /proc resumes the walk", "/proc/self/../../" + ws[1:] + "/link_out/secret.txt", root + "/outside/secret.txt", true, false},
		{"file as directory", ws + "/file.txt/x", ws + "/file.txt/x", false, false},
		{"file with trailing slash", ws + "/file.txt/", ws + "/file.txt", false, false},
		{"file with slash dot", ws + "/file.txt/.", ws + "/file.txt", false, false},
		{"file with slash dotdot", ws + "/file.txt/..", ws, false, false},
		{"root", "/", "/", true, false},
		{"double slash", "//", "/", true, false},
		{"slash dot slash", "/./", "/", true, false},
		{"dotdot of root", "/../..", "/", true, false},
		{"dotdot of root then path", "/../" + ws[1:] + "/src", ws + "/src", true, false},
		{"empty is /", "", "/", true, false},
		{"relative is against /", ws[1:] + "/src/./main.go", ws + "/src/main.go", true, false},
		{"relative dotdot is against /", "../" + ws[1:], ws, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, exists, loop := Resolve(tc.p)
			if got != tc.want || exists != tc.exists || loop != tc.loop {
				t.Fatalf("Resolve(%q) = %q, %v, %v; want %q, %v, %v",
					tc.p, got, exists, loop, tc.want, tc.exists, tc.loop)
			}
			if !resolveIsClean(got) {
				t.Errorf("Resolve(%q) = %q is not absolute and clean", tc.p, got)
			}
			if !loop {
				// Idempotent: the result walks to itself. When the path
				// does not exist the result still re-resolves to itself.
				again, againExists, againLoop := Resolve(got)
				if again != got || againLoop || (exists && !againExists) {
					t.Errorf("Resolve(Resolve(%q)) = %q, %v, %v; want %q", tc.p, again, againExists, againLoop, got)
				}
			}
			if !resolveLexicalArea(got) && !strings.HasPrefix(tc.p, "/proc") && !strings.HasPrefix(tc.p, "/dev") {
				p := tc.p
				if !strings.HasPrefix(p, "/") {
					p = "/" + p
				}
				resolveCheckKernel(t, p, got, exists, loop)
			}
		})
	}
}

// TestResolveLinkUpMatchesKernel checks the case the design calls out against
// the kernel itself: src/link_up/../x where link_up -> ../.. is not the
// lexical src/x but the x two levels above src's parent.
func TestResolveLinkUpMatchesKernel(t *testing.T) {
	root, ws := resolveTree(t)
	p := ws + "/src/link_up/../x"
	got, exists, loop := Resolve(p)
	if !exists || loop {
		t.Fatalf("Resolve(%q) = %q, %v, %v", p, got, exists, loop)
	}
	if lexical := filepath.Clean(p); got == lexical {
		t.Fatalf("Resolve(%q) = the lexical clean %q", p, lexical)
	}
	viaKernel, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	landed, err := os.Stat(got)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(viaKernel, landed) || got != root+"/x" {
		t.Fatalf("Resolve(%q) = %q; the kernel opens %s/x", p, got, root)
	}
	// And the kernel does not open the lexical answer as the same file.
	if _, err := os.Stat(ws + "/src/x"); err == nil {
		t.Fatalf("%s/src/x exists; fixture broken", ws)
	}
}

// TestResolveLinkLimitMatchesKernel checks the 40-link limit against the
// kernel: the 40-link chain opens, the 41-link chain fails with ELOOP.
func TestResolveLinkLimitMatchesKernel(t *testing.T) {
	root, _ := resolveTree(t)
	if _, err := os.Stat(root + "/long40/l0/main.go"); err != nil {
		t.Fatalf("kernel on 40 links: %v", err)
	}
	if _, err := os.Stat(root + "/long41/l0/main.go"); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("kernel on 41 links: %v; want ELOOP", err)
	}
	if _, _, loop := Resolve(root + "/long40/l0/main.go"); loop {
		t.Error("Resolve: 40 links reported as a loop")
	}
	if _, _, loop := Resolve(root + "/long41/l0/main.go"); !loop {
		t.Error("Resolve: 41 links not reported as a loop")
	}
}

// resolveFuzzNames is the alphabet FuzzResolve builds paths from; every directory of
// the fuzz tree holds the same entries, so random walks keep meeting links.
var resolveFuzzNames = []string{
	"a", "f", "x", ".", "..", "",
	"l_up", "l_abs", "l_loop", "l_dang", "l_root", "l_proc", "l_file", "l_dot", "l_chain", "l_out",
}

// resolveFuzzTree builds root/a/a/a, each level holding:
//
//	f        file
//	l_up     -> ../..           l_abs  -> <root>/a
//	l_loop   -> l_loop          l_dang -> x/y
//	l_root   -> /               l_proc -> /proc/self
//	l_file   -> f               l_dot  -> .
//	l_chain  -> l_up/a          l_out  -> ../../../../..
func resolveFuzzTree(tb testing.TB) string {
	tb.Helper()
	root := resolveTempDir(tb)
	dir := root
	for level := 0; level < 4; level++ {
		resolveMkdir(tb, dir)
		resolveWrite(tb, filepath.Join(dir, "f"))
		for name, target := range map[string]string{
			"l_up": "../..", "l_abs": root + "/a", "l_loop": "l_loop", "l_dang": "x/y",
			"l_root": "/", "l_proc": "/proc/self", "l_file": "f", "l_dot": ".",
			"l_chain": "l_up/a", "l_out": "../../../../..",
		} {
			resolveLink(tb, target, filepath.Join(dir, name))
		}
		dir = filepath.Join(dir, "a")
	}
	return root
}

func FuzzResolve(f *testing.F) {
	root := resolveFuzzTree(f)
	f.Add([]byte{0, 0, 1}, "")
	f.Add([]byte{0, 6, 4, 2}, "/etc/../proc/self/../x")
	f.Add([]byte{0, 0, 14, 4, 0, 1}, "//./dev/fd/../stdout/")
	f.Add([]byte{8, 4, 4, 0x80 | 11, 3, 1}, "a/../../b")
	f.Add([]byte{2, 4, 15, 4, 10}, "/usr/lib/../bin")
	f.Add([]byte{0, 9, 0, 12, 4, 1}, "\x00/x")
	f.Fuzz(func(t *testing.T, sel []byte, raw string) {
		if len(sel) > 64 || len(raw) > 4096 {
			return
		}
		var b strings.Builder
		b.WriteString(root)
		viaProc := false
		for _, c := range sel {
			b.WriteByte('/')
			if c&0x80 != 0 {
				b.WriteByte('/')
			}
			name := resolveFuzzNames[int(c&0x7f)%len(resolveFuzzNames)]
			viaProc = viaProc || name == "l_proc"
			b.WriteString(name)
		}
		for _, p := range []string{b.String(), raw} {
			got, exists, loop := Resolve(p)
			if !resolveIsClean(got) {
				t.Fatalf("Resolve(%q) = %q: not absolute and clean", p, got)
			}
			if loop {
				if exists {
					t.Fatalf("Resolve(%q): loop and exists", p)
				}
				continue
			}
			again, againExists, againLoop := Resolve(got)
			if again != got || againLoop || (exists && !againExists) {
				t.Fatalf("Resolve(%q) = %q, %v; again = %q, %v, %v", p, got, exists, again, againExists, againLoop)
			}
		}
		// The tree path has a kernel oracle unless it went through /proc
		// or /dev, where Resolve deliberately differs from this process.
		p := b.String()
		got, exists, loop := Resolve(p)
		if !viaProc && !resolveLexicalArea(got) {
			resolveCheckKernel(t, p, got, exists, loop)
		}
	})
}

func BenchmarkResolve(b *testing.B) {
	_, ws := resolveTree(b)
	for _, bc := range []struct{ name, p string }{
		{"clean", ws + "/src/pkg/sub/main.go"},
		{"dotted", ws + "/./src//pkg/../pkg/sub/main.go"},
		{"missing", ws + "/src/pkg/new/dir/file.go"},
		{"link", ws + "/chain1/pkg/sub/main.go"},
		{"link_up", ws + "/src/link_up/../x"},
		{"proc", ws + "/link_proc/fd/1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Resolve(bc.p)
			}
		})
	}
}

// TestResolveFromBases: a path below one of Options.Bases, walked from the
// base (and with an analysis's memo of what each step saw), lands where the
// full walk from "/" does, for every entry of the
// resolve tree and the usual tricks (.., links up and out, loops, missing
// parts), and a path that only shares a base's spelling is walked whole.
func TestResolveFromBases(t *testing.T) {
	root, ws := resolveTree(t)
	home := filepath.Dir(ws)
	r := &run{opts: Options{Bases: []string{ws, home, "/"}}}
	memo := &run{opts: Options{Bases: []string{ws, home, "/"}}, stats: statMemo{}}
	var paths []string
	for _, base := range []string{ws, home} {
		for _, rel := range []string{"", "/", "/.", "/..", "/../..", "/file.txt", "/src/link_up/x", "/src/link_up/../x",
			"/link_etc/passwd", "/link_proc/environ", "/link_out/secret.txt", "/dangling", "/chain1/main.go", "/loop_a",
			"/self/x", "/missing/../link_out/secret.txt", "/file.txt/x", "//src//./main.go", "/ws/link_up/../outside"} {
			paths = append(paths, base+rel)
		}
	}
	paths = append(paths, ws+"x", ws+"x/../src", root+"/homex", home+"ws/x")
	for _, p := range paths {
		wantReal, wantExists, wantLoop := Resolve(p)
		real, exists, loop := r.resolve(p)
		if real != wantReal || exists != wantExists || loop != wantLoop {
			t.Errorf("%s: from a base (%q, %v, %v), from / (%q, %v, %v)", p, real, exists, loop, wantReal, wantExists, wantLoop)
		}
		// and again with one memo across all the walks, twice each
		for range 2 {
			if real, exists, loop := memo.resolve(p); real != wantReal || exists != wantExists || loop != wantLoop {
				t.Errorf("%s: with the memo (%q, %v, %v), from / (%q, %v, %v)", p, real, exists, loop, wantReal, wantExists, wantLoop)
			}
		}
	}
	if len(memo.stats) == 0 {
		t.Error("the memo learnt nothing")
	}
}

// TestSeedAgreesWithLstat: what a listing puts in the memo is what look
// finds by lstat for the same path, and links are left to look.
func TestSeedAgreesWithLstat(t *testing.T) {
	dir := resolveTempDir(t)
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	os.Symlink("d", filepath.Join(dir, "l"))
	syscall.Mkfifo(filepath.Join(dir, "p"), 0o644)
	ents, err := readDir(dir)
	if err != nil || len(ents) != 4 {
		t.Fatalf("readDir: %v %v", ents, err)
	}
	seeded := statMemo{}
	seeded.seed(dir, ents)
	if _, ok := seeded[dir+"/l"]; ok {
		t.Errorf("a link was seeded without its target")
	}
	for _, name := range []string{"d", "f", "l", "p"} {
		p := dir + "/" + name
		if got, want := seeded.look(p), (statMemo{}).look(p); got != want {
			t.Errorf("%s: seeded %+v, lstat %+v", name, got, want)
		}
	}
	// A relative or unclean directory seeds nothing.
	other := statMemo{}
	other.seed(dir+"/./", ents)
	if len(other) != 0 {
		t.Errorf("unclean directory seeded %v", other)
	}
}
