package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// agentConfig are the workspace files an agent on the host obeys outside
// any sandbox: Claude Code's project settings (which hold hooks, commands
// it runs), hook scripts, subagents and skills (which carry hooks), the
// MCP servers a .mcp.json starts, and other agents' and editors' MCP
// server and hook files. A command in the box may write the workspace, so
// it could plant them and have the host run its code later. The policy
// refuses such writes where it sees them; for code it cannot see (a
// program the box runs), toolgate compares these paths before and after
// each run and undoes a change.
var agentConfig = []string{".claude", ".claude/settings.json", ".claude/settings.local.json", ".claude/hooks",
	".claude/agents", ".claude/skills", ".mcp.json",
	".vscode/mcp.json", ".cursor/mcp.json", ".cursor/hooks.json", ".gemini/settings.json", ".codex/config.toml",
	".codex/hooks.json", ".windsurf/hooks.json", ".roo/mcp.json", ".kiro/settings/mcp.json", ".amazonq/mcp.json",
	".continue/config.json", ".continue/config.yaml"}

// watchedDirs are the agent directories whose entries, at any depth (to a
// bound), are part of their stamp: a file added inside one is a change.
var watchedDirs = []string{"/.claude/hooks", "/.claude/agents", "/.claude/skills"}

// maxSavedConfig is the largest agent config file kept whole before a run,
// so that a change can be undone by writing it back.
const maxSavedConfig = 1 << 20

type cfgEntry struct {
	stamp   string // "" when missing
	content []byte // a regular file's bytes, when small enough
	saved   bool
	mode    os.FileMode
}

// cfgStamp identifies what is at p: a file's or link's type, size, times
// and inode; a directory's inode (its own times change with any entry), and
// for the watched directories (hooks, agents, skills) their entries.
func cfgStamp(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	var ino uint64
	var ctime syscall.Timespec
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino, ctime = st.Ino, st.Ctim
	}
	if fi.IsDir() {
		var b strings.Builder
		fmt.Fprintf(&b, "dir:%d", ino)
		if watched(p) {
			ents, _ := os.ReadDir(p)
			if len(ents) > 256 {
				// more than a person keeps there: any change to the
				// directory's own entries shows in its change time
				fmt.Fprintf(&b, ":%d.%d:%d", ctime.Sec, ctime.Nsec, len(ents))
				ents = ents[:256]
			}
			for _, e := range ents {
				fmt.Fprintf(&b, ";%s=%s", e.Name(), cfgStamp(filepath.Join(p, e.Name())))
			}
		}
		return b.String()
	}
	return fmt.Sprintf("%v:%d:%d:%d:%d.%d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), ino, ctime.Sec, ctime.Nsec)
}

// watched says whether p lies in one of watchedDirs, at most four levels
// below it.
func watched(p string) bool {
	for _, d := range watchedDirs {
		if i := strings.Index(p, d); i >= 0 {
			below := p[i+len(d):]
			if below == "" || below[0] == '/' && strings.Count(below, "/") <= 4 {
				return true
			}
		}
	}
	return false
}

func (s *Sandbox) snapshotAgentConfig() map[string]cfgEntry {
	snap := make(map[string]cfgEntry, len(agentConfig))
	for _, rel := range agentConfig {
		p := filepath.Join(s.ws, rel)
		e := cfgEntry{stamp: cfgStamp(p)}
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxSavedConfig {
			if b, err := os.ReadFile(p); err == nil {
				e.content, e.saved, e.mode = b, true, fi.Mode().Perm()
			}
		}
		snap[rel] = e
	}
	return snap
}

// checkAgentConfig undoes what the command changed among the agent's
// config: the new or changed entry is moved aside for review, and a file
// that was there before is written back as it was. A .claude directory
// replaced whole is moved aside and made again with the saved files.
func (s *Sandbox) checkAgentConfig(before map[string]cfgEntry) []string {
	var notes []string
	restore := func(rel string) bool {
		old := before[rel]
		return old.saved && os.WriteFile(filepath.Join(s.ws, rel), old.content, old.mode) == nil
	}
	why := func(rel string) string {
		return fmt.Sprintf("the command changed %s, agent configuration that a coding agent on the host obeys outside any sandbox (hooks, MCP servers)", rel)
	}
	dir := filepath.Join(s.ws, ".claude")
	if cfgStamp(dir) != before[".claude"].stamp {
		if _, err := os.Lstat(dir); err == nil {
			notes = append(notes, quarantine(dir, why(".claude")))
		}
		if before[".claude"].stamp != "" && os.Mkdir(dir, 0o755) == nil {
			for _, rel := range agentConfig {
				if strings.HasPrefix(rel, ".claude/") && restore(rel) {
					notes = append(notes, "toolgate: restored "+rel+" as it was before the command")
				}
			}
		}
	}
	for _, rel := range agentConfig {
		if rel == ".claude" {
			continue
		}
		old := before[rel]
		p := filepath.Join(s.ws, rel)
		if cfgStamp(p) == old.stamp {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			if restore(rel) {
				notes = append(notes, "toolgate: restored "+rel+", agent configuration the command deleted")
			}
			continue
		}
		note := quarantine(p, why(rel))
		switch {
		case restore(rel):
			note += "; the previous content was restored"
		case old.stamp != "" && rel != ".claude/hooks" && rel != ".claude/agents" && rel != ".claude/skills":
			note += "; the previous file was too large to keep, so only the moved copy holds it, as changed"
		}
		notes = append(notes, note)
	}
	return notes
}
