# Persistence and tampering: code that runs later (cron, services, shell rc
# files, git hooks and config), library injection, covering tracks.
package toolgate

deny contains {"rule": "persist.scheduler", "message": sprintf("%s schedules commands to run later; run what you need now instead", [c.name])} if {
	"schedulers" in input.present.groups
	some c in commands
	scheduler(c)
}

scheduler(c) if {
	in_group(c.name, "schedulers")
	not listing_crontab(c)
}

# git maintenance start (or register) schedules git to run in the
# background (a crontab, systemd timers) and writes the repository into the
# user's global git configuration
deny contains {"rule": "persist.scheduler", "message": sprintf("git maintenance %s schedules git to run later and changes your global git configuration; run git maintenance run instead", [op])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "maintenance"
	a := args(c)
	some i, x in a
	x == "maintenance"
	op := [y | some j, y in a; j > i; not startswith(y, "-")][0]
	op in {"start", "register"}
}

listing_crontab(c) if {
	c.name == "crontab"
	args(c) == ["-l"]
}

deny contains {"rule": "persist.service", "message": sprintf("systemctl %s installs or changes a service; services are not managed from an agent", [subcommand(c)])} if {
	"systemctl" in input.present.names
	some c in commands
	c.name == "systemctl"
	subcommand(c) in {"enable", "link", "edit", "set-default", "mask", "unmask", "preset", "preset-all", "add-wants", "add-requires", "reenable", "revert", "daemon-reload", "start", "restart", "stop", "disable", "kill", "isolate", "set-property", "import-environment", "set-environment"}
}

deny contains {"rule": "persist.service", "message": sprintf("%s installs or starts services; services are not managed from an agent", [c.name])} if {
	"services" in input.present.groups
	some c in commands
	some n in names_of(c)
	in_group(n, "services")
	not service_query(c)
}

# service NAME status, service --status-all only report
service_query(c) if {
	c.name == "service"
	some a in args(c)
	a in {"status", "--status-all"}
}

# pre-commit install writes a hook into .git/hooks that runs on every commit
deny contains {"rule": "persist.git_hooks", "message": sprintf("pre-commit %s installs a git hook, which runs code on later git commands; run pre-commit run instead", [subcommand(c)])} if {
	"pre-commit" in input.present.names
	some c in commands
	c.name == "pre-commit"
	subcommand(c) in {"install", "install-hooks", "init-templatedir"}
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

code_key(k) if regex.match(`(?i)^(gpg\..*program|gpg\.ssh\.defaultkeycommand|interactive\.difffilter|core\.alternaterefscommand|trailer\..*\.(cmd|command)|remote\..*\.(uploadpack|receivepack|vcs|proxy)|submodule\..*\.update|browser\..*\.(cmd|path)|man\..*\.(cmd|path)|hook\..*\.command|.*\.textconv|protocol\..*allow|core\.(sshcommand|askpass|editor|pager|hookspath|fsmonitor|gitproxy|worktree)|uploadpack\..*|receive\..*hook.*)$`, k)

code_key(k) if regex.match(`(?i)^merge\..*\.driver$`, k)

# Keys whose value git (or one of its tools) runs: git archive's tar
# filters, git send-email's command hooks and SMTP program, instaweb's
# server, git gui's tools, imap-send's tunnel.
code_key(k) if regex.match(`(?i)^(tar\..*\.command|sendemail\.(.*cmd|smtpserver)|instaweb\.(httpd|browser)|guitool\..*\.cmd|imap\.tunnel)$`, k)

deny contains {"rule": "persist.git_config", "message": sprintf("git -c %s sets a value git runs as code; drop it and run the plain git command", [kv])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	a := args(c)
	some i, x in a
	x == "-c"
	kv := a[i + 1]
	code_key(split(kv, "=")[0])
	not harmless_program(kv)
}

# git -c "$(…)": which key is set is not known before it runs
deny contains {"rule": "persist.git_config", "message": sprintf("git -c %s sets a value known only when it runs, which may be one git runs as code; write the setting literally", [kv])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	a := args(c)
	some i, x in a
	x == "-c"
	kv := a[i + 1]
	regex.match("[$`]", split(kv, "=")[0])
}

# git -c core.pager=cat log, -c core.editor=true commit: a value naming a
# program that runs nothing else (agents use these to keep git from
# waiting on a pager or an editor)
harmless_program(kv) if {
	parts := split(kv, "=")
	count(parts) == 2
	lower(parts[0]) in {"core.pager", "core.editor", "core.fsmonitor", "sequence.editor"}
	parts[1] in {"cat", "true", "false", ":", "less", "more", ""}
}

deny contains {"rule": "persist.git_config", "message": sprintf("git config %s changes a setting git runs as code or writes outside the workspace; leave git configuration to the user", [concat(" ", git_config_args(c))])} if {
	"git" in input.present.names
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

# git config "$k" VALUE, git config set "${x/%X/core.fsmonitor}" …: which
# key is set is known only when it runs
git_config_change(c) if {
	ga := git_config_args(c)
	not git_config_read(ga)
	ops := [x | some i, x in ga; not startswith(x, "-"); not git_config_option_value(ga, i)]
	regex.match("[$`]", git_config_key(ops))
}

git_config_key(ops) := ops[1] if ops[0] in {"set", "unset", "rename-section", "remove-section"}

else := ops[0]

# git config --edit / git config edit opens a config file in an editor:
# anything may be written into it
git_config_change(c) if {
	ga := git_config_args(c)
	some x in ga
	x in {"-e", "--edit"}
}

git_config_change(c) if {
	ga := git_config_args(c)
	ops := [x | some x in ga; not startswith(x, "-")]
	ops[0] == "edit"
}

# git config --rename-section OLD NEW (rename-section in the newer
# spelling) moves every key of OLD into NEW: foo.fsmonitor, set first
# under a harmless name, becomes core.fsmonitor
git_config_change(c) if {
	ga := git_config_args(c)
	some x in ga
	x == "--rename-section"
}

git_config_change(c) if {
	ga := git_config_args(c)
	ops := [x | some x in ga; not startswith(x, "-")]
	ops[0] == "rename-section"
}

git_config_read(ga) if {
	some x in ga
	x in {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--get-color", "--get-colorbool"}
}

# git config [--global] KEY: one operand, a key (section.name), and no
# action that changes anything, reads the value
git_config_read(ga) if {
	not git_config_action(ga)
	ops := [x | some i, x in ga; not startswith(x, "-"); not git_config_option_value(ga, i)]
	count(ops) == 1
	contains(ops[0], ".")
}

git_config_action(ga) if {
	some x in ga
	x in {"--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit"}
}

# ga[i] is the value of the option before it
git_config_option_value(ga, i) if ga[i - 1] in {"-f", "--file", "--blob", "--default", "--comment", "--type"}

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

# git reads configuration, hooks and helper programs from these; pointing
# them elsewhere runs code that was never checked.
git_redirect_vars := {"GIT_DIR", "GIT_COMMON_DIR", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "XDG_CONFIG_HOME", "GIT_CONFIG", "GIT_SSH", "GIT_PROXY_COMMAND", "GIT_ALTERNATE_OBJECT_DIRECTORIES"}

deny contains {"rule": "persist.git_config", "message": sprintf("setting %s makes git read configuration or programs from elsewhere; run git on the workspace's own repository", [a.name])} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	a.name in git_redirect_vars
}

deny contains {"rule": "persist.git_config", "message": sprintf("git %s makes git read configuration or programs from elsewhere; run git on the workspace's own repository", [f])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	some f in ["--git-dir", "--exec-path", "--config-env", "--template", "--separate-git-dir"]
	long_flag(c, f)
	not git_query_option(c, f)
}

# git rev-parse --git-dir prints where the repository is, and a bare
# git --exec-path prints git's program directory: they set nothing
git_query_option(c, "--git-dir") if {
	subcommand(c) == "rev-parse"
	xs := args(c)
	every i, a in xs {
		rev_parse_query(c, xs, i, a)
	}
}

git_query_option(c, "--exec-path") if {
	every a in args(c) {
		not startswith(a, "--exec-path=")
	}
}

rev_parse_query(_, _, _, a) if split(a, "=")[0] != "--git-dir"

rev_parse_query(c, xs, i, _) if after_subcommand(c, xs, i)

# writes into .git by anything but git itself (hooks, config, modules, worktrees)
deny contains {"rule": "persist.git_hooks", "message": sprintf("%s writes %s inside .git; git reads hooks and configuration from there — edit project files instead", [who(p), p.raw])} if {
	input.present.writes
	some p in paths
	p.access == "write"
	inside_git_dir(p.real)
	not endswith(p.real, "/.git/info/exclude") # an ignore list, nothing git runs
}

inside_git_dir(f) if f == concat("/", [input.workspace, ".git"])

# Elsewhere git reads hooks and configuration too: a ".git" entry in any
# directory (a "gitdir:" file points git at a directory of the writer's
# choosing), any directory git takes for a repository (HEAD, objects/ and
# refs/: a bare one, or the target of such a file), and the directory
# core.hooksPath names. The analyser marks such paths git_code.
deny contains {"rule": "persist.git_hooks", "message": sprintf("%s writes %s, where git reads hooks or configuration (a .git entry, a repository's own files, or core.hooksPath); git would run what is put there — edit project files instead", [who(p), p.raw])} if {
	input.present.writes
	some p in paths
	p.access == "write"
	p.git_code
	not inside_git_dir(p.real)
	not contains(concat("", [p.real, "/"]), "/.git/hooks/")
	not git_config_file(p.real)
}

inside_git_dir(f) if startswith(f, concat("/", [input.workspace, ".git/"]))

deny contains {"rule": "persist.tool_config", "message": sprintf("%s changes the tool's user configuration, which later builds run with; pass options on the command line instead", [concat(" ", array.slice(c.argv, 0, 3))])} if {
	"tool_config" in input.present.groups
	some c in commands
	tool_config_change(c)
}

tool_config_change(c) if {
	c.name == "go"
	subcommand(c) == "env"
	some f in ["w", "u"]
	short_flag(c, f)
}

tool_config_change(c) if {
	c.name in {"npm", "pnpm", "yarn", "pip", "pip3", "conda", "poetry", "gem", "cargo"}
	a := args(c)
	some i, x in a
	x == "config"
	a[i + 1] in {"set", "delete", "unset", "edit", "--add", "--set", "--remove"}
}

tool_config_change(c) if {
	c.name in {"npm", "pnpm"}
	subcommand(c) in {"set", "config-set"}
}

injection_vars := {"GCONV_PATH", "PERL5OPT", "RUBYOPT", "PERL5DB", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER"}

# option variables are fine unless the options run programs
injected_options := {
	"GOFLAGS": `-(toolexec|exec|vettool|overlay)`,
	"TAR_OPTIONS": `(command|program|checkpoint-action|info-script|-I|rsh)`,
	"MAKEFLAGS": `(SHELL|--eval|-E)`,
	"CARGO_TARGET_DIR": `^$`,
}

deny contains {"rule": "persist.env_injection", "message": sprintf("%s with these options makes the tool run other programs; pass options on the command line", [a.name])} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	pattern := injected_options[a.name]
	pattern != `^$`
	regex.match(pattern, a.value)
}

deny contains {"rule": "persist.env_injection", "message": sprintf("setting %s makes a program load or run extra code; run the program plainly", [a.name])} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	a.name in injection_vars
}

deny contains {"rule": "persist.env_injection", "message": "NODE_OPTIONS that load modules make node run extra code; run node plainly"} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	a.name == "NODE_OPTIONS"
	regex.match(`(^|\s)(-r|--require|--import|--loader|--experimental-loader)`, a.value)
}

ld_vars := {"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "LD_DEBUG_OUTPUT"}

deny contains {"rule": "persist.ld_preload", "message": sprintf("setting %s injects libraries into every program; build and link normally instead", [a.name])} if {
	input.present.assigns
	some a in object.get(input, "assigns", [])
	a.name in ld_vars
}

deny contains {"rule": "persist.history", "message": "clearing or disabling shell history hides what was done; leave history alone"} if {
	"history" in input.present.groups
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
	c.name == "shopt"
	short_flag(c, "u")
	"history" in args(c)
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

deny contains {"rule": "persist.service", "message": "loginctl enable-linger keeps user services running after logout; services are not managed from an agent"} if {
	"power" in input.present.groups
	some c in commands
	c.name == "loginctl"
	"enable-linger" in args(c)
}

# The agent's own settings: Claude Code reads its hooks (toolgate among
# them) and permission rules from .claude/settings.json and
# .claude/settings.local.json, in the project and in the home directory;
# the hooks often run scripts kept in .claude/hooks, and .mcp.json names
# the MCP server commands a project starts.
# An agent that rewrites them can switch its guard off.
# Names are compared without case, as the git rules do: on macOS and
# Windows file systems .CLAUDE/Settings.json is the same file.
deny contains {"rule": "persist.agent_config", "message": sprintf("%s changes %s, an agent's own settings (its hooks, permissions or the MCP servers it starts); those are the user's to change", [who(p), p.raw])} if {
	input.present.writes
	some p in paths
	p.access in {"write", "delete"}
	contains(p.real, "/.") # every such file lies in or is a dot entry: most paths stop here
	agent_settings(lower(p.real))
}

agent_settings(r) if endswith(r, "/.claude/settings.json")

agent_settings(r) if endswith(r, "/.claude/settings.local.json")

agent_settings(r) if endswith(r, "/.claude")

# scripts the settings' hooks run, and the MCP servers a project starts
agent_settings(r) if endswith(r, "/.claude/hooks")

agent_settings(r) if contains(r, "/.claude/hooks/")

agent_settings(r) if endswith(r, "/.mcp.json")

# subagents and skills may declare hooks in their frontmatter, which run
# as the settings' hooks do (slash commands run only when a person types
# them, and stay the agent's to write)
agent_settings(r) if {
	some d in agent_dirs
	agent_dir(r, d)
}

# other agents and editors start programs from their project files as
# .mcp.json does: MCP servers (VS Code, Cursor, Gemini CLI, Codex, Roo,
# Kiro, Amazon Q, Continue, Windsurf) and hooks (Cursor, Gemini CLI's
# settings, Codex, Windsurf). Cursor's rules are prompts, not programs.
agent_settings(r) if {
	some f in other_agent_files
	endswith(r, f)
}

# the directories whose entries are agent settings, and the same with the
# slash their entries' paths hold
agent_dirs := {"/.claude/agents", "/.claude/skills", "/.cursor/hooks", "/.continue/mcpservers"}

agent_dir_entries := {concat("", [d, "/"]) | some d in agent_dirs}

other_agent_files := {
	"/.vscode/mcp.json", "/.cursor/mcp.json", "/.cursor/hooks.json", "/.gemini/settings.json",
	"/.codex/config.toml", "/.codex/hooks.json", "/.windsurf/hooks.json", "/.codeium/windsurf/mcp_config.json",
	"/.continue/config.json", "/.continue/config.yaml", "/.continue/config.ts",
	"/.roo/mcp.json", "/.kiro/settings/mcp.json", "/.amazonq/mcp.json",
}

agent_dir(r, d) if endswith(r, d)

agent_dir(r, d) if {
	some e in agent_dir_entries
	startswith(e, d)
	contains(r, e)
}
