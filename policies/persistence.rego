# Persistence and tampering: code that runs later (cron, services, shell rc
# files, git hooks and config), library injection, covering tracks.
package toolgate

deny contains {"rule": "persist.scheduler", "message": sprintf("%s schedules commands to run later; run what you need now instead", [c.name])} if {
	input.present.groups.schedulers
	some c in commands
	scheduler(c)
}

scheduler(c) if {
	in_group(c.name, "schedulers")
	not listing_crontab(c)
}

listing_crontab(c) if {
	c.name == "crontab"
	args(c) == ["-l"]
}

deny contains {"rule": "persist.service", "message": sprintf("systemctl %s installs or changes a service; services are not managed from an agent", [subcommand(c)])} if {
	input.present.names.systemctl
	some c in commands
	c.name == "systemctl"
	subcommand(c) in {"enable", "link", "edit", "set-default", "mask", "unmask", "preset", "preset-all", "add-wants", "add-requires", "reenable", "revert", "daemon-reload", "start", "restart", "stop", "disable", "kill", "isolate", "set-property", "import-environment", "set-environment"}
}

deny contains {"rule": "persist.service", "message": sprintf("%s installs or starts services; services are not managed from an agent", [c.name])} if {
	input.present.groups.services
	some c in commands
	in_group(c.name, "services")
}

deny contains {"rule": "persist.rc_file", "message": sprintf("%s changes the shell start-up file %s; start-up files are not changed from an agent", [who(p), p.raw])} if {
	input.present.writes
	some p in paths
	p.access in {"write", "delete"}
	not p.zone in {"workspace", "workspace_root", "tmp"}
	in_group(base(p.real), "rc_files")
}

deny contains {"rule": "persist.git_hooks", "message": sprintf("%s changes %s: git hooks run code on later git commands; edit project files instead", [who(p), p.raw])} if {
	input.present.writes
	some p in paths
	p.access in {"write", "delete"}
	contains(concat("", [p.real, "/"]), "/.git/hooks/")
}

deny contains {"rule": "persist.git_config", "message": sprintf("%s changes %s: git config can run code on later git commands; use git's command-line options for one-off settings", [who(p), p.raw])} if {
	input.present.writes
	some p in paths
	p.access in {"write", "delete"}
	git_config_file(p.real)
}

git_config_file(f) if endswith(f, "/.git/config")

git_config_file(f) if endswith(f, "/.gitconfig")

git_config_file(f) if endswith(f, "/.config/git/config")

# settings whose value is a command, a hook path or a helper that git runs
code_keys := {"core.hookspath", "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.gitproxy", "core.askpass", "sequence.editor", "credential.helper", "gpg.program", "gpg.ssh.program", "diff.external", "merge.tool", "diff.tool", "pager.log", "pager.diff", "include.path", "includeif", "init.templatedir", "uploadpack.packobjectshook", "protocol.ext.allow", "remote.origin.uploadpack", "remote.origin.receivepack", "core.worktree"}

code_key(k) if lower(k) in code_keys

code_key(k) if {
	some prefix in ["alias.", "filter.", "pager.", "includeif.", "difftool.", "mergetool.", "credential.", "url."]
	startswith(lower(k), prefix)
}

code_key(k) if regex.match(`(?i)^diff\..*\.(textconv|command)$`, k)

code_key(k) if regex.match(`(?i)^merge\..*\.driver$`, k)

deny contains {"rule": "persist.git_config", "message": sprintf("git -c %s sets a value git runs as code; drop it and run the plain git command", [kv])} if {
	input.present.names.git
	some c in commands
	c.name == "git"
	a := args(c)
	some i, x in a
	x == "-c"
	kv := a[i + 1]
	code_key(split(kv, "=")[0])
}

deny contains {"rule": "persist.git_config", "message": sprintf("git config %s changes a setting git runs as code or writes outside the workspace; leave git configuration to the user", [concat(" ", git_config_args(c))])} if {
	input.present.names.git
	some c in commands
	c.name == "git"
	git_config_change(c)
}

git_config_args(c) := array.slice(a, i + 1, count(a)) if {
	a := args(c)
	some i, x in a
	x == "config"
}

git_config_change(c) if {
	ga := git_config_args(c)
	some x in ga
	x in {"--global", "--system", "--file", "-f", "--worktree"}
	not git_config_read(ga)
}

git_config_change(c) if {
	ga := git_config_args(c)
	not git_config_read(ga)
	some x in ga
	not startswith(x, "-")
	code_key(x)
}

git_config_read(ga) if {
	some x in ga
	x in {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--get-color", "--get-colorbool"}
}

# git config get|list KEY (the newer spelling): the first operand
git_config_read(ga) if {
	ops := [x | some x in ga; not startswith(x, "-")]
	ops[0] in {"get", "list"}
}

deny contains {"rule": "persist.git_config", "message": sprintf("setting %s injects git configuration, which can run code; run the plain git command", [a.name])} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	startswith(a.name, "GIT_CONFIG")
	a.name != "GIT_CONFIG_NOSYSTEM"
}

ld_vars := {"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "LD_DEBUG_OUTPUT"}

deny contains {"rule": "persist.ld_preload", "message": sprintf("setting %s injects libraries into every program; build and link normally instead", [a.name])} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	a.name in ld_vars
}

deny contains {"rule": "persist.history", "message": "clearing or disabling shell history hides what was done; leave history alone"} if {
	input.present.groups.history
	some c in commands
	history_tamper(c)
}

history_tamper(c) if {
	c.name == "history"
	some a in args(c)
	startswith(a, "-")
	regex.match(`^-[a-z]*[cdwr]`, a)
}

history_tamper(c) if {
	c.name == "unset"
	some a in args(c)
	a in {"HISTFILE", "HISTSIZE", "HISTFILESIZE"}
}

history_tamper(c) if {
	c.name == "set"
	a := args(c)
	some i, x in a
	x == "+o"
	a[i + 1] == "history"
}

deny contains {"rule": "persist.history", "message": sprintf("setting %s hides shell history; leave history alone", [a.name])} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	a.name in {"HISTFILE", "HISTSIZE", "HISTFILESIZE", "HISTCONTROL", "HISTIGNORE"}
}
