# Secrets: credentials, keys and other processes' memory are never touched,
# however the path is spelled (symlinks, globs, variables are resolved first).
package toolgate

deny contains {"rule": "secrets.access", "message": secret_message(p)} if {
	input.present.sensitive
	some p in paths
	p.sensitive
}

# A directory read whole (grep -r, tar c, cp -r, the search tool: p.tree)
# is sensitive when a secret lies below it.
secret_message(p) := sprintf("%s reads every file below %s, and secrets lie there (%s); name a narrower directory or exclude them (grep --exclude-dir, rg -g '!DIR') — never read or copy credentials", [who(p), p.raw, object.get(p, "sensitive_match", "sensitive path")]) if {
	p.tree
} else := sprintf("%s touches %s, which holds secrets (%s); never read or copy credentials — ask the user to provide what you need", [who(p), p.raw, object.get(p, "sensitive_match", "sensitive path")])

deny contains {"rule": "secrets.process", "message": sprintf("%s reads %s, another process's private state; only /proc/self status files are readable", [who(p), p.raw])} if {
	"proc_private" in input.present.zones
	some p in paths
	p.zone == "proc_private"
	not p.sensitive
}

# Credential helpers print stored secrets on request.
deny contains {"rule": "secrets.credentials", "message": sprintf("%s prints stored credentials; never read credentials — ask the user to provide what you need", [concat(" ", array.slice(c.argv, 0, 3))])} if {
	"git" in input.present.names
	some c in commands
	c.name == "git"
	startswith(subcommand(c), "credential") # credential, credential-store, -manager, -libsecret, -osxkeychain …
}

deny contains {"rule": "secrets.credentials", "message": sprintf("%s prints stored credentials; never read credentials — ask the user to provide what you need", [c.name])} if {
	"credential_helpers" in input.present.groups
	some c in commands
	in_group(c.name, "credential_helpers")
}

deny contains {"rule": "secrets.credentials", "message": sprintf("%s prints stored credentials; never read credentials — ask the user to provide what you need", [concat(" ", c.argv)])} if {
	"credential_dumpers" in input.present.groups
	some c in commands
	credential_dump(c)
}

# (each command named here is in the command group credential_dumpers,
# which gates the rule)
# gpg takes any unambiguous prefix of a long option (--export-secret-k)
credential_dump(c) if {
	c.name in {"gpg", "gpg2"}
	some f, _ in c.flags
	startswith(f, "--export-secret")
}

# password managers and secret stores printing a secret
credential_dump(c) if {
	c.name == "op"
	secret_store_read(args(c), {"read", "inject"}, {"item": {"get"}, "document": {"get"}})
}

credential_dump(c) if {
	c.name == "bw"
	secret_store_read(args(c), {"get", "export", "unlock", "login"}, {})
}

credential_dump(c) if {
	c.name == "lpass"
	secret_store_read(args(c), {"show", "export"}, {})
}

credential_dump(c) if {
	c.name == "vault"
	secret_store_read(args(c), {"read", "print", "login"}, {"kv": {"get", "export"}, "token": {"create", "lookup"}})
}

credential_dump(c) if {
	c.name == "systemd-creds"
	secret_store_read(args(c), {"cat", "decrypt"}, {})
}

credential_dump(c) if {
	c.name == "keyring"
	secret_store_read(args(c), {"get"}, {})
}

credential_dump(c) if c.name in {"kwallet-query", "kwalletcli"}

credential_dump(c) if {
	c.name == "rbw"
	secret_store_read(args(c), {"get", "code"}, {})
}

credential_dump(c) if {
	c.name == "keepassxc-cli"
	secret_store_read(args(c), {"show", "export", "attachment-export"}, {})
}

credential_dump(c) if {
	c.name == "heroku"
	some a in args(c)
	a in {"auth:token", "authorizations:create"}
}

credential_dump(c) if {
	c.name in {"fly", "flyctl"}
	secret_store_read(args(c), {}, {"auth": {"token"}, "tokens": {"create"}})
}

credential_dump(c) if {
	c.name == "consul"
	secret_store_read(args(c), {}, {"kv": {"get", "export"}, "acl": {"token"}})
}

credential_dump(c) if {
	c.name == "etcdctl"
	secret_store_read(args(c), {"get"}, {})
}

# cloud command lines printing an access token
credential_dump(c) if {
	c.name == "gcloud"
	some a in args(c)
	a in {"print-access-token", "print-identity-token", "config-helper"}
}

credential_dump(c) if {
	c.name == "az"
	some a in args(c)
	a == "get-access-token"
}

# secret_store_read: the first plain argument is one of subs, or it and the
# next are a pair in pairs
secret_store_read(xs, subs, _) if {
	plain := [a | some a in xs; not startswith(a, "-")]
	plain[0] in subs
}

secret_store_read(xs, _, pairs) if {
	plain := [a | some a in xs; not startswith(a, "-")]
	plain[1] in pairs[plain[0]]
}

credential_dump(c) if {
	c.name == "gh"
	args(c)[0] == "auth"
	args(c)[1] in {"token", "status"}
	some a in args(c)
	a in {"token", "--show-token", "-t"}
}

credential_dump(c) if {
	c.name == "kubectl"
	"config" in args(c)
	"view" in args(c)
	some f in ["--raw", "--flatten"] # --flatten embeds the keys' data
	long_flag(c, f)
}

credential_dump(c) if {
	c.name == "aws"
	some i, a in args(c) # after global options: aws --profile p configure get
	a == "configure"
	args(c)[i + 1] in {"get", "export-credentials"}
}

credential_dump(c) if {
	c.name == "gh"
	some i, a in args(c)
	a == "config"
	args(c)[i + 1] == "get"
	some t in args(c)
	contains(t, "token")
}

credential_dump(c) if {
	c.name == "gh"
	some i, a in args(c)
	a == "auth"
	args(c)[i + 1] == "git-credential"
}

credential_dump(c) if {
	c.name in {"npm", "pnpm", "yarn"}
	"config" in args(c)
	some a in args(c)
	regex.match(`(?i)(auth|token|password)`, a)
}

credential_dump(c) if startswith(c.name, "docker-credential-")

credential_dump(c) if {
	c.name == "getent"
	some a in args(c)
	a in {"shadow", "gshadow"}
}

# ps e / ps eww shows every process's environment (BSD-style "e" option)
credential_dump(c) if {
	c.name == "ps"
	some i, a in args(c) # BSD-style options: "ps eww", "ps axe", also after UNIX ones ("ps -ef e")
	not startswith(a, "-")
	not ps_value(args(c), i)
	regex.match(`^[a-zA-Z]*e[a-zA-Z]*$`, a)
}

# ps_value: args[i] is the value of a UNIX option (ps -C sleep, -u user)
ps_value(a, i) if {
	i > 0
	regex.match(`^-[A-Za-z]*[CGgOopqstUu]$`, a[i - 1])
}

ps_value(a, i) if {
	i > 0
	a[i - 1] in {"--sort", "--pid", "--ppid", "--user", "--group", "--tty", "--format", "--cols", "--rows", "--sid", "-N"}
}
