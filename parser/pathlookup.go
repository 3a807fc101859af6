package parser

import (
	"os"
	"path"
	"strings"
)

// shellBuiltins run inside bash whatever PATH says.
var shellBuiltins = optSet("alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
	"compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc",
	"fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf",
	"pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source", ".", "suspend", "test",
	"[", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait", ":")

// systemBinDirs hold the system's programs, which the analysis names by
// their base name.
var systemBinDirs = optSet("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/games", "/usr/local/games", "/snap/bin")

// pathProgram resolves a bare command name against a PATH the script set
// itself (PATH=DIR:$PATH cmd, export PATH=…, env PATH=… cmd). Bash runs the
// first program of that name along PATH: in a directory of the system's or
// of the environment's own PATH that is the program the name means, but a
// directory the script put in front (ln -s /usr/bin/curl build/ls &&
// PATH=build:$PATH ls …) runs whatever it holds. prog is that program's
// path when such a directory holds the name, or may once the script's
// earlier commands ran; unknown is set when PATH holds parts not known
// here, so the name could mean any program. A PATH the script did not set
// (or a sourced file did) is the environment's, and names are left alone.
func (r *run) pathProgram(name string, st *state, env map[string]string, cwd string) (prog string, unknown bool) {
	if name == "" || strings.Contains(name, "/") || shellBuiltins[name] || len(r.funcs[name]) > 0 {
		return "", false
	}
	val, set := env["PATH"]
	if !set {
		val, set = st.vars["PATH"]
		if !set && st.gone["PATH"] || st.wild["PATH"] {
			return "", true // set or unset by the script to a value not known here
		}
	}
	if !set {
		return "", false
	}
	trusted := map[string]bool{}
	for _, d := range strings.Split(r.opts.Environ["PATH"], ":") {
		trusted[d] = true
	}
	for _, d := range strings.Split(val, ":") {
		if d == "" {
			d = "." // an empty entry is the working directory
		}
		if strings.ContainsAny(d, "$`*?[") {
			return "", true
		}
		if !path.IsAbs(d) {
			if cwd == "" {
				return "", true
			}
			d = path.Join(cwd, d)
		}
		cand := path.Join(d, name)
		if r.mayWrite(cand) {
			return cand, false // put there by the script, wherever that is
		}
		if systemBinDirs[d] || trusted[d] {
			if _, err := os.Stat(cand); err == nil {
				return "", false // the program the name means
			}
			continue
		}
		if _, err := os.Lstat(cand); err == nil {
			return cand, false
		}
	}
	return "", false
}

// mayWrite says whether p may have been made by the script's earlier
// commands: it, or a directory above it, was written (or is unknown).
func (r *run) mayWrite(p string) bool {
	if _, ok := r.written[p]; ok || r.opaqueFile(p) {
		return true
	}
	for _, d := range r.opaqueDirs {
		if under(p, d) {
			return true
		}
	}
	for _, q := range r.facts.Paths {
		if q.Access != "read" && q.Access != "cwd" && (q.Zone == "unknown" || q.Real != "" && (p == q.Real || under(p, q.Real))) {
			return true
		}
	}
	return false
}
