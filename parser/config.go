package parser

// Config carries the named lists the analyser needs. The gate fills it from
// data.toolgate.config, so the JSON names are the ones security teams write in
// their data files; a list left out keeps its default.
type Config struct {
	// Shells are parsed again when given a literal script (-c, stdin).
	Shells []string `json:"shells"`
	// Interpreters run code from stdin or -c/-e; their inline code is not
	// parsed, but a non-literal script piped into them is unanalysable.
	Interpreters []string `json:"interpreters"`
	// Wrappers run another command; it is unwrapped and analysed.
	Wrappers []string `json:"wrappers"`
	// ReadRoots are system directories readable by exec ("/lib*" matches
	// /lib, /lib64, /libx32).
	ReadRoots []string `json:"read_roots"`
	// SensitivePaths are secrets: "~/" entries are under the home directory,
	// others absolute; "*" matches within one path component.
	SensitivePaths []string `json:"sensitive_paths"`
	// SensitiveNames are base-name patterns of secrets outside the workspace.
	SensitiveNames []string `json:"sensitive_names"`
	// ExecSinkVars hold a command line that a program runs later (PAGER,
	// GIT_SSH_COMMAND, …): their value is analysed as a nested script.
	ExecSinkVars []string `json:"exec_sink_vars"`
	// FileSinkVars name a file a program reads or runs (BASH_ENV, …).
	FileSinkVars []string `json:"file_sink_vars"`
	// CommandGroups name sets of commands the policy asks about ("escalators",
	// "disk", …). Entries may be glob patterns ("mkfs.*"). Shells,
	// interpreters, downloaders and decoders are groups too, and the names
	// of PackageManagers form the group "package_managers".
	CommandGroups map[string][]string `json:"command_groups"`
	Downloaders   []string            `json:"downloaders"`
	Decoders      []string            `json:"decoders"`
	// PackageManagers maps a package manager to its installing verbs.
	PackageManagers map[string][]string `json:"package_managers"`
	// Protected are toolgate's own files (set by the gate, not by data).
	Protected []Protected `json:"-"`
}

// DefaultConfig returns the lists of the design's default policy.
func DefaultConfig() Config {
	return Config{
		Shells:       []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "rbash", "yash", "posh", "csh", "tcsh", "busybox", "hush", "msh", "lash"},
		Interpreters: []string{"python", "python2", "python3", "python3.6", "python3.7", "python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13", "python3.14", "python3.15", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "tclsh", "wish", "awk", "gawk", "mawk", "nawk", "Rscript", "osascript", "pwsh", "powershell", "irb", "jshell", "groovy", "scala", "julia", "expect", "tclsh8.6", "m4", "dc", "ed", "red", "R", "guile", "racket", "sbcl", "clisp", "ecl", "elixir", "iex", "erl", "escript", "ocaml", "swipl", "gst", "gforth", "bb", "clojure", "clj", "kotlin", "kotlinc", "ghci", "runghc", "runhaskell", "crystal", "nim", "dart", "zx", "tsx", "ts-node"},
		Wrappers:     []string{"sudo", "doas", "env", "nice", "nohup", "timeout", "time", "stdbuf", "ionice", "command", "exec", "builtin", "xargs", "chroot", "setsid", "flock", "watch", "strace", "ltrace", "pkexec", "run0", "taskset", "chrt", "unbuffer", "torsocks", "proxychains", "proxychains4", "faketime", "nsenter", "unshare", "parallel", "systemd-run", "script", "su", "runuser", "sg", "firejail", "catchsegv", "cgexec", "numactl", "caffeinate", "busybox", "fakeroot", "setpriv", "prlimit", "toybox", "ssh-agent", "dbus-run-session", "dbus-launch", "xvfb-run", "rlwrap", "valgrind", "cpulimit", "entr", "sem", "eatmydata", "schedtool", "chpst", "softlimit", "systemd-inhibit", "nocache", "trickle", "bwrap", "sandbox-exec", "setarch", "linux32", "linux64", "i386", "x86_64", "logsave", "systemd-cat", "chronic", "ifne", "daemonize", "nq", "tsp", "timelimit", "sshpass", "torify", "tsocks", "proot", "fakechroot", "envdir", "setuidgid", "with-lock-ex", "retry", "cttyhack", "dtach", "abduco", "rr"},
		ReadRoots:    []string{"/usr", "/bin", "/sbin", "/lib*", "/etc", "/opt", "/proc"},
		SensitivePaths: []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.kube", "~/.docker/config.json", "~/.netrc", "~/.git-credentials", "~/.config/gh", "~/.config/gcloud", "~/.azure", "~/.npmrc", "~/.pypirc", "~/.password-store", "~/.vault-token", "~/.terraform.d/credentials.tfrc.json", "~/.local/share/keyrings", "~/.bash_history", "~/.zsh_history", "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_*_key", "/etc/ssl/private", "/root", "/proc/*/environ", "/proc/*/mem", "/var/run/docker.sock", "/run/docker.sock", "/etc/shadow*", "/etc/gshadow*", "/etc/kubernetes", "/etc/wireguard", "/etc/krb5.keytab", "/etc/mysql/debian.cnf", "/etc/security/opasswd", "/etc/ipsec.secrets", "/etc/NetworkManager/system-connections", "/proc/*/task/*/environ", "/proc/*/task/*/mem", "~/.config/rclone", "~/.config/hub", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials", "~/.m2/settings-security.xml", "/etc/rancher/k3s/k3s.yaml", "/etc/docker/key.json", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets", "/etc/samba/smbpasswd", "/etc/apache2/.htpasswd", "/etc/nginx/.htpasswd", "/etc/libvirt/secrets", "/etc/openvpn", "/etc/letsencrypt",
			"/etc/pki/*/private", "/etc/apt/auth.conf", "/etc/apt/auth.conf.d", "/etc/postfix/sasl_passwd*", "/etc/wpa_supplicant", "/etc/netplan", "/etc/gitlab", "/etc/gitlab-runner/config.toml", "/etc/ceph/*.keyring", "/etc/ldap.secret", "/etc/pam_ldap.secret", "/etc/containers/auth.json", "/etc/davfs2/secrets", "/etc/rsyncd.secrets", "/etc/krb5kdc", "/etc/pgbouncer/userlist.txt", "/etc/exim4/passwd.client", "/etc/fetchmailrc", "/etc/smbcredentials", "/etc/cifs-credentials"},
		SensitiveNames: []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks", ".netrc", ".git-credentials", "credentials"},
		ExecSinkVars: []string{"PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "FCEDIT", "SUDO_EDITOR",
			"GIT_SSH_COMMAND", "GIT_SSH", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
			"PROMPT_COMMAND", "BROWSER", "LESSOPEN", "LESSCLOSE", "RSYNC_RSH", "CVS_RSH", "DIFF_TOOL",
			"CC", "CXX", "CPP", "LD", "AR", "FC", "RANLIB", "PKG_CONFIG", "MAKE", "SHELL", "MANPAGER", "MANOPT", "GIT_SEQUENCE_EDITOR", "TERMINAL", "VIEWER"},
		FileSinkVars: []string{"BASH_ENV", "ENV", "ZDOTDIR", "PYTHONSTARTUP", "PYTHONPATH", "PERL5LIB", "RUBYLIB", "NODE_PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_TEMPLATE_DIR", "INPUTRC", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"},
	}
}

// merged returns c with every empty list replaced by its default.
func (c Config) merged() Config {
	d := DefaultConfig()
	pick := func(v, def []string) []string {
		if v == nil {
			return def
		}
		return v
	}
	return Config{
		Shells:          pick(c.Shells, d.Shells),
		Interpreters:    pick(c.Interpreters, d.Interpreters),
		Wrappers:        pick(c.Wrappers, d.Wrappers),
		ReadRoots:       pick(c.ReadRoots, d.ReadRoots),
		SensitivePaths:  pick(c.SensitivePaths, d.SensitivePaths),
		SensitiveNames:  pick(c.SensitiveNames, d.SensitiveNames),
		ExecSinkVars:    pick(c.ExecSinkVars, d.ExecSinkVars),
		FileSinkVars:    pick(c.FileSinkVars, d.FileSinkVars),
		CommandGroups:   c.CommandGroups,
		Downloaders:     c.Downloaders,
		Decoders:        c.Decoders,
		PackageManagers: c.PackageManagers,
		Protected:       c.Protected,
	}
}

// groups returns every command group, the named lists included.
func (c Config) groups() map[string][]string {
	g := make(map[string][]string, len(c.CommandGroups)+5)
	for k, v := range c.CommandGroups {
		g[k] = v
	}
	g["shells"], g["interpreters"], g["downloaders"], g["decoders"] = c.Shells, c.Interpreters, c.Downloaders, c.Decoders
	pm := make([]string, 0, len(c.PackageManagers))
	for k := range c.PackageManagers {
		pm = append(pm, k)
	}
	g["package_managers"] = pm
	return g
}
