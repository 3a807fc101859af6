# Tests for privilege.rego. Helpers live in toolgate_test.rego.
package toolgate_test

# ---- priv.escalate ----

test_priv_escalate_sudo_wrapper if {
	doc := exec_call("sudo apt-get install -y nginx", [wrapped(["sudo"], ["apt-get", "install", "-y", "nginx"])], [])
	"priv.escalate" in rules(doc)
	verdict(doc) == "deny"
}

test_priv_escalate_nested_wrappers if {
	# nice sudo -u root make: sudo is the second wrapper
	doc := exec_call("nice sudo -u root make", [wrapped(["nice", "sudo"], ["make"])], [])
	"priv.escalate" in rules(doc)
}

test_priv_escalate_as_command_name if {
	every argv in [["su", "-"], ["doas", "-s"], ["pkexec", "bash"], ["sudo", "-i"], ["runuser", "-l", "root"]] {
		"priv.escalate" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
}

test_priv_escalate_not_for_the_word_sudo_as_data if {
	doc := exec_call("echo 'run it with sudo later'", [cmd(["echo", "run it with sudo later"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_priv_escalate_not_for_harmless_wrappers if {
	doc := exec_call("nice -n 10 timeout 60 make test", [wrapped(["nice", "timeout"], ["make", "test"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- priv.setuid ----

test_priv_setuid_symbolic if {
	doc := exec_call("chmod u+s tool", [cmd(["chmod", "u+s", "tool"])], [wpath("tool", "write", 0, "chmod")])
	"priv.setuid" in rules(doc)
	verdict(doc) == "deny"
}

test_priv_setuid_forms if {
	every mode in ["4755", "2755", "6755", "g+s", "+s", "u=rwxs", "ug+xs"] {
		"priv.setuid" in rules(exec_call(concat(" ", ["chmod", mode, "tool"]), [cmd(["chmod", mode, "tool"])], [wpath("tool", "write", 0, "chmod")]))
	}
}

test_priv_setuid_install_mode if {
	every argv in [
		["install", "-m", "4755", "build/tool", "/tmp/tool"],
		["install", "-m4755", "build/tool", "/tmp/tool"],
		["install", "--mode=u+s", "build/tool", "/tmp/tool"],
		["install", "--mo=4755", "/bin/bash", "bin/rootsh"],
		["install", "--m", "4755", "/bin/bash", "bin/rootsh"],
		["install", "-Dm4755", "build/tool", "/tmp/tool"],
		["install", "-vm", "u+s", "build/tool", "/tmp/tool"],
		["install", "-D", "--mod", "6755", "build/tool", "/tmp/tool"],
	] {
		"priv.setuid" in rules(simple_call(argv))
	}
}

test_priv_setuid_dynamic_chmod_mode if {
	every argv in [["chmod", "$m", "tool"], ["chmod", "-R", "${x[@]}", "dir"], ["chmod", "$(cat mode)", "tool"]] {
		"priv.setuid" in rules(simple_call(argv))
	}
	not "priv.setuid" in rules(simple_call(["chmod", "755", "$f"]))
}

test_priv_setuid_rsync_chmod if {
	every argv in [
		["rsync", "-p", "--chmod=u+s", "a", "b"],
		["rsync", "-a", "--chmod=Fg+s", "src/", "out/"],
		["rsync", "--chmod", "u+s", "a", "b"],
		["rsync", "-a", "--chmod=Du+rwx,F4755", "src/", "out/"],
		["rsync", "--chmod=$m", "a", "b"],
	] {
		"priv.setuid" in rules(simple_call(argv))
	}
	not "priv.setuid" in rules(simple_call(["rsync", "-a", "--chmod=Du=rwx,Fu=rw,go=r", "src/", "out/"]))
	not "priv.setuid" in rules(simple_call(["rsync", "-a", "--chmod", "F644", "src/", "out/"]))
}

test_priv_setuid_not_for_install_with_ordinary_mode if {
	not "priv.setuid" in rules(simple_call(["install", "-m", "0755", "build/tool", "/tmp/tool"]))
	not "priv.setuid" in rules(simple_call(["install", "-D", "-m644", "a.conf", "/tmp/etc/a.conf"]))
	not "priv.setuid" in rules(simple_call(["install", "-Dm755", "build/tool", "/tmp/bin/tool"]))
	not "priv.setuid" in rules(simple_call(["install", "--mo=644", "a.conf", "/tmp/etc/a.conf"]))
	not "priv.setuid" in rules(simple_call(["install", "-m", "644", "--m4755-not-an-option", "a", "b"]))
}

test_priv_setuid_not_for_ordinary_modes if {
	every mode in ["755", "0755", "644", "+x", "u+rwx,go+rx", "1777", "01777", "g-s"] {
		doc := exec_call(concat(" ", ["chmod", mode, "tool"]), [cmd(["chmod", mode, "tool"])], [wpath("tool", "write", 0, "chmod")])
		not "priv.setuid" in rules(doc)
	}
}

test_priv_setuid_not_for_other_commands if {
	# install -m 755 is not chmod, and "4755" as an echo argument is data
	doc := exec_call("echo 4755", [cmd(["echo", "4755"])], [])
	verdict(doc) == "allow"
}

# Regression test (bug fixed): privilege.rego:34 setuid_mode anchors the symbolic regex at the start
# of the whole mode, so a comma-separated symbolic mode whose setuid clause
# is not the first one slips through: `chmod a+rx,u+s tool` is allowed.
#
test_priv_setuid_in_a_later_clause if {
	doc := exec_call("chmod a+rx,u+s tool", [cmd(["chmod", "a+rx,u+s", "tool"])], [wpath("tool", "write", 0, "chmod")])
	"priv.setuid" in rules(doc)
}

# ---- priv.capabilities ----

test_priv_capabilities_setcap if {
	doc := exec_call("setcap cap_net_raw+ep ./ping", [cmd(["setcap", "cap_net_raw+ep", "./ping"])], [wpath("ping", "write", 0, "setcap")])
	"priv.capabilities" in rules(doc)
	verdict(doc) == "deny"
}

test_priv_capabilities_not_for_getcap if {
	doc := exec_call("getcap ./ping", [cmd(["getcap", "./ping"])], [wpath("ping", "read", 0, "getcap")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- priv.mount ----

test_priv_mount if {
	doc := exec_call("mount /dev/sdb1 /mnt", [cmd(["mount", "/dev/sdb1", "/mnt"])], [])
	"priv.mount" in rules(doc)
	verdict(doc) == "deny"
}

test_priv_mount_umount_and_losetup if {
	"priv.mount" in rules(exec_call("umount -l /mnt", [cmd(["umount", "-l", "/mnt"])], []))
	"priv.mount" in rules(exec_call("losetup -f disk.img", [cmd(["losetup", "-f", "disk.img"])], []))
}

test_priv_mount_not_for_findmnt if {
	doc := exec_call("findmnt -T .", [cmd(["findmnt", "-T", "."])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- priv.namespace ----

test_priv_namespace_unshare_wrapper if {
	# unshare -r bash: the parser records unshare as a wrapper of bash
	doc := exec_call("unshare -r bash", [wrapped(["unshare"], ["bash"])], [])
	"priv.namespace" in rules(doc)
	verdict(doc) == "deny"
}

test_priv_namespace_nsenter_and_chroot if {
	"priv.namespace" in rules(exec_call("nsenter -t 1 -m -u -i -n sh", [wrapped(["nsenter"], ["sh"])], []))
	"priv.namespace" in rules(exec_call("chroot /mnt/sysroot /bin/sh", [wrapped(["chroot"], ["sh"])], []))
	"priv.namespace" in rules(exec_call("unshare --map-root-user", [cmd(["unshare", "--map-root-user"])], []))
}

test_priv_namespace_not_for_share_words if {
	doc := exec_call("git log --format=%h -- share/", [cmd(["git", "log", "--format=%h", "--", "share/"])], [wpath("share", "read", 0, "git")])
	not "priv.namespace" in rules(doc)
	verdict(doc) == "allow"
}

# ---- priv.kernel ----

test_priv_kernel_insmod_modprobe if {
	doc := exec_call("insmod rootkit.ko", [cmd(["insmod", "rootkit.ko"])], [wpath("rootkit.ko", "read", 0, "insmod")])
	"priv.kernel" in rules(doc)
	verdict(doc) == "deny"
	"priv.kernel" in rules(exec_call("modprobe -r e1000", [cmd(["modprobe", "-r", "e1000"])], []))
}

test_priv_kernel_not_for_lsmod_or_uname if {
	doc := exec_call("lsmod; uname -r", [cmd(["lsmod"]), cmd(["uname", "-r"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- priv.sysctl ----

test_priv_sysctl_write if {
	doc := exec_call("sysctl -w net.ipv4.ip_forward=1", [cmd(["sysctl", "-w", "net.ipv4.ip_forward=1"])], [])
	"priv.sysctl" in rules(doc)
	verdict(doc) == "deny"
}

test_priv_sysctl_other_write_forms if {
	"priv.sysctl" in rules(exec_call("sysctl kernel.panic=1", [cmd(["sysctl", "kernel.panic=1"])], []))
	"priv.sysctl" in rules(exec_call("sysctl -p /etc/sysctl.d/99.conf", [cmd(["sysctl", "-p", "/etc/sysctl.d/99.conf"])], []))
	"priv.sysctl" in rules(exec_call("sysctl --system", [cmd(["sysctl", "--load", "x.conf"])], []))
}

test_priv_sysctl_not_for_reads if {
	doc := exec_call("sysctl net.ipv4.ip_forward; sysctl -a", [cmd(["sysctl", "net.ipv4.ip_forward"]), cmd(["sysctl", "-a"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# Regression test (bug fixed): privilege.rego:73-76 (sysctl_write) treats any argument containing "=" as a write,
# so the read-only filter option `--pattern=REGEX` is denied:
# `sysctl -a --pattern=forward` only lists parameters.
#
test_priv_sysctl_not_for_pattern_filter if {
	doc := exec_call("sysctl -a --pattern=forward", [cmd(["sysctl", "-a", "--pattern=forward"])], [])
	not "priv.sysctl" in rules(doc)
}

# ---- priv.firewall ----

test_priv_firewall if {
	doc := exec_call("iptables -F", [cmd(["iptables", "-F"])], [])
	"priv.firewall" in rules(doc)
	verdict(doc) == "deny"
	"priv.firewall" in rules(exec_call("ufw disable", [cmd(["ufw", "disable"])], []))
	"priv.firewall" in rules(exec_call("nft flush ruleset", [cmd(["nft", "flush", "ruleset"])], []))
}

test_priv_firewall_not_for_ip_addr if {
	doc := exec_call("ip addr show", [cmd(["ip", "addr", "show"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- priv.accounts ----

test_priv_accounts if {
	doc := exec_call("useradd -m bob", [cmd(["useradd", "-m", "bob"])], [])
	"priv.accounts" in rules(doc)
	verdict(doc) == "deny"
	"priv.accounts" in rules(exec_call("passwd root", [cmd(["passwd", "root"])], []))
}

test_priv_accounts_not_for_id_or_whoami if {
	doc := exec_call("id -u; whoami", [cmd(["id", "-u"]), cmd(["whoami"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- priv.container ----

test_priv_container_privileged if {
	doc := exec_call("docker run --privileged -it ubuntu bash", [cmd(["docker", "run", "--privileged", "-it", "ubuntu", "bash"])], [])
	"priv.container" in rules(doc)
	verdict(doc) == "deny"
}

test_priv_container_bind_of_root if {
	every argv in [
		["docker", "run", "-v", "/:/host", "ubuntu"],
		["docker", "run", "-v/:/host", "ubuntu"],
		["podman", "run", "--volume=/:/host:ro", "alpine"],
		["docker", "run", "--mount", "type=bind,source=/,target=/host", "ubuntu"],
		["docker", "create", "--mount=type=bind,target=/h,source=/", "ubuntu"],
		["docker", "run", "-v", "/var/run/docker.sock:/var/run/docker.sock", "docker"],
		["docker", "exec", "--privileged", "web", "sh"],
		["docker", "run", "--pid=host", "ubuntu"],
	] {
		"priv.container" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
}

test_priv_container_not_for_workspace_mounts if {
	doc := exec_call("docker run --rm -v /home/user/proj:/src -w /src golang:1.22 go test ./...", [cmd(["docker", "run", "--rm", "-v", "/home/user/proj:/src", "-w", "/src", "golang:1.22", "go", "test", "./..."])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_priv_container_not_for_other_subcommands if {
	# --privileged after "inspect" is not a container start
	doc := exec_call("docker ps -a && docker build -t app .", [cmd(["docker", "ps", "-a"]), cmd(["docker", "build", "-t", "app", "."])], [])
	verdict(doc) == "allow"
}

# Regression test (bug fixed): privilege.rego:121-123 bind_of_host only knows the `source=` key of
# --mount, but Docker also accepts `src=`: `docker run --mount
# type=bind,src=/,dst=/host ubuntu` binds the host root and is allowed.
# DESIGN.md: "docker run --privileged or a bind of / is privilege".
#
test_priv_container_bind_of_root_with_src_key if {
	argv := ["docker", "run", "--mount", "type=bind,src=/,dst=/host", "ubuntu"]
	"priv.container" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
}
