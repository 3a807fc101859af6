# Destruction: removing what cannot be restored, wiping disks, stopping the
# machine, exhausting it.
package toolgate

deny contains {"rule": "destroy.root", "message": sprintf("refusing to delete %s: it is the filesystem root or your home directory; delete only specific paths inside the workspace", [p.raw])} if {
	"delete" in input.present.access
	some p in paths
	p.access == "delete"
	root_like(p)
}

root_like(p) if p.zone == "root"

root_like(p) if p.real == input.home

deny contains {"rule": "destroy.workspace_root", "message": sprintf("refusing to delete the workspace root (%s); delete specific files or directories inside it instead", [p.raw])} if {
	"workspace_root" in input.present.zones
	some p in paths
	p.access == "delete"
	p.zone == "workspace_root"
}

deny contains {"rule": "destroy.disk", "message": sprintf("%s formats, repartitions or rewrites disks, firmware or boot entries; this is never allowed from an agent", [c.name])} if {
	"disk" in input.present.groups
	some c in commands
	in_group(c.name, "disk")
}

# a block or character device node made anywhere gives raw access to the
# device it names (mknod disk b 8 0 && dd of=disk); FIFOs (p) are fine
deny contains {"rule": "destroy.disk", "message": sprintf("%s makes a device node, raw access to a disk or device; this is never allowed from an agent", [concat(" ", c.argv)])} if {
	"mknod" in input.present.names
	some c in commands
	c.name == "mknod"
	some a in args(c)
	a in {"b", "c", "u"}
}

deny contains {"rule": "destroy.device_write", "message": sprintf("writing to the device %s destroys data; write to a file in the workspace instead", [p.raw])} if {
	"device" in input.present.zones
	some p in paths
	p.access in {"write", "delete"}
	p.zone == "device"
}

deny contains {"rule": "destroy.windows", "message": sprintf("%s is a destructive Windows command; use ordinary file commands on workspace paths", [c.name])} if {
	"windows" in input.present.groups
	some c in commands
	windows_destructive(c)
}

windows_destructive(c) if lower(c.name) in {"format", "format.com", "diskpart", "diskpart.exe", "cipher", "cipher.exe", "vssadmin", "bcdedit", "format-volume", "clear-disk", "initialize-disk", "stop-computer", "restart-computer"}

# del /f, del /F/S/Q, rmdir /s: the switches may run together
windows_destructive(c) if {
	lower(c.name) in {"del", "erase", "del.exe", "rmdir", "rd"}
	some a in args(c)
	regex.match(`^(/[A-Za-z:-]+)+$`, a)
	regex.match(`(?i)/[fsqa]`, a)
}

windows_destructive(c) if {
	lower(c.name) in {"remove-item", "rm.exe"}
	some a in args(c)
	lower(a) in {"-recurse", "-force", "-r"}
}

windows_destructive(c) if {
	lower(c.name) in {"wmic", "wbadmin"}
	some a in args(c)
	lower(a) == "delete"
}

deny contains {"rule": "destroy.power", "message": sprintf("%s would stop or restart the machine; this is never allowed from an agent", [c.name])} if {
	"power" in input.present.groups
	some c in commands
	power_off(c)
}

power_off(c) if {
	in_group(c.name, "power")
	not c.name in {"init", "telinit", "systemctl", "loginctl"}
}

power_off(c) if {
	c.name in {"init", "telinit"}
	some a in args(c)
	a in {"0", "6"}
}

power_off(c) if {
	c.name in {"systemctl", "loginctl"}
	some a in args(c)
	a in {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "rescue", "emergency", "soft-reboot"}
}

deny contains {"rule": "destroy.fork_bomb", "message": sprintf("function %s calls itself in the background or through a pipe (a fork bomb); write a bounded loop instead", [f.name])} if {
	input.present.forks
	some f in object.get(input, "functions", [])
	f.forks
}

deny contains {"rule": "destroy.kill_all", "message": "kill -1 signals every process you can reach; kill specific process ids instead"} if {
	"kill" in input.present.names
	some c in commands
	c.name == "kill"
	a := args(c)
	some i, x in a
	regex.match(`^-?0*1$|^0+$`, x) # every process (-1, -01), init, or the caller's whole group (0)
	i > 0 # "-1" first is a signal number
	not a[i - 1] in {"-s", "-n", "--signal"} # not a signal given by number
}

deny contains {"rule": "destroy.kill_all", "message": "kill 1 signals init, which takes the machine down; kill specific process ids instead"} if {
	"kill" in input.present.names
	some c in commands
	c.name == "kill"
	args(c) == ["1"]
}

deny contains {"rule": "destroy.kill_all", "message": sprintf("%s -u kills every process of a user; kill specific process ids instead", [c.name])} if {
	"killers" in input.present.groups
	some c in commands
	c.name in {"pkill", "killall"}
	killall_user(c)
}

killall_user(c) if short_flag(c, "u")

killall_user(c) if short_flag(c, "v") # pkill -v: every process not matching

killall_user(c) if long_flag(c, "--user")

killall_user(c) if short_flag(c, "U") # real user id

killall_user(c) if long_flag(c, "--uid")

killall_user(c) if long_flag(c, "--euid")

killall_user(c) if long_flag(c, "--inverse")

# A pattern that matches any process name (., .*, ^, an empty one) kills
# everything the user runs; so does pkill -P 1 (every child of init).
deny contains {"rule": "destroy.kill_all", "message": sprintf("%s %s matches every process; kill specific process ids instead", [c.name, pat])} if {
	"killers" in input.present.groups
	some c in commands
	c.name in {"pkill", "killall"}
	some pat in kill_patterns(c)
	matches_any_process(pat)
}

deny contains {"rule": "destroy.kill_all", "message": sprintf("%s -P 1 kills every child of init; kill specific process ids instead", [c.name])} if {
	"pkill" in input.present.names
	some c in commands
	c.name == "pkill"
	a := args(c)
	some i, x in a
	x == "-P"
	a[i + 1] in {"1", "0"}
}

deny contains {"rule": "destroy.kill_all", "message": sprintf("kill over pgrep %s signals every process; kill specific process ids instead", [pat])} if {
	"kill" in input.present.names
	"pgrep" in input.present.names
	some c in commands
	c.name == "pgrep"
	some pat in kill_patterns(c)
	matches_any_process(pat)
}

deny contains {"rule": "destroy.kill_all", "message": "kill fed by ps signals every process it lists; kill specific process ids instead"} if {
	"kill" in input.present.names
	"ps" in input.present.names
	some c in commands
	c.name == "kill"
	c.stdin_from == "ps"
}

deny contains {"rule": "destroy.kill_all", "message": "kill of what ps prints signals every process it lists; kill specific process ids instead"} if {
	"kill" in input.present.names
	"ps" in input.present.names
	some c in commands
	c.name == "kill"
	c.dynamic
	some p in commands
	p.name == "ps"
	p.context == "subst"
}

deny contains {"rule": "destroy.kill_all", "message": sprintf("loginctl %s ends every process of a user or session; kill specific process ids instead", [subcommand(c)])} if {
	"loginctl" in input.present.names
	some c in commands
	c.name == "loginctl"
	subcommand(c) in {"kill-user", "kill-session", "terminate-user", "terminate-session", "terminate-seat"}
}

# kill_patterns are the pattern operands of pkill/pgrep, and of killall
# when it takes regular expressions (-r).
kill_value_opts := {"-P", "-u", "-U", "-g", "-G", "-s", "-t", "--signal", "--parent", "--euid", "--uid", "--group", "--session", "--terminal", "--pgroup", "-o", "-y", "--older-than", "--younger-than"}

kill_patterns(c) := pats if {
	c.name in {"pkill", "pgrep"}
	pats := kill_operands(c)
}

kill_patterns(c) := pats if {
	c.name == "killall"
	killall_regex(c)
	pats := kill_operands(c)
}

kill_operands(c) := {x |
	a := args(c)
	some i, x in a
	not startswith(x, "-")
	not kill_value_after(a, i)
}

kill_value_after(a, i) if {
	i > 0
	a[i - 1] in kill_value_opts
}

killall_regex(c) if short_flag(c, "r")

killall_regex(c) if long_flag(c, "--regexp")

killall_regex(c) if long_flag(c, "--regex") # getopt takes the abbreviation

matches_any_process(pat) if {
	every name in ["init", "bash", "sshd", "systemd-journald", "python3", "Xorg_11"] {
		regex.match(pat, name)
	}
}

# with -f the pattern is matched against whole command lines
matches_any_process(pat) if {
	every line in ["/sbin/init splash", "/usr/sbin/sshd -D", "/usr/bin/python3 app.py", "/bin/bash"] {
		regex.match(pat, line)
	}
}

deny contains {"rule": "destroy.kill_all", "message": sprintf("%s kills processes by the hundred; kill specific process ids instead", [c.name])} if {
	"killall5" in input.present.names
	"killall5" in input.present.names
	some c in commands
	c.name == "killall5"
}

deny contains {"rule": "destroy.recursive_outside", "message": sprintf("%s -R outside the workspace (%s); change modes or owners only inside the workspace", [c.name, p.raw])} if {
	"perm_changers" in input.present.groups
	restrict
	some i, c in commands
	in_group(c.name, "perm_changers")
	recursive(c)
	some p in paths
	p.cmd == i
	not p.zone in writable_zones
}

recursive(c) if short_flag(c, "R")

recursive(c) if long_flag(c, "--recursive")
