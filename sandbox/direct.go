package sandbox

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/syntax"
)

// A command that is one program with literal arguments ("go test ./...",
// "ls -la src", "true") is started by bubblewrap itself rather than through
// `bash -c`: bash would only look the program up on PATH and exec it, and
// starting bash costs a box a sixth of its time on a machine where every
// fresh page of memory is a hypervisor exit. The box then sees what bash
// would have given it: the same argv, PWD, SHLVL and _ in the environment,
// the program bash would have found. Anything else — expansions, quoting
// bash would interpret, redirections, builtins, several commands, a program
// named by a path or found anywhere but a system directory the box shows
// unchanged — goes through bash as before.

// directLimit bounds the commands considered; longer ones go through bash.
const directLimit = 4096

// shellWords are bash's builtins and keywords (bash 5.2, compgen -b / -k):
// a first word among them is bash's to run. true and false are absent: the
// programs of the same name behave the same for any arguments.
var shellWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`. : [ alias bg bind break builtin caller cd command compgen complete
		compopt continue declare dirs disown echo enable eval exec exit export fc fg getopts hash help
		history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return
		set shift shopt source suspend test times trap type typeset ulimit umask unalias unset wait
		if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc`) {
		shellWords[w] = true
	}
}

// direct is how a command runs without bash: argv for bubblewrap to exec
// (it looks argv[0] up on the box's PATH as bash would) and the variables
// bash would have added to the environment.
type direct struct {
	argv []string
	env  []string // name, value pairs
}

// directRun returns how to run command in dir without bash, or nil when
// bash must run it.
func (s *Sandbox) directRun(command, dir string) *direct {
	if len(command) > directLimit || strings.ContainsRune(command, 0) {
		return nil
	}
	argv := literalArgv(command)
	if argv == nil || shellWords[argv[0]] || strings.ContainsRune(argv[0], '/') || argv[0] == "" {
		return nil
	}
	path := ""
	for _, kv := range s.env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH":
			path = v
		case k == "SHLVL", strings.HasPrefix(k, "BASH_FUNC_"), k == "BASH_ENV", k == "ENV":
			// Bash would compute its own shell level from it, define
			// functions from it, or read a file at start.
			return nil
		}
	}
	if real, err := s.realPath(dir); err != nil || real != dir {
		// Bash's PWD for a path through a link is not simply dir.
		return nil
	}
	found := s.lookBox(argv[0], path)
	if found == "" {
		return nil
	}
	return &direct{argv: argv, env: []string{"PWD", dir, "SHLVL", "0", "_", found}}
}

// lookBox finds name on path as bash in the box would, and returns the path
// it would exec, or "" when the answer is not certain from the host: a PATH
// entry that is relative or lies in the workspace (the command may change
// it), a candidate that is not a world-readable, world-executable regular
// file in a directory the box shows as the host has it, or that is neither
// an ELF binary nor a #! script (bash would run such a file itself).
func (s *Sandbox) lookBox(name, path string) string {
	for _, d := range strings.Split(path, ":") {
		if d == "" || !filepath.IsAbs(d) {
			return ""
		}
		d = filepath.Clean(d)
		dir := s.lookDir(d)
		if dir.bail {
			return ""
		}
		if dir.skip {
			continue
		}
		cand := filepath.Join(d, name)
		var st unix.Stat_t
		if err := unix.Lstat(cand, &st); err != nil {
			continue
		}
		// The directory's own path is resolved, visible, unmasked, outside
		// the workspace and searchable; a candidate that is no link is
		// the file at the same name there.
		real := filepath.Join(dir.real, name)
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			var err error
			real, err = filepath.EvalSymlinks(cand)
			if err != nil || !visible(real) || s.masked(real) || within(real, s.ws) || !othersEnter(filepath.Dir(real)) {
				return ""
			}
			if err := unix.Stat(real, &st); err != nil {
				return ""
			}
		} else if s.masked(real) {
			return ""
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o005 != 0o005 || !execMagic(real) {
			return ""
		}
		return cand
	}
	return ""
}

// masked says whether p is hidden by one of the box's masks.
func (s *Sandbox) masked(p string) bool {
	for _, m := range s.maskedPaths {
		if within(p, m) {
			return true
		}
	}
	return false
}

// othersEnter says whether a user who is neither owner nor in the group of
// dir and its parents may search them all, as far up as the system
// directory holding dir (the box makes the directories above it).
func othersEnter(dir string) bool {
	for visible(dir) {
		var st unix.Stat_t
		if unix.Stat(dir, &st) != nil || st.Mode&0o001 == 0 {
			return false
		}
		dir = filepath.Dir(dir)
	}
	return true
}

// execMagic says whether the kernel execs the file itself: an ELF binary or
// a #! script. For anything else bash would run the file as a script.
func execMagic(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var b [4]byte
	n, err := unix.Read(fd, b[:])
	if err != nil {
		return false
	}
	return (n == 4 && string(b[:]) == "\x7fELF") || (n >= 2 && string(b[:2]) == "#!")
}

// literalArgv returns the words of command when it is exactly one simple
// command whose words bash passes on as written: plain characters, single
// quotes, double quotes holding no $, ` or \. nil otherwise.
func literalArgv(command string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return nil
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		var b strings.Builder
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				// ~ is expanded after = too, in any word that looks like
				// an assignment; # and ! are left to bash as well.
				if strings.ContainsAny(p.Value, "\\*?[]{}~$`'\"!#&|;<>()\t\n\r\v\f ") || hasControl(p.Value) {
					return nil
				}
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				if p.Dollar {
					return nil
				}
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				if p.Dollar {
					return nil
				}
				for _, q := range p.Parts {
					l, ok := q.(*syntax.Lit)
					if !ok || strings.ContainsAny(l.Value, "\\$`") {
						return nil
					}
					b.WriteString(l.Value)
				}
			default:
				return nil
			}
		}
		argv = append(argv, b.String())
	}
	return argv
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}
