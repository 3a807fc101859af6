package parser

import (
	"sort"
	"strings"
)

// emptiesRoot adds a delete of the workspace root itself for each command
// whose glob operands matched every visible entry of the root (rm -rf *,
// rm -rf ./* .*, rm -rf "$PWD"/*; also a for loop over such a glob that
// deletes its items one by one, and ls feeding xargs rm every entry of the
// root): deleting all of a project is deleting
// the project, as `find . -mindepth 1 -delete` is. Entries named one by one
// are left to the policy path by path (rm -rf build/ in a root that holds
// nothing else is ordinary work). Hidden entries need not be matched: `*`
// leaves them, and the project goes all the same.
func (r *run) emptiesRoot() {
	if len(r.globDeletes) == 0 {
		return
	}
	ws := r.opts.Workspace
	entries, err := readDir(ws)
	if err != nil {
		return
	}
	var visible []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			visible = append(visible, e.Name())
		}
	}
	if len(visible) == 0 {
		return
	}
	cmds := make([]int, 0, len(r.globDeletes))
	for c := range r.globDeletes {
		cmds = append(cmds, c)
	}
	sort.Ints(cmds)
	for _, c := range cmds {
		names := r.globDeletes[c]
		all := true
		for _, v := range visible {
			if !names[v] && !names["*"] { // "*": a * over the root, every entry
				all = false
				break
			}
		}
		if !all {
			continue
		}
		name := ""
		if c < len(r.facts.Commands) {
			name = r.facts.Commands[c].Name
		}
		if name == "mv" && !r.writesOutside(c) {
			continue // mv * sub/: the entries stay in the workspace
		}
		r.facts.Paths = append(r.facts.Paths, Path{
			Raw: ws + "/*", Abs: ws, Real: ws, Access: "delete", Exists: true,
			Zone: r.cls.zone(ws), InWorkspace: true, Command: name, Cmd: c,
		})
	}
}

// writesOutside says whether command c writes somewhere other than the
// workspace (mv * /tmp/x/ takes the entries out of it).
func (r *run) writesOutside(c int) bool {
	for _, p := range r.facts.Paths {
		if p.Cmd == c && p.Access == "write" && !p.InWorkspace {
			return true
		}
	}
	return false
}
