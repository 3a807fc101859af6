# Tests for workspace.rego. Helpers live in toolgate_test.rego.
package toolgate_test

# ---- workspace.write_outside ----

test_workspace_write_outside_redirect_to_etc if {
	doc := exec_call("echo 127.0.0.1 evil >> /etc/hosts", [cmd(["echo", "127.0.0.1 evil"])], [redirect_path("/etc/hosts", "/etc/hosts", "system", "write")])
	"workspace.write_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_write_outside_cp_to_home if {
	doc := exec_call("cp build/app ~/bin/app", [cmd(["cp", "build/app", "/home/user/bin/app"])], [
		wpath("build/app", "read", 0, "cp"),
		cpath("/home/user/bin/app", "/home/user/bin/app", "home", "write", 0, "cp"),
	])
	"workspace.write_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_write_outside_through_a_symlink if {
	# src/link_up -> ../..: src/link_up/../x resolves (kernel order) to /home/user/x
	p := object.union(cpath("src/link_up/../x", "/home/user/x", "home", "write", 0, "touch"), {"abs": "/home/user/proj/src/x"})
	doc := exec_call("touch src/link_up/../x", [cmd(["touch", "src/link_up/../x"])], [p])
	"workspace.write_outside" in rules(doc)
}

test_workspace_write_outside_not_for_copy_into_tmp if {
	# cp build/app /tmp: the target is the sandbox's private /tmp
	doc := exec_call("cp build/app /tmp", [cmd(["cp", "build/app", "/tmp"])], [
		wpath("build/app", "read", 0, "cp"),
		cpath("/tmp", "/tmp", "tmp_root", "write", 0, "cp"),
	])
	not "workspace.write_outside" in rules(doc)
	verdict(doc) == "allow"
}

test_workspace_write_outside_write_file_to_tmp if {
	# file tools run in toolgate itself: only the workspace is writable
	doc := file_call("write_file", {"path": "/tmp/notes.txt", "content": "x"}, [path("/tmp/notes.txt", "tmp", "write")])
	"workspace.write_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_write_outside_not_inside_the_workspace if {
	doc := exec_call("sed -i s/foo/bar/ src/main.go > build/log.txt", [cmd(["sed", "-i", "s/foo/bar/", "src/main.go"])], [
		wpath("src/main.go", "write", 0, "sed"),
		redirect_path("build/log.txt", concat("/", [ws, "build/log.txt"]), "workspace", "write"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_workspace_write_outside_not_for_tmp_and_dev_null if {
	doc := exec_call("go test ./... > /tmp/test.log 2>/dev/null", [cmd(["go", "test", "./..."])], [
		redirect_path("/tmp/test.log", "/tmp/test.log", "tmp", "write"),
		redirect_path("/dev/null", "/dev/null", "dev_safe", "write"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_workspace_write_outside_not_for_write_file_in_workspace if {
	doc := file_call("write_file", {"path": "src/a.go", "content": "package a"}, [path(concat("/", [ws, "src/a.go"]), "workspace", "write")])
	verdict(doc) == "allow"
}

test_workspace_write_outside_leaves_secrets_and_devices_to_their_rules if {
	doc := exec_call("cat key.pub >> ~/.ssh/authorized_keys; echo x > /dev/sda", [cmd(["cat", "key.pub"]), cmd(["echo", "x"])], [
		wpath("key.pub", "read", 0, "cat"),
		secret(redirect_path("/home/user/.ssh/authorized_keys", "/home/user/.ssh/authorized_keys", "home", "write"), "~/.ssh"),
		redirect_path("/dev/sda", "/dev/sda", "device", "write"),
	])
	r := rules(doc)
	not "workspace.write_outside" in r
	"secrets.access" in r
	"destroy.device_write" in r
}

test_workspace_write_outside_off_when_not_restricted if {
	doc := exec_call("echo x >> /etc/hosts", [cmd(["echo", "x"])], [redirect_path("/etc/hosts", "/etc/hosts", "system", "write")])
	d := decision(doc) with data.toolgate.config.restrict_to_workspace as false
	d.decision == "allow"
}

test_workspace_messages_name_the_command if {
	doc := exec_call("cp a ~/b", [cmd(["cp", "a", "/home/user/b"])], [cpath("~/b", "/home/user/b", "home", "write", 0, "cp")])
	some m in messages(doc, "workspace.write_outside")
	startswith(m, "cp writes ~/b")
}

test_workspace_messages_name_a_redirection if {
	doc := exec_call("echo x > /opt/x", [cmd(["echo", "x"])], [redirect_path("/opt/x", "/opt/x", "system", "write")])
	some m in messages(doc, "workspace.write_outside")
	startswith(m, "a redirection writes /opt/x")
}

# ---- workspace.delete_outside ----

test_workspace_delete_outside_system if {
	doc := exec_call("rm -rf /etc/nginx", [cmd(["rm", "-rf", "/etc/nginx"])], [cpath("/etc/nginx", "/etc/nginx", "system", "delete", 0, "rm")])
	"workspace.delete_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_delete_outside_tmp_root_and_home_dirs if {
	"workspace.delete_outside" in rules(exec_call("rm -rf /tmp", [cmd(["rm", "-rf", "/tmp"])], [cpath("/tmp", "/tmp", "tmp_root", "delete", 0, "rm")]))
	"workspace.delete_outside" in rules(exec_call("shred -u ~/notes.txt", [cmd(["shred", "-u", "/home/user/notes.txt"])], [cpath("/home/user/notes.txt", "/home/user/notes.txt", "home", "delete", 0, "shred")]))
	"workspace.delete_outside" in rules(exec_call("rm ../other/file", [cmd(["rm", "../other/file"])], [cpath("../other/file", "/home/user/other/file", "home", "delete", 0, "rm")]))
}

test_workspace_delete_outside_not_inside_workspace_or_tmp if {
	doc := exec_call("rm -rf build /tmp/go-build123", [cmd(["rm", "-rf", "build", "/tmp/go-build123"])], [
		wpath("build", "delete", 0, "rm"),
		cpath("/tmp/go-build123", "/tmp/go-build123", "tmp", "delete", 0, "rm"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_workspace_delete_outside_leaves_root_and_home_to_destroy_root if {
	doc := exec_call("rm -rf / ~", [cmd(["rm", "-rf", "/", home])], [
		cpath("/", "/", "root", "delete", 0, "rm"),
		cpath(home, home, "home", "delete", 0, "rm"),
	])
	r := rules(doc)
	not "workspace.delete_outside" in r
	"destroy.root" in r
}

test_workspace_delete_outside_off_when_not_restricted if {
	doc := exec_call("rm -rf /etc/nginx", [cmd(["rm", "-rf", "/etc/nginx"])], [cpath("/etc/nginx", "/etc/nginx", "system", "delete", 0, "rm")])
	r := rules(doc) with data.toolgate.config.restrict_to_workspace as false
	not "workspace.delete_outside" in r
}

# ---- workspace.cd_outside ----

test_workspace_cd_outside if {
	doc := exec_call("cd /etc && ls", [cmd(["cd", "/etc"]), object.union(cmd(["ls"]), {"cwd": "/etc"})], [cpath("/etc", "/etc", "system", "cwd", 0, "cd")])
	"workspace.cd_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_cd_outside_working_dir if {
	# exec with working_dir ~: the path has no command
	doc := object.union(exec_call("ls", [object.union(cmd(["ls"]), {"cwd": home})], [path(home, "home", "cwd")]), {"args": {"command": "ls", "working_dir": "~"}, "cwd": home})
	"workspace.cd_outside" in rules(doc)
}

test_workspace_cd_outside_not_for_subdirs_and_tmp if {
	doc := exec_call("cd src && cd /tmp/x", [cmd(["cd", "src"]), cmd(["cd", "/tmp/x"])], [
		wpath("src", "cwd", 0, "cd"),
		cpath("/tmp/x", "/tmp/x", "tmp", "cwd", 1, "cd"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- workspace.read_outside ----

test_workspace_read_outside_ls_root if {
	doc := exec_call("ls /", [cmd(["ls", "/"])], [cpath("/", "/", "root", "read", 0, "ls")])
	"workspace.read_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_read_outside_home_file if {
	doc := exec_call("cat ~/notes.txt", [cmd(["cat", "/home/user/notes.txt"])], [cpath("~/notes.txt", "/home/user/notes.txt", "home", "read", 0, "cat")])
	"workspace.read_outside" in rules(doc)
}

test_workspace_read_outside_glob_prefix if {
	# cat /var/log/*.log: the literal prefix /var/log is outside every root
	p := object.union(cpath("/var/log/*.log", "/var/log", "outside", "read", 0, "cat"), {"glob": true, "exists": true})
	doc := exec_call("cat /var/log/*.log", [cmd(["cat", "/var/log/*.log"])], [p])
	"workspace.read_outside" in rules(doc)
}

test_workspace_read_outside_exec_outside if {
	doc := exec_call("/home/user/bin/tool", [cmd(["/home/user/bin/tool"])], [cpath("/home/user/bin/tool", "/home/user/bin/tool", "home", "exec", 0, "tool")])
	"workspace.read_outside" in rules(doc)
}

test_workspace_read_outside_read_file_of_tmp if {
	# file tools run in toolgate itself: the host's /tmp is not the sandbox's
	doc := file_call("read_file", {"path": "/tmp/x"}, [path("/tmp/x", "tmp", "read")])
	"workspace.read_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_read_file_of_system_directories if {
	doc := file_call("read_file", {"path": "../../etc/passwd"}, [path("/etc/passwd", "system", "read")])
	"workspace.read_outside" in rules(doc)
}

test_workspace_read_outside_not_for_read_roots if {
	doc := exec_call("cat /etc/os-release /proc/cpuinfo; ls /tmp /usr/include; head -c 16 /dev/urandom", [
		cmd(["cat", "/etc/os-release", "/proc/cpuinfo"]),
		cmd(["ls", "/tmp", "/usr/include"]),
		cmd(["head", "-c", "16", "/dev/urandom"]),
	], [
		cpath("/etc/os-release", "/usr/lib/os-release", "system", "read", 0, "cat"),
		cpath("/proc/cpuinfo", "/proc/cpuinfo", "system", "read", 0, "cat"),
		cpath("/tmp", "/tmp", "tmp_root", "read", 1, "ls"),
		cpath("/usr/include", "/usr/include", "system", "read", 1, "ls"),
		cpath("/dev/urandom", "/dev/urandom", "dev_safe", "read", 2, "head"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_workspace_read_outside_not_for_symlink_into_read_root if {
	# link_etc -> /etc: link_etc/os-release is a read under a read root
	doc := exec_call("cat link_etc/os-release", [cmd(["cat", "link_etc/os-release"])], [cpath("link_etc/os-release", "/usr/lib/os-release", "system", "read", 0, "cat")])
	verdict(doc) == "allow"
}

test_workspace_read_outside_not_for_workspace_glob_with_dynamic_part if {
	# cat $X/foo: the unknown part stays inside the workspace
	p := object.union(cpath("$X/foo", concat("/", [ws, "*/foo"]), "workspace", "read", 0, "cat"), {"glob": true, "dynamic": true, "exists": false})
	doc := with_facts(exec_call("cat $X/foo", [object.union(cmd(["cat", "$X/foo"]), {"dynamic": true})], [p]), {"dynamic": [{"kind": "param", "text": "$X/foo", "cmd": 0}]})
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_workspace_read_outside_leaves_proc_and_secrets_to_their_rules if {
	doc := exec_call("cat /proc/1/status ~/.aws/credentials", [cmd(["cat", "/proc/1/status", "/home/user/.aws/credentials"])], [
		cpath("/proc/1/status", "/proc/1/status", "proc_private", "read", 0, "cat"),
		secret(cpath("~/.aws/credentials", "/home/user/.aws/credentials", "home", "read", 0, "cat"), "~/.aws"),
	])
	r := rules(doc)
	not "workspace.read_outside" in r
	"secrets.process" in r
	"secrets.access" in r
}

test_workspace_read_outside_names_the_file_tool if {
	doc := file_call("read_file", {"path": "/tmp/x"}, [path("/tmp/x", "tmp", "read")])
	some m in messages(doc, "workspace.read_outside")
	startswith(m, "read_file reads /tmp/x")
}

# ---- workspace.unknown_path ----

test_workspace_unknown_path if {
	# cd - && rm x: after cd - the cwd is unknown, so x is too
	p := object.union(cpath("x", "", "unknown", "delete", 1, "rm"), {"abs": "x", "exists": false})
	doc := with_facts(exec_call("cd - && rm x", [cmd(["cd", "-"]), object.union(cmd(["rm", "x"]), {"cwd": ""})], [p]), {"dynamic": [{"kind": "cwd", "text": "cd -", "cmd": 0}]})
	"workspace.unknown_path" in rules(doc)
	not "workspace.delete_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_unknown_path_applies_without_restriction if {
	p := object.union(cpath("x", "", "unknown", "write", 0, "touch"), {"exists": false})
	doc := exec_call("touch x", [object.union(cmd(["touch", "x"]), {"cwd": ""})], [p])
	r := rules(doc) with data.toolgate.config.restrict_to_workspace as false
	"workspace.unknown_path" in r
}

test_workspace_unknown_path_not_for_known_paths if {
	doc := exec_call("rm build/x", [cmd(["rm", "build/x"])], [wpath("build/x", "delete", 0, "rm")])
	not "workspace.unknown_path" in rules(doc)
	verdict(doc) == "allow"
}

# ---- workspace.source_outside ----

test_workspace_source_outside if {
	doc := exec_call(". /etc/profile", [cmd([".", "/etc/profile"])], [cpath("/etc/profile", "/etc/profile", "system", "exec", 0, ".")])
	"workspace.source_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_workspace_source_outside_from_tmp if {
	doc := exec_call("source /tmp/x.sh", [cmd(["source", "/tmp/x.sh"])], [cpath("/tmp/x.sh", "/tmp/x.sh", "tmp", "exec", 0, "source")])
	"workspace.source_outside" in rules(doc)
}

test_workspace_source_outside_not_for_workspace_scripts if {
	doc := exec_call("source .venv/bin/activate && . ./env.sh", [cmd(["source", ".venv/bin/activate"]), cmd([".", "./env.sh"])], [
		wpath(".venv/bin/activate", "exec", 0, "source"),
		wpath("env.sh", "exec", 1, "."),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_workspace_source_outside_not_for_running_system_programs if {
	# executing /usr/bin/env is not sourcing
	doc := exec_call("/usr/bin/env", [cmd(["/usr/bin/env"])], [cpath("/usr/bin/env", "/usr/bin/env", "system", "exec", 0, "env")])
	rules(doc) == set()
}

# ---- a tree too large to check for links (session 29) ----

test_walk_budget_says_why if {
	below := object.union(path(concat("/", [ws, "*"]), "unknown", "read"), {"raw": concat("/", [ws, "*"]), "command": "grep", "cmd": 0, "dynamic": true, "glob": true})
	doc := with_facts(exec_call("grep -R foo .", [cmd(["grep", "-R", "foo", "."])], [below]), {"dynamic": [{"kind": "walk_budget", "text": ws, "cmd": 0}]})
	some m in messages(doc, "workspace.walk_budget")
	contains(m, "grep follows (or moves or copies) the links below")
	contains(m, "grep -r rather than -R")
	# the path below is that directory's, not one known only at run time
	not "workspace.unknown_path" in rules(doc)
}
