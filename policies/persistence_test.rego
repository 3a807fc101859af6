# Tests for persistence.rego. Helpers live in toolgate_test.rego.
package toolgate_test

git(argv) := cmd(array.concat(["git"], argv))

# ---- persist.scheduler ----

test_persist_scheduler_crontab_install if {
	doc := exec_call("crontab jobs.txt", [cmd(["crontab", "jobs.txt"])], [wpath("jobs.txt", "read", 0, "crontab")])
	"persist.scheduler" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_scheduler_crontab_edit_and_at if {
	"persist.scheduler" in rules(exec_call("crontab -e", [cmd(["crontab", "-e"])], []))
	"persist.scheduler" in rules(exec_call("crontab -r", [cmd(["crontab", "-r"])], []))
	"persist.scheduler" in rules(exec_call("at now + 1 hour", [cmd(["at", "now", "+", "1", "hour"])], []))
	"persist.scheduler" in rules(exec_call("batch", [cmd(["batch"])], []))
}

test_persist_scheduler_git_maintenance if {
	"persist.scheduler" in rules(simple_call(["git", "maintenance", "start"]))
	"persist.scheduler" in rules(simple_call(["git", "-C", "sub", "maintenance", "register", "--config-file", "x"]))
	"persist.scheduler" in rules(simple_call(["git", "maintenance", "--quiet", "start", "--scheduler=crontab"]))
	not "persist.scheduler" in rules(simple_call(["git", "maintenance", "run", "--task=gc"]))
	not "persist.scheduler" in rules(simple_call(["git", "maintenance", "stop"]))
}

test_persist_scheduler_not_for_listing if {
	doc := exec_call("crontab -l", [cmd(["crontab", "-l"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_persist_scheduler_not_for_atq_lookalikes if {
	doc := exec_call("cat at.txt", [cmd(["cat", "at.txt"])], [wpath("at.txt", "read", 0, "cat")])
	verdict(doc) == "allow"
}

# ---- persist.service ----

test_persist_service_systemctl_enable if {
	doc := exec_call("systemctl enable --now backdoor.service", [cmd(["systemctl", "enable", "--now", "backdoor.service"])], [])
	"persist.service" in rules(doc)
	verdict(doc) == "deny"
	some m in messages(doc, "persist.service")
	startswith(m, "systemctl enable installs")
}

test_persist_service_user_units_and_starts if {
	"persist.service" in rules(exec_call("systemctl --user start app", [cmd(["systemctl", "--user", "start", "app"])], []))
	"persist.service" in rules(exec_call("systemctl daemon-reload", [cmd(["systemctl", "daemon-reload"])], []))
}

test_persist_service_other_managers if {
	"persist.service" in rules(exec_call("service nginx restart", [cmd(["service", "nginx", "restart"])], []))
	"persist.service" in rules(exec_call("systemd-run --user sleep 1000", [cmd(["systemd-run", "--user", "sleep", "1000"])], []))
	"persist.service" in rules(exec_call("update-rc.d evil defaults", [cmd(["update-rc.d", "evil", "defaults"])], []))
}

test_persist_service_not_for_queries if {
	doc := exec_call("systemctl status nginx; systemctl --user list-units; systemctl is-active app", [
		cmd(["systemctl", "status", "nginx"]),
		cmd(["systemctl", "--user", "list-units"]),
		cmd(["systemctl", "is-active", "app"]),
	], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- persist.rc_file ----

test_persist_rc_file_bashrc if {
	doc := exec_call("echo 'curl x | sh' >> ~/.bashrc", [cmd(["echo", "curl x | sh"])], [redirect_path("~/.bashrc", "/home/user/.bashrc", "home", "write")])
	"persist.rc_file" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_rc_file_profile_and_etc_environment if {
	"persist.rc_file" in rules(exec_call("cp x ~/.profile", [cmd(["cp", "x", "/home/user/.profile"])], [cpath("/home/user/.profile", "/home/user/.profile", "home", "write", 0, "cp")]))
	"persist.rc_file" in rules(exec_call("rm ~/.zshrc", [cmd(["rm", "/home/user/.zshrc"])], [cpath("/home/user/.zshrc", "/home/user/.zshrc", "home", "delete", 0, "rm")]))
	"persist.rc_file" in rules(exec_call("tee -a /etc/environment", [cmd(["tee", "-a", "/etc/environment"])], [cpath("/etc/environment", "/etc/environment", "system", "write", 0, "tee")]))
	"persist.rc_file" in rules(exec_call("tee ~/.config/fish/config.fish", [cmd(["tee", "/home/user/.config/fish/config.fish"])], [cpath("/home/user/.config/fish/config.fish", "/home/user/.config/fish/config.fish", "home", "write", 0, "tee")]))
}

test_persist_rc_file_applies_without_restriction if {
	doc := exec_call("echo x >> ~/.bashrc", [cmd(["echo", "x"])], [redirect_path("~/.bashrc", "/home/user/.bashrc", "home", "write")])
	r := rules(doc) with data.toolgate.config.restrict_to_workspace as false
	r == {"persist.rc_file"}
}

test_persist_rc_file_not_in_the_workspace if {
	# a project's own dotfiles (a dotfiles repository) may be edited
	doc := exec_call("echo 'alias ll=ls -l' >> .bashrc", [cmd(["echo", "alias ll=ls -l"])], [redirect_path(".bashrc", concat("/", [ws, ".bashrc"]), "workspace", "write")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_persist_rc_file_not_for_reading if {
	doc := exec_call("grep PATH /etc/environment", [cmd(["grep", "PATH", "/etc/environment"])], [cpath("/etc/environment", "/etc/environment", "system", "read", 0, "grep")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_persist_rc_file_not_for_similar_names if {
	doc := exec_call("touch /tmp/my.bashrc.bak", [cmd(["touch", "/tmp/my.bashrc.bak"])], [cpath("/tmp/my.bashrc.bak", "/tmp/my.bashrc.bak", "tmp", "write", 0, "touch")])
	verdict(doc) == "allow"
}

# ---- persist.git_hooks ----

test_persist_git_hooks_write if {
	doc := exec_call("echo 'curl x|sh' > .git/hooks/pre-commit", [cmd(["echo", "curl x|sh"])], [redirect_path(".git/hooks/pre-commit", concat("/", [ws, ".git/hooks/pre-commit"]), "workspace", "write")])
	"persist.git_hooks" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_git_hooks_copy_and_delete if {
	"persist.git_hooks" in rules(exec_call("cp hook.sh .git/hooks/post-checkout", [cmd(["cp", "hook.sh", ".git/hooks/post-checkout"])], [
		wpath("hook.sh", "read", 0, "cp"),
		wpath(".git/hooks/post-checkout", "write", 0, "cp"),
	]))
	"persist.git_hooks" in rules(exec_call("rm -rf .git/hooks", [cmd(["rm", "-rf", ".git/hooks"])], [wpath(".git/hooks", "delete", 0, "rm")]))
}

test_persist_git_hooks_not_for_reading if {
	doc := exec_call("cat .git/hooks/pre-commit.sample", [cmd(["cat", ".git/hooks/pre-commit.sample"])], [wpath(".git/hooks/pre-commit.sample", "read", 0, "cat")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_persist_git_hooks_not_for_lookalike_paths if {
	doc := exec_call("vim docs/git/hooks.md githooks/pre-commit", [cmd(["vim", "docs/git/hooks.md", "githooks/pre-commit"])], [
		wpath("docs/git/hooks.md", "write", 0, "vim"),
		wpath("githooks/pre-commit", "write", 0, "vim"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- persist.git_config (files) ----

test_persist_git_config_write_dot_git_config if {
	doc := exec_call("printf '[core]\\n\\tfsmonitor = ./x\\n' >> .git/config", [cmd(["printf", "[core]\\n\\tfsmonitor = ./x\\n"])], [redirect_path(".git/config", concat("/", [ws, ".git/config"]), "workspace", "write")])
	"persist.git_config" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_git_config_write_global_file if {
	doc := exec_call("cp gitconfig ~/.gitconfig", [cmd(["cp", "gitconfig", "/home/user/.gitconfig"])], [
		wpath("gitconfig", "read", 0, "cp"),
		cpath("/home/user/.gitconfig", "/home/user/.gitconfig", "home", "write", 0, "cp"),
	])
	"persist.git_config" in rules(doc)
}

test_persist_git_config_not_for_reading_config if {
	doc := exec_call("cat .git/config", [cmd(["cat", ".git/config"])], [wpath(".git/config", "read", 0, "cat")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_persist_git_config_not_for_project_files if {
	# gitconfig.example in the repository is not git configuration
	doc := exec_call("vim docs/gitconfig.example", [cmd(["vim", "docs/gitconfig.example"])], [wpath("docs/gitconfig.example", "write", 0, "vim")])
	verdict(doc) == "allow"
}

# Regression test (bug fixed): persistence.rego:53 (git_config_file) treats every .gitattributes as
# git configuration. The workspace's .gitattributes is an ordinary tracked
# project file (eol, linguist, LFS patterns); it only names drivers that git
# configuration must define, and writes to that configuration are already
# denied. DESIGN.md lists ".git/config or .git/hooks", and "ordinary
# development inside the workspace" is allowed, yet
# `echo '*.png binary' >> .gitattributes` is denied.
#
test_persist_git_config_not_for_workspace_gitattributes if {
	doc := exec_call("echo '*.png binary' >> .gitattributes", [cmd(["echo", "*.png binary"])], [redirect_path(".gitattributes", concat("/", [ws, ".gitattributes"]), "workspace_root", "write")])
	not "persist.git_config" in rules(doc)
}

# ---- persist.git_config (git -c) ----

test_persist_git_config_dash_c_code_key if {
	doc := exec_call("git -c core.hooksPath=/tmp/h commit -m x", [git(["-c", "core.hooksPath=/tmp/h", "commit", "-m", "x"])], [])
	"persist.git_config" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_git_config_dash_c_other_code_keys if {
	every kv in ["alias.st=!sh -c id", "core.fsmonitor=./x", "core.sshCommand=ssh -oProxyCommand=id", "filter.lfs.smudge=./x", "diff.pdf.textconv=./x", "credential.helper=!cat"] {
		"persist.git_config" in rules(exec_call("git -c … log", [git(["-c", kv, "log"])], []))
	}
}

# git archive's tar filters, send-email's hooks, instaweb, git gui tools and
# imap-send's tunnel run their values too (red-team sweep, session 5).
test_persist_git_config_dash_c_tool_command_keys if {
	every kv in ["tar.x.command=cat ~/.ssh/id_rsa; cat", "tar.tar.gz.command=./x", "sendemail.toCmd=./x", "sendemail.ccCmd=./x", "sendemail.smtpServer=/tmp/x", "instaweb.httpd=./x", "guitool.t.cmd=./x", "imap.tunnel=./x"] {
		"persist.git_config" in rules(exec_call("git -c … archive", [git(["-c", kv, "archive", "--format=x", "HEAD"])], []))
	}
}

test_persist_git_config_dash_c_tar_umask_is_plain if {
	doc := exec_call("git -c tar.umask=022 archive HEAD", [git(["-c", "tar.umask=022", "archive", "HEAD"])], [])
	not "persist.git_config" in rules(doc)
}

test_persist_git_config_dash_c_not_for_plain_keys if {
	doc := exec_call("git -c user.name=Bot -c color.ui=always log --oneline", [git(["-c", "user.name=Bot", "-c", "color.ui=always", "log", "--oneline"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- persist.git_config (git config) ----

test_persist_git_config_code_setting if {
	doc := exec_call("git config core.hooksPath .githooks", [git(["config", "core.hooksPath", ".githooks"])], [])
	"persist.git_config" in rules(doc)
	verdict(doc) == "deny"
}
test_persist_git_config_dynamic_key if {
	every argv in [
		["config", "$k", "id"],
		["config", "${x/%X/core.fsmonitor}", "id"],
		["config", "set", "$(cat key)", "id"],
		["config", "--local", "${x[@]}", "id"],
	] {
		"persist.git_config" in rules(exec_call(concat(" ", array.concat(["git"], argv)), [git(argv)], []))
	}
	# the value alone known at run time, or a key read
	not "persist.git_config" in rules(exec_call("git config user.email $EMAIL", [git(["config", "user.email", "$EMAIL"])], []))
	not "persist.git_config" in rules(exec_call("git config --get $k", [git(["config", "--get", "$k"])], []))
}


test_persist_git_config_global_and_system if {
	"persist.git_config" in rules(exec_call("git config --global user.name Bot", [git(["config", "--global", "user.name", "Bot"])], []))
	"persist.git_config" in rules(exec_call("git config --system core.editor vim", [git(["config", "--system", "core.editor", "vim"])], []))
	"persist.git_config" in rules(exec_call("git config --unset core.pager", [git(["config", "--unset", "core.pager"])], []))
	"persist.git_config" in rules(exec_call("git config set --global user.email a@b", [git(["config", "set", "--global", "user.email", "a@b"])], []))
	"persist.git_config" in rules(exec_call("git -C sub config core.fsmonitor ./x", [git(["-C", "sub", "config", "core.fsmonitor", "./x"])], []))
}

test_persist_git_config_not_for_local_plain_settings if {
	doc := exec_call("git config user.email bot@example.com", [git(["config", "user.email", "bot@example.com"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_persist_git_config_not_for_reads if {
	every argv in [
		["config", "--get", "core.hooksPath"],
		["config", "--global", "--list"],
		["config", "get", "--global", "user.name"],
		["config", "--global", "--get-regexp", "alias"],
		["config", "--global", "user.name"],
		["config", "--global", "core.pager"],
		["config", "-f", "other.cfg", "user.name"],
	] {
		not "persist.git_config" in rules(exec_call("git config …", [git(argv)], []))
	}
}

test_persist_git_config_not_for_the_word_config_elsewhere if {
	doc := exec_call("git commit -m 'update config' -- config/app.yaml", [git(["commit", "-m", "update config", "--", "config/app.yaml"])], [wpath("config/app.yaml", "read", 0, "git")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# Regression test (bug fixed): persistence.rego:106-109 (git_config_read) treats a bare "get" or
# "list" ANYWHERE after `config` as read mode, including in the value
# position. So `git config core.hooksPath list` (hooks then run from
# ./list/, which the agent may write freely) and `git config --global
# user.name list` (a write outside the workspace) are allowed.
#
test_persist_git_config_value_named_like_a_read_subcommand if {
	doc := exec_call("git config core.hooksPath list", [git(["config", "core.hooksPath", "list"])], [])
	"persist.git_config" in rules(doc)
	doc2 := exec_call("git config --global user.name list", [git(["config", "--global", "user.name", "list"])], [])
	"persist.git_config" in rules(doc2)
}

# Regression test (bug fixed): persistence.rego:79 (the git config deny) prints "git config %s" with all of
# args(c), which already starts with "config", so the message reads
# "git config config core.hooksPath .githooks …".
#
test_persist_git_config_message_names_the_command_once if {
	doc := exec_call("git config core.hooksPath .githooks", [git(["config", "core.hooksPath", ".githooks"])], [])
	some m in messages(doc, "persist.git_config")
	startswith(m, "git config core.hooksPath .githooks changes")
}

# ---- persist.git_config (environment) ----

test_persist_git_config_environment if {
	doc := with_facts(
		exec_call("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=./x git log", [object.union(git(["log"]), {"env": {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager", "GIT_CONFIG_VALUE_0": "./x"}})], []),
		{"assigns": [
			{"name": "GIT_CONFIG_COUNT", "value": "1", "dynamic": false, "cmd": 0},
			{"name": "GIT_CONFIG_KEY_0", "value": "core.pager", "dynamic": false, "cmd": 0},
			{"name": "GIT_CONFIG_VALUE_0", "value": "./x", "dynamic": false, "cmd": 0},
		]},
	)
	"persist.git_config" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_git_config_environment_not_for_nosystem if {
	doc := with_facts(
		exec_call("GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Bot git commit -m x", [object.union(git(["commit", "-m", "x"]), {"env": {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Bot"}})], []),
		{"assigns": [
			{"name": "GIT_CONFIG_NOSYSTEM", "value": "1", "dynamic": false, "cmd": 0},
			{"name": "GIT_AUTHOR_NAME", "value": "Bot", "dynamic": false, "cmd": 0},
		]},
	)
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- persist.ld_preload ----

test_persist_ld_preload_for_one_command if {
	doc := with_facts(
		exec_call("LD_PRELOAD=./hook.so ls", [object.union(cmd(["ls"]), {"env": {"LD_PRELOAD": "./hook.so"}})], [wpath("hook.so", "exec", 0, "")]),
		{"assigns": [{"name": "LD_PRELOAD", "value": "./hook.so", "dynamic": false, "cmd": 0}]},
	)
	"persist.ld_preload" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_ld_preload_exported if {
	doc := with_facts(
		exec_call("export LD_LIBRARY_PATH=/tmp/evil", [], []),
		{"assigns": [{"name": "LD_LIBRARY_PATH", "value": "/tmp/evil", "dynamic": false, "cmd": -1}]},
	)
	"persist.ld_preload" in rules(doc)
}

test_persist_ld_preload_not_for_ordinary_variables if {
	doc := with_facts(
		exec_call("CGO_ENABLED=0 GOFLAGS=-trimpath go build ./...", [object.union(cmd(["go", "build", "./..."]), {"env": {"CGO_ENABLED": "0", "GOFLAGS": "-trimpath"}})], []),
		{"assigns": [
			{"name": "CGO_ENABLED", "value": "0", "dynamic": false, "cmd": 0},
			{"name": "GOFLAGS", "value": "-trimpath", "dynamic": false, "cmd": 0},
		]},
	)
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- persist.history ----

test_persist_history_clear if {
	doc := exec_call("history -c", [cmd(["history", "-c"])], [])
	"persist.history" in rules(doc)
	verdict(doc) == "deny"
}

test_persist_history_other_forms if {
	"persist.history" in rules(exec_call("history -d 5", [cmd(["history", "-d", "5"])], []))
	"persist.history" in rules(exec_call("unset HISTFILE", [cmd(["unset", "HISTFILE"])], []))
	"persist.history" in rules(exec_call("set +o history", [cmd(["set", "+o", "history"])], []))
}

test_persist_history_assignment if {
	doc := with_facts(
		exec_call("HISTFILE=/dev/null", [], []),
		{"assigns": [{"name": "HISTFILE", "value": "/dev/null", "dynamic": false, "cmd": -1}]},
	)
	"persist.history" in rules(doc)
}

test_persist_history_not_for_reading_history_or_other_settings if {
	doc := exec_call("history 20; history -a; unset TMPVAR; set -o pipefail", [
		cmd(["history", "20"]),
		cmd(["history", "-a"]),
		cmd(["unset", "TMPVAR"]),
		cmd(["set", "-o", "pipefail"]),
	], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- persist.agent_config (red-team round 3, session 5) ----

test_persist_agent_config_settings_written if {
	every rel in [".claude/settings.json", ".claude/settings.local.json"] {
		p := wpath(rel, "write", 0, "tee")
		"persist.agent_config" in rules(exec_call(concat(" ", ["tee", rel]), [cmd(["tee", rel])], [p]))
	}
	d := wpath(".claude", "delete", 0, "rm")
	"persist.agent_config" in rules(exec_call("rm -rf .claude", [cmd(["rm", "-rf", ".claude"])], [d]))
}

test_persist_agent_config_subagents_and_skills if {
	every rel in [".claude/agents/x.md", ".claude/skills/x/SKILL.md", ".claude/skills"] {
		p := wpath(rel, "write", 0, "tee")
		"persist.agent_config" in rules(exec_call(concat(" ", ["tee", rel]), [cmd(["tee", rel])], [p]))
	}
	p := wpath(".claude/agentsx.md", "write", 0, "tee")
	not "persist.agent_config" in rules(exec_call("tee .claude/agentsx.md", [cmd(["tee", ".claude/agentsx.md"])], [p]))
}

test_persist_agent_config_not_for_other_claude_files if {
	p := wpath(".claude/commands/review.md", "write", 0, "tee")
	not "persist.agent_config" in rules(exec_call("tee .claude/commands/review.md", [cmd(["tee", ".claude/commands/review.md"])], [p]))
	r := wpath(".claude/settings.json", "read", 0, "cat")
	not "persist.agent_config" in rules(exec_call("cat .claude/settings.json", [cmd(["cat", ".claude/settings.json"])], [r]))
}

# ---- case variants (red-team round 7, session 31) ----

test_persist_agent_config_without_case if {
	every rel in [".CLAUDE/settings.json", ".claude/SETTINGS.JSON", ".Claude/settings.local.json", ".MCP.json", ".claude/Hooks/x.sh", ".claude/Skills/x/SKILL.md", ".claude/AGENTS/x.md", ".Cursor/MCP.json"] {
		p := wpath(rel, "write", 0, "tee")
		"persist.agent_config" in rules(exec_call(concat(" ", ["tee", rel]), [cmd(["tee", rel])], [p]))
	}
	p := wpath(".claude/Commands/review.md", "write", 0, "tee")
	not "persist.agent_config" in rules(exec_call("tee .claude/Commands/review.md", [cmd(["tee", ".claude/Commands/review.md"])], [p]))
}

# ---- other agents' MCP servers and hooks (red-team round 7, session 31) ----

test_persist_agent_config_other_agents if {
	every rel in [
		".vscode/mcp.json", ".cursor/mcp.json", ".cursor/hooks.json", ".cursor/hooks/audit.sh", ".gemini/settings.json",
		".codex/config.toml", ".codex/hooks.json", ".windsurf/hooks.json", ".continue/config.yaml",
		".continue/mcpServers/x.yaml", ".roo/mcp.json", ".kiro/settings/mcp.json", ".amazonq/mcp.json",
	] {
		p := wpath(rel, "write", 0, "tee")
		"persist.agent_config" in rules(exec_call(concat(" ", ["tee", rel]), [cmd(["tee", rel])], [p]))
	}
	every rel in [".cursor/rules/style.mdc", ".vscode/launch.json", ".gemini/styleguide.md", ".continue/prompts/x.md", "docs/mcp.json"] {
		p := wpath(rel, "write", 0, "tee")
		not "persist.agent_config" in rules(exec_call(concat(" ", ["tee", rel]), [cmd(["tee", rel])], [p]))
	}
	r := wpath(".vscode/mcp.json", "read", 0, "cat")
	not "persist.agent_config" in rules(exec_call("cat .vscode/mcp.json", [cmd(["cat", ".vscode/mcp.json"])], [r]))
}

test_persist_service_status_is_a_query if {
	not "persist.service" in rules(simple_call(["service", "docker", "status"]))
	not "persist.service" in rules(simple_call(["service", "--status-all"]))
	"persist.service" in rules(simple_call(["service", "docker", "start"]))
}

test_persist_pre_commit_install if {
	"persist.git_hooks" in rules(simple_call(["pre-commit", "install"]))
	not "persist.git_hooks" in rules(simple_call(["pre-commit", "run", "--all-files"]))
}

test_persist_git_info_exclude_is_not_a_hook if {
	p := cpath(".git/info/exclude", "/ws/.git/info/exclude", "workspace", "write", 0, "echo")
	doc := exec_call("echo build/ >> .git/info/exclude", [cmd(["echo", "build/"])], [p])
	not "persist.git_hooks" in rules(doc)
}

# ---- git directories elsewhere, core.hooksPath (red-team, session 7) ----

test_persist_git_code_write_denied if {
	every rel in ["sub/.git", "gd/config", "gd/hooks/pre-commit", ".githooks/pre-commit"] {
		p := object.union(wpath(rel, "write", 0, "tee"), {"git_code": true})
		"persist.git_hooks" in rules(exec_call(concat(" ", ["tee", rel]), [cmd(["tee", rel])], [p]))
	}
}

test_persist_git_code_not_for_reads_or_plain_files if {
	r := object.union(wpath("gd/config", "read", 0, "cat"), {"git_code": true})
	not "persist.git_hooks" in rules(exec_call("cat gd/config", [cmd(["cat", "gd/config"])], [r]))
	w := wpath("src/config", "write", 0, "tee")
	not "persist.git_hooks" in rules(exec_call("tee src/config", [cmd(["tee", "src/config"])], [w]))
}

test_persist_git_code_root_git_dir_keeps_its_own_reasons if {
	p := object.union(wpath(".git/hooks/pre-commit", "write", 0, "tee"), {"git_code": true})
	ms := messages(exec_call("tee .git/hooks/pre-commit", [cmd(["tee", ".git/hooks/pre-commit"])], [p]), "persist.git_hooks")
	count(ms) > 0
	every m in ms {
		not contains(m, "core.hooksPath")
	}
}

test_persist_agent_config_hook_scripts_and_mcp_servers if {
	every rel in [".claude/hooks/pre.sh", ".mcp.json"] {
		p := wpath(rel, "write", 0, "tee")
		"persist.agent_config" in rules(exec_call(concat(" ", ["tee", rel]), [cmd(["tee", rel])], [p]))
	}
}

test_persist_git_config_common_dir_and_unknown_key if {
	"persist.git_config" in rules(object.union(simple_call(["git", "zz"]), {"assigns": [{"name": "GIT_COMMON_DIR", "value": "/tmp/g", "dynamic": false, "cmd": 0}]}))
	"persist.git_config" in rules(simple_call(["git", "-c", "$(cat o.txt)", "x"]))
	not "persist.git_config" in rules(simple_call(["git", "-c", "user.name=me", "commit"]))
}

test_persist_git_config_one_operand_that_changes if {
	every argv in [
		["config", "--global", "--unset", "user.name"],
		["config", "--global", "--edit"],
		["config", "-e"],
		["config", "edit"],
		["config", "--global", "--remove-section", "alias"],
		["config", "--rename-section", "foo", "core"],
		["config", "--local", "--rename-section", "x", "alias"],
		["config", "rename-section", "foo", "core"],
	] {
		"persist.git_config" in rules(exec_call("git config …", [git(argv)], []))
	}
}

# git rev-parse --git-dir and a bare git --exec-path only print (session 10)
test_persist_git_config_queries_allowed if {
	not "persist.git_config" in rules(simple_call(["git", "rev-parse", "--git-dir"]))
	not "persist.git_config" in rules(simple_call(["git", "rev-parse", "--show-toplevel", "--git-dir"]))
	not "persist.git_config" in rules(simple_call(["git", "--exec-path"]))
	"persist.git_config" in rules(simple_call(["git", "--git-dir=/tmp/x/.git", "rev-parse", "HEAD"]))
	"persist.git_config" in rules(simple_call(["git", "--exec-path=/tmp/x", "status"]))
	"persist.git_config" in rules(simple_call(["git", "--git-dir", "/tmp/x/.git", "log"]))
}
