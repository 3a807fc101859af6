package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A box can write git state that git on the host later obeys: hooks, and
// config keys that name programs. The existing repository's hooks, config,
// commondir, config.worktree and info are read-only in the box (gitGuards).
// What a command changes besides is checked after it ran, and what would
// make host git run a program is moved aside ("quarantined") with a note in
// the result:
//
//   - a repository the command created at the workspace root (.git as a
//     directory, a gitdir file or a symlink): its hooks and any config key
//     outside a short allow-list;
//   - a commondir or config.worktree added to the existing repository;
//   - the workspace root turned into a repository of its own (HEAD,
//     objects, refs — git falls back to it when .git/HEAD is broken);
//   - submodules: a new .git/modules entry, and the repository of every
//     path .gitmodules lists whose config or hooks changed.
//
// Config files are read with git's own parser (git config --list, which
// runs nothing) where git is installed, else with a strict reader; a file
// that cannot be read counts as dangerous.

// gitSnapshot is what existed before a run.
type gitSnapshot struct {
	dotGit         os.FileMode // type of .git, 0 when missing
	commondir      bool
	configWorktree bool
	rootRepo       bool
	modules        map[string]bool
	submodules     map[string]string // path → stamp of its config and hooks
}

func (s *Sandbox) snapshotGit() gitSnapshot {
	g := filepath.Join(s.ws, ".git")
	snap := gitSnapshot{
		commondir:      exists(filepath.Join(g, "commondir")),
		configWorktree: exists(filepath.Join(g, "config.worktree")),
		rootRepo:       looksLikeRepo(s.ws),
		modules:        map[string]bool{},
		submodules:     map[string]string{},
	}
	if fi, err := os.Lstat(g); err == nil {
		snap.dotGit = fi.Mode().Type() | 1 // never 0 when present
	}
	if ents, err := os.ReadDir(filepath.Join(g, "modules")); err == nil {
		for _, e := range ents {
			snap.modules[e.Name()] = true
		}
	}
	for _, p := range s.submodulePaths() {
		snap.submodules[p] = stamp(gitDirOf(filepath.Join(s.ws, p)))
	}
	return snap
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// looksLikeRepo is git's test for a git directory: HEAD, objects, refs.
func looksLikeRepo(dir string) bool {
	return exists(filepath.Join(dir, "HEAD")) && exists(filepath.Join(dir, "objects")) && exists(filepath.Join(dir, "refs"))
}

// stamp identifies the state of a git directory's config and hooks.
func stamp(gitDir string) string {
	if gitDir == "" {
		return ""
	}
	var b strings.Builder
	for _, n := range []string{"config", "hooks", "commondir", "config.worktree"} {
		if fi, err := os.Lstat(filepath.Join(gitDir, n)); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", n, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	if ents, err := os.ReadDir(filepath.Join(gitDir, "hooks")); err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				fmt.Fprintf(&b, "h/%s:%d:%d;", e.Name(), fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return b.String()
}

// gitDirOf returns the git directory of a working tree: its .git directory,
// or the directory a .git file names; "" when there is none.
func gitDirOf(tree string) string {
	g := filepath.Join(tree, ".git")
	fi, err := os.Lstat(g)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return g
	}
	b, err := os.ReadFile(g)
	if err != nil {
		return g
	}
	line, _, _ := strings.Cut(string(b), "\n")
	p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return g
	}
	p = strings.TrimSpace(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(tree, p)
	}
	return filepath.Clean(p)
}

// submodulePaths lists the paths .gitmodules names (at most 64), inside the
// workspace.
func (s *Sandbox) submodulePaths() []string {
	f, err := os.Open(filepath.Join(s.ws, ".gitmodules"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < 64 {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.ToLower(strings.TrimSpace(k)) != "path" {
			continue
		}
		p := filepath.Clean(strings.Trim(strings.TrimSpace(v), `"`))
		if p == "." || filepath.IsAbs(p) || strings.HasPrefix(p, "..") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// quarantine moves p aside and returns the note for the result.
func quarantine(p, why string) string {
	dst := fmt.Sprintf("%s.toolgate-quarantine-%d", p, time.Now().UnixNano())
	if err := os.Rename(p, dst); err != nil {
		return fmt.Sprintf("toolgate: %s: %s, and moving it aside failed (%v): do not run git here before reviewing it", p, why, err)
	}
	return fmt.Sprintf("toolgate: moved %s aside to %s: %s, which git on the host would obey", p, filepath.Base(dst), why)
}

// checkGit compares the workspace's git state with the snapshot and
// quarantines what the command planted.
func (s *Sandbox) checkGit(before gitSnapshot) []string {
	var notes []string
	g := filepath.Join(s.ws, ".git")
	fi, err := os.Lstat(g)
	switch {
	case err != nil:
	case before.dotGit == 0 && !fi.IsDir():
		notes = append(notes, quarantine(g, "the command made .git a file or symlink that points git at another repository"))
	case before.dotGit == 0:
		notes = append(notes, s.checkNewRepo(g, false)...)
	default:
		for _, c := range []struct {
			name string
			had  bool
		}{{"commondir", before.commondir}, {"config.worktree", before.configWorktree}} {
			if p := filepath.Join(g, c.name); !c.had && exists(p) {
				notes = append(notes, quarantine(p, "the command created .git/"+c.name))
			}
		}
		if ents, err := os.ReadDir(filepath.Join(g, "modules")); err == nil {
			for _, e := range ents {
				if !before.modules[e.Name()] {
					notes = append(notes, s.checkNewRepo(filepath.Join(g, "modules", e.Name()), true)...)
				}
			}
		}
	}
	if !before.rootRepo && looksLikeRepo(s.ws) {
		notes = append(notes, quarantine(filepath.Join(s.ws, "HEAD"), "the command made the workspace root look like a git repository (HEAD, objects, refs)"))
	}
	for _, p := range s.submodulePaths() {
		gd := gitDirOf(filepath.Join(s.ws, p))
		if gd == "" || !within(gd, s.ws) {
			continue
		}
		if old, ok := before.submodules[p]; ok && old == stamp(gd) {
			continue
		}
		notes = append(notes, s.checkNewRepo(gd, true)...)
	}
	return notes
}

// checkNewRepo quarantines the hooks and config of a repository the
// command created or changed. Submodule repositories may set core.worktree.
func (s *Sandbox) checkNewRepo(gitDir string, submodule bool) []string {
	var notes []string
	if fi, err := os.Lstat(gitDir); err == nil && !fi.IsDir() {
		return append(notes, quarantine(gitDir, "the command made a git directory that is not a plain directory"))
	}
	for _, name := range []string{"commondir", "config.worktree"} {
		if p := filepath.Join(gitDir, name); exists(p) {
			notes = append(notes, quarantine(p, "the command created "+name+" in a repository it made"))
		}
	}
	if hooks := filepath.Join(gitDir, "hooks"); liveHooks(hooks) {
		notes = append(notes, quarantine(hooks, "the command wrote git hooks"))
	}
	cfg := filepath.Join(gitDir, "config")
	if exists(cfg) {
		if key := unsafeConfig(cfg, submodule); key != "" {
			notes = append(notes, quarantine(cfg, "the command set "+key+" in a repository's config"))
		}
	}
	return notes
}

// liveHooks says whether a hooks directory holds anything but git's
// *.sample files (or cannot be read).
func liveHooks(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".sample") {
			return true
		}
	}
	return false
}

// safeKeys are the config keys a repository made in the box may keep:
// what git init, clone and commit write, and settings that run nothing.
// "*" stands for a subsection.
var safeKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.quotepath": true, "core.compression": true, "core.sparsecheckout": true,
	"user.name": true, "user.email": true, "init.defaultbranch": true,
	"extensions.objectformat": true, "extensions.refstorage": true,
	"remote.*.url": true, "remote.*.fetch": true, "remote.*.pushurl": true, "remote.*.tagopt": true,
	"branch.*.remote": true, "branch.*.merge": true, "branch.*.rebase": true,
	"pull.rebase": true, "pull.ff": true, "push.default": true, "push.autosetupremote": true,
	"fetch.prune": true, "gc.auto": true, "commit.gpgsign": true, "tag.gpgsign": true,
	"submodule.*.url": true, "submodule.*.active": true,
	"color.ui": true, "advice.detachedhead": true, "status.showuntrackedfiles": true,
}

// unsafeConfig returns the first key of a git config file that is not on
// the allow-list (core.worktree too for a submodule's own repository), or a
// description of why the file could not be read; "" when it is safe.
func unsafeConfig(path string, submodule bool) string {
	keys, err := configKeys(path)
	if err != nil {
		return "something unreadable (" + err.Error() + ")"
	}
	for _, k := range keys {
		if submodule && k == "core.worktree" {
			continue
		}
		if safeKeys[k] {
			continue
		}
		// remote.origin.url → remote.*.url
		if i, j := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.'); i >= 0 && j > i {
			if safeKeys[k[:i]+".*"+k[j:]] {
				continue
			}
		}
		return k
	}
	return ""
}

// configKeys lists a config file's keys, lower-cased as git prints them
// (subsections keep their case). git's own parser reads the file when git
// is installed: it handles continuation lines, quoting and long lines
// exactly as the git that will obey the file does.
func configKeys(path string) ([]string, error) {
	if git, err := exec.LookPath("git"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, git, "config", "--file", path, "--no-includes", "--null", "--list")
		cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent", "PATH=/usr/bin:/bin", "LC_ALL=C"}
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git config cannot parse it: %v", err)
		}
		var keys []string
		for _, entry := range bytes.Split(out, []byte{0}) {
			if len(entry) == 0 {
				continue
			}
			k, _, _ := bytes.Cut(entry, []byte("\n"))
			keys = append(keys, lowerKey(string(k)))
		}
		return keys, nil
	}
	return strictKeys(path)
}

// lowerKey lower-cases a key's section and name, keeping its subsection.
func lowerKey(k string) string {
	i, j := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
	if i < 0 {
		return strings.ToLower(k)
	}
	if i == j {
		return strings.ToLower(k)
	}
	return strings.ToLower(k[:i]) + k[i:j] + strings.ToLower(k[j:])
}

// strictKeys reads a config file without git: plain "[section]" or
// [section "sub"] headers and "key = value" lines. Anything it does not
// fully understand (continuation lines, a header with a trailing key, a
// line longer than 64 KiB) is an error, so it fails closed.
func strictKeys(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var keys []string
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			return nil, fmt.Errorf("a continuation line")
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("a section header with more after it")
			}
			head := strings.TrimSpace(line[1 : len(line)-1])
			name, sub, hasSub := strings.Cut(head, " ")
			section = strings.ToLower(name)
			if hasSub {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			}
			continue
		}
		k, _, _ := strings.Cut(line, "=")
		keys = append(keys, lowerKey(section+"."+strings.TrimSpace(k)))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return keys, nil
}
