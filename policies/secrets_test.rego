# Tests for secrets.rego. Helpers live in toolgate_test.rego.
package toolgate_test

# ---- secrets.access ----

test_secrets_access_ssh_key if {
	p := secret(cpath("~/.ssh/id_rsa", "/home/user/.ssh/id_rsa", "home", "read", 0, "cat"), "~/.ssh")
	doc := exec_call("cat ~/.ssh/id_rsa", [cmd(["cat", "/home/user/.ssh/id_rsa"])], [p])
	"secrets.access" in rules(doc)
	not "workspace.read_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_secrets_access_message_names_the_match if {
	p := secret(cpath("~/.aws/credentials", "/home/user/.aws/credentials", "home", "read", 0, "cp"), "~/.aws")
	doc := exec_call("cp ~/.aws/credentials .", [cmd(["cp", "/home/user/.aws/credentials", "."])], [p])
	some m in messages(doc, "secrets.access")
	contains(m, "(~/.aws)")
	startswith(m, "cp touches ~/.aws/credentials")
}

test_secrets_access_tree_read_names_the_directory if {
	# grep -r token . in a workspace that holds the home: ~/.ssh lies below "."
	p := object.union(secret(cpath(".", "/home/user", "workspace_root", "read", 0, "grep"), "~/.ssh"), {"tree": true})
	doc := exec_call("grep -r token .", [cmd(["grep", "-r", "token", "."])], [p])
	verdict(doc) == "deny"
	some m in messages(doc, "secrets.access")
	startswith(m, "grep reads every file below .,")
	contains(m, "(~/.ssh)")
	contains(m, "narrower directory")
}

test_secrets_access_tree_without_secrets_allowed if {
	p := object.union(cpath("src", "/ws/src", "workspace", "read", 0, "grep"), {"tree": true})
	doc := exec_call("grep -r token src", [cmd(["grep", "-r", "token", "src"])], [p])
	not "secrets.access" in rules(doc)
	verdict(doc) == "allow"
}

test_secrets_access_through_a_workspace_symlink if {
	# link_etc -> /etc: link_etc/shadow resolves to /etc/shadow
	p := secret(cpath("link_etc/shadow", "/etc/shadow", "system", "read", 0, "cat"), "/etc/shadow")
	doc := exec_call("cat link_etc/shadow", [cmd(["cat", "link_etc/shadow"])], [p])
	"secrets.access" in rules(doc)
	verdict(doc) == "deny"
}

test_secrets_access_dynamic_proc_environ if {
	# cat /proc/$$/environ: whatever $$ is, the path is an environ file
	p := object.union(
		secret(cpath("/proc/$$/environ", "/proc/*/environ", "proc_private", "read", 0, "cat"), "/proc/*/environ"),
		{"glob": true, "dynamic": true, "exists": false},
	)
	doc := with_facts(exec_call("cat /proc/$$/environ", [object.union(cmd(["cat", "/proc/$$/environ"]), {"dynamic": true})], [p]), {"dynamic": [{"kind": "param", "text": "/proc/$$/environ", "cmd": 0}]})
	"secrets.access" in rules(doc)
	not "secrets.process" in rules(doc)
	verdict(doc) == "deny"
}

test_secrets_access_private_key_by_name_outside if {
	p := secret(cpath("/opt/certs/server.pem", "/opt/certs/server.pem", "system", "read", 0, "openssl"), "*.pem")
	doc := exec_call("openssl x509 -in /opt/certs/server.pem", [cmd(["openssl", "x509", "-in", "/opt/certs/server.pem"])], [p])
	"secrets.access" in rules(doc)
}

test_secrets_access_writes_and_redirects_too if {
	p := secret(redirect_path("/home/user/.ssh/authorized_keys", "/home/user/.ssh/authorized_keys", "home", "write"), "~/.ssh")
	doc := exec_call("echo ssh-ed25519 AAAA >> ~/.ssh/authorized_keys", [cmd(["echo", "ssh-ed25519 AAAA"])], [p])
	"secrets.access" in rules(doc)
	some m in messages(doc, "secrets.access")
	startswith(m, "a redirection touches")
}

test_secrets_access_with_read_file if {
	p := secret(path("/home/user/.netrc", "home", "read"), "~/.netrc")
	doc := file_call("read_file", {"path": "/home/user/.netrc"}, [p])
	"secrets.access" in rules(doc)
	verdict(doc) == "deny"
}

test_secrets_access_applies_without_restriction if {
	p := secret(cpath("/etc/shadow", "/etc/shadow", "system", "read", 0, "cat"), "/etc/shadow")
	doc := exec_call("cat /etc/shadow", [cmd(["cat", "/etc/shadow"])], [p])
	d := decision(doc) with data.toolgate.config.restrict_to_workspace as false
	d.decision == "deny"
}

test_secrets_access_not_for_workspace_env if {
	# reading the workspace's own .env is allowed
	doc := exec_call("cat .env", [cmd(["cat", ".env"])], [wpath(".env", "read", 0, "cat")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_secrets_access_not_for_symlink_to_a_plain_system_file if {
	doc := exec_call("cat link_etc/os-release", [cmd(["cat", "link_etc/os-release"])], [cpath("link_etc/os-release", "/usr/lib/os-release", "system", "read", 0, "cat")])
	not "secrets.access" in rules(doc)
	verdict(doc) == "allow"
}

test_secrets_access_not_for_public_system_files if {
	doc := exec_call("cat /etc/passwd /etc/ssh/ssh_config", [cmd(["cat", "/etc/passwd", "/etc/ssh/ssh_config"])], [
		cpath("/etc/passwd", "/etc/passwd", "system", "read", 0, "cat"),
		cpath("/etc/ssh/ssh_config", "/etc/ssh/ssh_config", "system", "read", 0, "cat"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- secrets.process ----

test_secrets_process_other_pid if {
	doc := exec_call("cat /proc/1/status", [cmd(["cat", "/proc/1/status"])], [cpath("/proc/1/status", "/proc/1/status", "proc_private", "read", 0, "cat")])
	"secrets.process" in rules(doc)
	not "workspace.read_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_secrets_process_self_fd_and_kcore if {
	every real in ["/proc/self/fd/3", "/proc/self/cwd", "/proc/kcore", "/proc/self/map_files"] {
		doc := exec_call(concat(" ", ["ls", real]), [cmd(["ls", real])], [cpath(real, real, "proc_private", "read", 0, "ls")])
		"secrets.process" in rules(doc)
	}
}

test_secrets_process_not_for_own_status if {
	doc := exec_call("cat /proc/self/status /proc/meminfo", [cmd(["cat", "/proc/self/status", "/proc/meminfo"])], [
		cpath("/proc/self/status", "/proc/self/status", "system", "read", 0, "cat"),
		cpath("/proc/meminfo", "/proc/meminfo", "system", "read", 0, "cat"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_secrets_process_not_when_already_a_secret if {
	# /proc/1/environ is sensitive: secrets.access says it once
	p := secret(cpath("/proc/1/environ", "/proc/1/environ", "proc_private", "read", 0, "cat"), "/proc/*/environ")
	doc := exec_call("cat /proc/1/environ", [cmd(["cat", "/proc/1/environ"])], [p])
	rules(doc) == {"secrets.access"}
}

# ps e after UNIX options shows environments too; a value is not an option
# (red-team sweep, session 5)
test_secrets_credentials_ps_e_after_unix_options if {
	"secrets.credentials" in rules(exec_call("ps -ef e", [cmd(["ps", "-ef", "e"])], []))
	not "secrets.credentials" in rules(exec_call("ps -C sleep", [cmd(["ps", "-C", "sleep"])], []))
	not "secrets.credentials" in rules(exec_call("ps -u user -f", [cmd(["ps", "-u", "user", "-f"])], []))
	not "secrets.credentials" in rules(exec_call("ps -o pid,cmd -e", [cmd(["ps", "-o", "pid,cmd", "-e"])], []))
}

# ---- credential stores (red-team, session 7) ----

test_secrets_credentials_more_stores if {
	every argv in [
		["gpg", "--export-secret-key", "-a"], ["gpg", "--export-secret-k"], ["git", "credential-manager", "get"],
		["op", "read", "op://v/i/f"], ["op", "item", "get", "x"], ["bw", "get", "password", "x"], ["lpass", "show", "x"],
		["vault", "kv", "get", "secret/x"], ["vault", "print", "token"], ["systemd-creds", "cat", "x"], ["keyring", "get", "s", "u"],
		["kwallet-query", "-r", "x", "kdewallet"],
	] {
		"secrets.credentials" in rules(simple_call(argv))
	}
}

test_secrets_credentials_store_listings_allowed if {
	every argv in [["op", "item", "list"], ["vault", "status"], ["gpg", "--list-keys"], ["bw", "list", "folders"]] {
		not "secrets.credentials" in rules(simple_call(argv))
	}
}

# ---- more stores and command lines printing credentials (red-team, session 10) ----

test_secrets_credentials_more_printers if {
	every argv in [
		["rbw", "get", "github"],
		["keepassxc-cli", "show", "-s", "db.kdbx", "github"],
		["kwalletcli", "-f", "x", "-e", "y"],
		["heroku", "auth:token"],
		["fly", "auth", "token"],
		["consul", "kv", "get", "-recurse"],
		["etcdctl", "get", "--prefix", ""],
		["gcloud", "auth", "print-access-token"],
		["az", "account", "get-access-token"],
		["kubectl", "config", "view", "--flatten"],
		["aws", "--profile", "default", "configure", "get", "aws_secret_access_key"],
		["gh", "config", "get", "-h", "github.com", "oauth_token"],
		["gh", "auth", "git-credential", "get"],
	] {
		"secrets.credentials" in rules(simple_call(argv))
	}
	every argv in [["gcloud", "config", "list"], ["kubectl", "config", "view"], ["consul", "members"], ["fly", "deploy"], ["gh", "config", "get", "editor"]] {
		not "secrets.credentials" in rules(simple_call(argv))
	}
}
