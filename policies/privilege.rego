# Privilege: becoming another user, changing the kernel, the mounts, the
# firewall, or handing out capabilities.
package toolgate

deny contains {"rule": "priv.escalate", "message": sprintf("%s runs commands as another user; toolgate runs commands unprivileged — drop %s and work inside the workspace", [n, n])} if {
	"escalators" in input.present.groups
	some c in commands
	some n in names_of(c)
	in_group(n, "escalators")
}

deny contains {"rule": "priv.setuid", "message": "setting setuid/setgid bits is a privilege escalation; use ordinary modes such as 644 or 755"} if {
	"chmod" in input.present.names
	some c in commands
	c.name == "chmod"
	some a in args(c)
	some clause in split(a, ",")
	setuid_mode(clause)
}

deny contains {"rule": "priv.setuid", "message": "installing a file with setuid/setgid bits is a privilege escalation; use ordinary modes such as 644 or 755"} if {
	"install" in input.present.names
	some c in commands
	c.name == "install"
	some m in install_modes(c)
	some clause in split(m, ",")
	setuid_mode(clause)
}

# The mode as install's getopt_long reads it: -m MODE, -mMODE, at the end
# of a cluster of its flags (-Dm4755, -vm 4755), and --mode given as any
# prefix (--mo=4755, --m 4755: no other long option of install starts
# with m).
install_modes(c) := {m |
	a := args(c)
	some i, x in a
	install_mode_word(x)
	m := a[i + 1]
} | {v |
	some x in args(c)
	parts := split(x, "=")
	count(parts) > 1
	install_mode_long(parts[0])
	v := concat("=", array.slice(parts, 1, count(parts)))
} | {m |
	# no mode holds the letter m, nor does a flag before it
	some x in args(c)
	regex.match(`^-[bcCdDpsvZ]*m[^m]+$`, x)
	m := split(x, "m")[1]
}

install_mode_word(x) if regex.match(`^-[bcCdDpsvZ]*m$`, x)

install_mode_word(x) if install_mode_long(x)

install_mode_long(k) if {
	count(k) >= 3
	startswith("--mode", k)
}

# chmod "$m" f, chmod "${x[@]}" f: the mode is known only when it runs
deny contains {"rule": "priv.setuid", "message": sprintf("chmod %s sets a mode known only when it runs, which may carry setuid/setgid bits; write the mode literally", [m])} if {
	"chmod" in input.present.names
	some c in commands
	c.name == "chmod"
	ops := [x | some x in args(c); not startswith(x, "-")]
	m := ops[0]
	regex.match("[$`]", m)
}

# rsync --chmod=u+s, --chmod=Fg+s,Du=rwx: rsync sets the bits on what it
# writes (with -p, -a or new files)
deny contains {"rule": "priv.setuid", "message": sprintf("rsync --chmod %s sets setuid/setgid bits on what it copies (or a mode known only when it runs); use ordinary modes such as u+rwx,go+rx", [v])} if {
	"rsync" in input.present.names
	some c in commands
	c.name == "rsync"
	some v in rsync_chmods(c)
	some clause in split(v, ",")
	rsync_setid(clause)
}

rsync_chmods(c) := {substring(x, 8, -1) | some x in args(c); startswith(x, "--chmod=")} | {a[i + 1] |
	a := args(c)
	some i, x in a
	x == "--chmod"
}

rsync_setid(clause) if setuid_mode(clause)

rsync_setid(clause) if {
	substring(clause, 0, 1) in {"D", "F"}
	setuid_mode(substring(clause, 1, -1))
}

rsync_setid(clause) if regex.match("[$`]", clause)

setuid_mode(a) if regex.match(`^[ugoa]*[+=][rwxXt]*s`, a)

setuid_mode(a) if regex.match(`^[=+]?[0-7]*[2-7][0-7]{3}$`, a)

deny contains {"rule": "priv.capabilities", "message": sprintf("%s changes file capabilities; this is never allowed from an agent", [c.name])} if {
	"capabilities" in input.present.groups
	some c in commands
	in_group(c.name, "capabilities")
}

deny contains {"rule": "priv.mount", "message": sprintf("%s changes mounts; work with the files already in the workspace", [c.name])} if {
	"mount" in input.present.groups
	some c in commands
	in_group(c.name, "mount")
}

deny contains {"rule": "priv.namespace", "message": sprintf("%s enters or creates namespaces or a new root; the sandbox already isolates commands", [n])} if {
	"namespaces" in input.present.groups
	some c in commands
	some n in names_of(c)
	in_group(n, "namespaces")
}

deny contains {"rule": "priv.kernel", "message": sprintf("%s loads, unloads or replaces kernel code; this is never allowed from an agent", [c.name])} if {
	"kernel" in input.present.groups
	some c in commands
	in_group(c.name, "kernel")
}

deny contains {"rule": "priv.sysctl", "message": "sysctl -w changes kernel parameters; read them with sysctl NAME instead"} if {
	"sysctl" in input.present.names
	some c in commands
	c.name == "sysctl"
	sysctl_write(c)
}

sysctl_write(c) if short_flag(c, "w")

sysctl_write(c) if short_flag(c, "p")

sysctl_write(c) if long_flag(c, "--write")

sysctl_write(c) if long_flag(c, "--load")

sysctl_write(c) if {
	some a in args(c)
	not startswith(a, "-")
	contains(a, "=")
}

deny contains {"rule": "priv.firewall", "message": sprintf("%s changes the firewall; this is never allowed from an agent", [c.name])} if {
	"firewall" in input.present.groups
	some c in commands
	in_group(c.name, "firewall")
}

deny contains {"rule": "priv.accounts", "message": sprintf("%s changes users, groups or passwords; this is never allowed from an agent", [c.name])} if {
	"accounts" in input.present.groups
	some c in commands
	in_group(c.name, "accounts")
}

deny contains {"rule": "priv.container", "message": sprintf("%s %s with host privileges or a bind of / escapes every sandbox; run the container unprivileged with workspace mounts only", [c.name, sub])} if {
	"containers" in input.present.groups
	some c in commands
	in_group(c.name, "containers")
	some sub in args(c)
	sub in {"run", "create", "exec"}
	container_privileged(c)
}

container_privileged(c) if long_flag(c, "--privileged")

container_privileged(c) if {
	some o in container_options(c)
	o in {"--pid=host", "--net=host", "--network=host", "--ipc=host", "--uts=host", "--userns=host", "--cgroupns=host", "--cap-add=all", "--cap-add=sys_admin", "--cap-add=cap_sys_admin", "--cap-add=sys_module", "--cap-add=sys_ptrace", "--cap-add=dac_read_search", "--security-opt=seccomp=unconfined", "--security-opt=apparmor=unconfined", "--security-opt=label=disable", "--security-opt=label:disable", "--device=/dev/mem", "--device=/dev/kmem"}
}

# container_options(c) normalizes "--opt value" and "--opt=value" to
# lower-case "--opt=value".
container_options(c) := {lower(o) | some o in args(c); startswith(o, "--"); contains(o, "=")} | {lower(concat("=", [a[i], a[i + 1]])) |
	a := args(c)
	some i, x in a
	startswith(x, "--")
	not contains(x, "=")
	i + 1 < count(a)
}

container_privileged(c) if {
	a := args(c)
	some i, x in a
	x in {"-v", "--volume", "--mount"}
	bind_of_host(a[i + 1])
}

container_privileged(c) if {
	some x in args(c)
	some p in ["-v", "--volume=", "--mount="]
	startswith(x, p)
	x != "-v"
	bind_of_host(trim_prefix(trim_prefix(trim_prefix(x, "-v"), "--volume="), "--mount="))
}

bind_of_host(spec) if startswith(spec, "/:")

bind_of_host(spec) if contains(spec, "docker.sock")

bind_of_host(spec) if regex.match(`(^|,)(source|src)=/(,|$)`, spec)

bind_of_host(spec) if startswith(spec, "/etc:")


deny contains {"rule": "priv.network_config", "message": sprintf("%s changes network interfaces or routes; network configuration is not changed from an agent", [concat(" ", array.slice(c.argv, 0, 3))])} if {
	"net_config" in input.present.groups
	some c in commands
	in_group(c.name, "net_config")
	net_change(c)
}

net_change(c) if {
	c.name == "ip"
	some a in args(c)
	a in {"add", "del", "delete", "change", "replace", "set", "flush", "up", "down"}
}

net_change(c) if {
	c.name in {"ifconfig", "route", "brctl", "tc", "ethtool", "iw"}
	count(args(c)) > 1
	not args(c) == ["-a"]
}

net_change(c) if {
	c.name == "nmcli"
	some a in args(c)
	a in {"add", "delete", "modify", "up", "down", "connect", "disconnect", "off"}
}

deny contains {"rule": "priv.windows", "message": sprintf("%s changes accounts, permissions, services or the registry's start-up entries; this is never done from an agent", [concat(" ", array.slice(c.argv, 0, 3))])} if {
	"windows_admin" in input.present.groups
	some c in commands
	windows_admin(c)
}

windows_admin(c) if {
	lower(c.name) in {"net", "net.exe"}
	some a in args(c)
	lower(a) in {"user", "localgroup", "group"}
	some b in args(c)
	lower(b) in {"/add", "/delete", "/active:yes"}
}

windows_admin(c) if lower(c.name) in {"takeown", "takeown.exe"}

windows_admin(c) if {
	lower(c.name) in {"icacls", "cacls", "icacls.exe"}
	some a in args(c)
	lower(a) in {"/grant", "/grant:r", "/setowner", "/reset", "/deny", "/e", "/g"}
}

windows_admin(c) if {
	lower(c.name) in {"schtasks", "schtasks.exe"}
	some a in args(c)
	lower(a) in {"/create", "/change", "/run"}
}

windows_admin(c) if {
	lower(c.name) in {"reg", "reg.exe"}
	some a in args(c)
	lower(a) in {"add", "delete", "import", "restore", "load"}
}

windows_admin(c) if {
	lower(c.name) in {"sc", "sc.exe"}
	some a in args(c)
	lower(a) in {"create", "config", "delete", "start", "stop"}
}

windows_admin(c) if {
	lower(c.name) in {"netsh", "netsh.exe"}
	some a in args(c)
	lower(a) in {"set", "add", "delete", "reset"}
}

deny contains {"rule": "priv.setuid", "message": "chmod --reference copies the mode of a file outside the workspace, setuid bits included; give the mode in numbers"} if {
	"chmod" in input.present.names
	some p in paths
	p.command == "chmod"
	p.access == "read"
	not p.zone in {"workspace", "workspace_root"}
}
