package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A box can write git state that git on the host later obeys: hooks, and
// config keys that name programs. The existing repository's hooks, config,
// commondir, config.worktree and info are read-only in the box (gitGuards).
// What the command creates is checked after it ran: a repository it made
// (git init) or a commondir / config.worktree it added to the existing one.
// Anything that would make host git run a program is moved aside
// ("quarantined") and the result says so.

// gitSnapshot is what existed before a run.
type gitSnapshot struct {
	gitDir         bool
	commondir      bool
	configWorktree bool
}

func (s *Sandbox) snapshotGit() gitSnapshot {
	g := filepath.Join(s.ws, ".git")
	return gitSnapshot{
		gitDir:         exists(g),
		commondir:      exists(filepath.Join(g, "commondir")),
		configWorktree: exists(filepath.Join(g, "config.worktree")),
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// quarantine moves p aside and returns the note for the result.
func quarantine(p, why string) string {
	dst := fmt.Sprintf("%s.toolgate-quarantine-%d", p, time.Now().UnixNano())
	if err := os.Rename(p, dst); err != nil {
		return fmt.Sprintf("toolgate: %s %s, and moving it aside failed (%v): do not run git here before reviewing it", filepath.Base(p), why, err)
	}
	return fmt.Sprintf("toolgate: moved %s aside to %s: %s, which git on the host would obey", p, filepath.Base(dst), why)
}

// checkGit compares the workspace's git state with the snapshot and
// quarantines what the command planted.
func (s *Sandbox) checkGit(before gitSnapshot) []string {
	g := filepath.Join(s.ws, ".git")
	fi, err := os.Lstat(g)
	if err != nil {
		return nil
	}
	var notes []string
	if before.gitDir {
		for _, c := range []struct {
			name string
			had  bool
		}{{"commondir", before.commondir}, {"config.worktree", before.configWorktree}} {
			p := filepath.Join(g, c.name)
			if !c.had && exists(p) {
				notes = append(notes, quarantine(p, "the command created ."+"git/"+c.name))
			}
		}
		return notes
	}
	// A repository the command created.
	if !fi.IsDir() {
		if fi.Mode().IsRegular() {
			notes = append(notes, quarantine(g, "the command created a .git file pointing elsewhere"))
		}
		return notes
	}
	for _, name := range []string{"commondir", "config.worktree"} {
		if p := filepath.Join(g, name); exists(p) {
			notes = append(notes, quarantine(p, "the command created .git/"+name))
		}
	}
	if hooks := filepath.Join(g, "hooks"); liveHooks(hooks) {
		notes = append(notes, quarantine(hooks, "the command wrote git hooks"))
	}
	if key := dangerousConfig(filepath.Join(g, "config")); key != "" {
		notes = append(notes, quarantine(filepath.Join(g, "config"), "the command set "+key+" in the new repository's config"))
	}
	return notes
}

// liveHooks says whether a hooks directory holds anything but git's
// *.sample files.
func liveHooks(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".sample") {
			return true
		}
	}
	return false
}

// dangerousConfig returns the first key of a git config file that makes git
// run a program or read another config, or "".
func dangerousConfig(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	section, sub := "", ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "a malformed section"
			}
			head := line[1:end]
			section, sub = head, ""
			if i := strings.IndexAny(head, " \t"); i >= 0 {
				section, sub = head[:i], strings.Trim(strings.TrimSpace(head[i:]), `"`)
			} else if i := strings.IndexByte(head, '.'); i >= 0 {
				section, sub = head[:i], head[i+1:]
			}
			section = strings.ToLower(section)
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, val, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		if bad := riskyKey(section, sub, key, val); bad {
			if sub != "" {
				return section + "." + sub + "." + key
			}
			return section + "." + key
		}
	}
	return ""
}

func riskyKey(section, sub, key, val string) bool {
	switch section {
	case "core":
		switch key {
		case "fsmonitor", "hookspath", "sshcommand", "pager", "editor", "askpass", "gitproxy", "worktree":
			return true
		}
	case "include", "includeif":
		return key == "path"
	case "alias":
		return strings.HasPrefix(strings.Trim(val, `"`), "!")
	case "filter":
		return key == "clean" || key == "smudge" || key == "process"
	case "diff":
		return key == "external" || key == "textconv" || key == "command"
	case "merge":
		return key == "driver"
	case "credential":
		return key == "helper"
	case "sequence":
		return key == "editor"
	case "gpg":
		return key == "program"
	case "pager", "interactive", "uploadpack", "receive":
		return true
	case "remote":
		return key == "uploadpack" || key == "receivepack" || key == "proxy"
	case "web", "browser", "man", "difftool", "mergetool", "protocol", "url":
		return key == "browser" || key == "cmd" || key == "path" || key == "allow" || key == "insteadof" || key == "pushinsteadof"
	}
	return false
}
