# Ask: actions that are often legitimate but reach other hosts or change the
# project's history in ways a person should approve.
package toolgate

ask contains {"rule": "ask.git_remote", "message": sprintf("git %s talks to a remote repository; a person must approve network access", [subcommand(c)])} if {
	input.present.names.git
	some c in commands
	c.name == "git"
	subcommand(c) in {"push", "pull", "fetch", "clone", "ls-remote", "request-pull", "send-email", "svn"}
}

ask contains {"rule": "ask.git_remote", "message": "git archive --remote talks to a remote repository; a person must approve network access"} if {
	input.present.names.git
	some c in commands
	c.name == "git"
	subcommand(c) == "archive"
	long_flag(c, "--remote")
}

ask contains {"rule": "ask.git_remote", "message": sprintf("git %s %s talks to a remote repository; a person must approve network access", [subcommand(c), sub2])} if {
	input.present.names.git
	some c in commands
	c.name == "git"
	subcommand(c) in {"remote", "submodule"}
	some sub2 in args(c)
	sub2 in {"update", "add", "set-url", "sync", "prune", "show"}
}

network_clients := {
	"ssh", "sftp", "telnet", "ftp", "tftp", "rsh", "rlogin", "mosh", "nc", "ncat", "netcat", "socat", "irc", "mail",
	"sendmail", "mutt", "smbclient", "rclone", "s3cmd", "aws", "gcloud", "az", "gsutil", "kubectl", "helm", "gh", "glab",
	"hub", "ping", "ping6", "traceroute", "tracepath", "mtr", "dig", "nslookup", "host", "whois", "nmap", "twine",
}

network_client(c) if in_list(c.name, "downloaders")

network_client(c) if c.name in network_clients

network_client(c) if {
	c.name in {"scp", "rsync"}
	some a in args(c)
	not startswith(a, "-")
	regex.match(`^([A-Za-z0-9._-]+@)?[A-Za-z0-9._-]+:|^rsync://`, a)
}

ask contains {"rule": "ask.network", "message": sprintf("%s reaches another host; a person must approve network access", [c.name])} if {
	some c in commands
	network_client(c)
}

package_managers := object.get(cfg, "package_managers", {})

ask contains {"rule": "ask.package_install", "message": sprintf("%s %s installs packages from the network; a person must approve installs", [c.name, sub])} if {
	some c in commands
	subs := package_managers[c.name]
	some sub in subs
	installs(c, sub)
}

installs(c, sub) if sub == subcommand(c)

# entries written as options (nix-env -i, --install) match the command's flags
installs(c, sub) if {
	startswith(sub, "--")
	long_flag(c, sub)
}

installs(c, sub) if {
	startswith(sub, "-")
	not startswith(sub, "--")
	short_flag(c, substring(sub, 1, -1))
}

ask contains {"rule": "ask.package_install", "message": sprintf("%s -m pip install installs packages from the network; a person must approve installs", [c.name])} if {
	some c in commands
	code_runner(c.name)
	a := args(c)
	some i, x in a
	x == "-m"
	a[i + 1] in {"pip", "pip3", "ensurepip"}
	"install" in a
}

ask contains {"rule": "ask.package_install", "message": sprintf("%s runs a package fetched from the registry; a person must approve installs", [c.name])} if {
	some c in commands
	c.name in {"npx", "pnpx", "bunx", "uvx"}
}

ask contains {"rule": "ask.git_destructive", "message": sprintf("deleting %s removes the repository's history; a person must approve", [p.raw])} if {
	input.present.access.delete
	some p in paths
	p.access == "delete"
	p.real == concat("/", [input.workspace, ".git"])
}

ask contains {"rule": "ask.git_destructive", "message": "git clean -x also deletes ignored files (builds, local config, .env); a person must approve"} if {
	input.present.names.git
	some c in commands
	c.name == "git"
	subcommand(c) == "clean"
	git_clean_ignored(c)
}

git_clean_ignored(c) if short_flag(c, "x")

git_clean_ignored(c) if short_flag(c, "X")
