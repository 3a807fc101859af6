# Tests for destruction.rego. Helpers (cmd, cpath, exec_call, rules, …)
# live in toolgate_test.rego.
package toolgate_test

# ---- destroy.root ----

test_destroy_root_rm_rf_slash if {
	doc := exec_call("rm -rf /", [cmd(["rm", "-rf", "/"])], [cpath("/", "/", "root", "delete", 0, "rm")])
	"destroy.root" in rules(doc)
	not "workspace.delete_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_root_rm_rf_home if {
	doc := exec_call("rm -rf ~", [cmd(["rm", "-rf", home])], [cpath(home, home, "home", "delete", 0, "rm")])
	"destroy.root" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_root_hidden_in_sh_c if {
	# sh -c 'rm -rf /': the nested rm is commands[1]
	doc := exec_call("sh -c 'rm -rf /'", [
		cmd(["sh", "-c", "rm -rf /"]),
		in_context(cmd(["rm", "-rf", "/"]), "nested-shell", 1),
	], [cpath("/", "/", "root", "delete", 1, "rm")])
	"destroy.root" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_root_find_slash_delete if {
	doc := exec_call("find / -name core -delete", [cmd(["find", "/", "-name", "core", "-delete"])], [cpath("/", "/", "root", "delete", 0, "find")])
	"destroy.root" in rules(doc)
}

test_destroy_root_not_for_build_dir if {
	doc := exec_call("rm -rf build", [cmd(["rm", "-rf", "build"])], [wpath("build", "delete", 0, "rm")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_destroy_root_not_for_reading_root if {
	# ls / reads the root: denied, but not as destruction
	doc := exec_call("ls /", [cmd(["ls", "/"])], [cpath("/", "/", "root", "read", 0, "ls")])
	not "destroy.root" in rules(doc)
	"workspace.read_outside" in rules(doc)
}

test_destroy_root_not_for_a_dir_below_home if {
	doc := exec_call("rm -rf ~/old", [cmd(["rm", "-rf", "/home/user/old"])], [cpath("/home/user/old", "/home/user/old", "home", "delete", 0, "rm")])
	not "destroy.root" in rules(doc)
	"workspace.delete_outside" in rules(doc)
}

# ---- destroy.workspace_root ----

test_destroy_workspace_root_find_dot_delete if {
	doc := exec_call("find . -delete", [cmd(["find", ".", "-delete"])], [cpath(".", ws, "workspace_root", "delete", 0, "find")])
	"destroy.workspace_root" in rules(doc)
	not "workspace.delete_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_workspace_root_rm_rf_pwd if {
	doc := exec_call("rm -rf \"$PWD\"", [cmd(["rm", "-rf", ws])], [cpath(ws, ws, "workspace_root", "delete", 0, "rm")])
	"destroy.workspace_root" in rules(doc)
}

test_destroy_workspace_root_not_for_subdir if {
	doc := exec_call("find build -delete", [cmd(["find", "build", "-delete"])], [wpath("build", "delete", 0, "find")])
	not "destroy.workspace_root" in rules(doc)
	verdict(doc) == "allow"
}

test_destroy_workspace_root_not_for_listing_it if {
	doc := exec_call("ls .", [cmd(["ls", "."])], [cpath(".", ws, "workspace_root", "read", 0, "ls")])
	verdict(doc) == "allow"
}

# ---- destroy.disk ----

test_destroy_disk_mkfs if {
	doc := exec_call("mkfs.ext4 /dev/sdb1", [cmd(["mkfs.ext4", "/dev/sdb1"])], [])
	"destroy.disk" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_disk_wipefs_fdisk_parted if {
	every argv in [["wipefs", "-a", "/dev/sda"], ["fdisk", "/dev/sda"], ["parted", "/dev/sda", "mklabel", "gpt"], ["mke2fs", "/dev/sdb"]] {
		"destroy.disk" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
}

test_destroy_disk_behind_a_wrapper if {
	doc := exec_call("nohup /sbin/mkfs -t ext4 /dev/sdc", [wrapped(["nohup"], ["/sbin/mkfs", "-t", "ext4", "/dev/sdc"])], [])
	"destroy.disk" in rules(doc)
}

test_destroy_disk_not_for_mkdir_or_df if {
	doc := exec_call("mkdir -p build && df -h", [cmd(["mkdir", "-p", "build"]), cmd(["df", "-h"])], [wpath("build", "write", 0, "mkdir")])
	not "destroy.disk" in rules(doc)
	verdict(doc) == "allow"
}

# ---- destroy.device_write ----

test_destroy_device_write_dd if {
	doc := exec_call("dd if=/dev/zero of=/dev/sda", [cmd(["dd", "if=/dev/zero", "of=/dev/sda"])], [
		cpath("/dev/zero", "/dev/zero", "dev_safe", "read", 0, "dd"),
		cpath("/dev/sda", "/dev/sda", "device", "write", 0, "dd"),
	])
	"destroy.device_write" in rules(doc)
	not "workspace.write_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_device_write_redirect if {
	doc := exec_call("echo x > /dev/nvme0n1", [cmd(["echo", "x"])], [redirect_path("/dev/nvme0n1", "/dev/nvme0n1", "device", "write")])
	"destroy.device_write" in rules(doc)
}

test_destroy_device_write_not_for_dev_null if {
	doc := exec_call("make > /dev/null 2>&1", [cmd(["make"])], [redirect_path("/dev/null", "/dev/null", "dev_safe", "write")])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_destroy_device_write_not_for_reading_a_device if {
	doc := exec_call("head -c 512 /dev/sda", [cmd(["head", "-c", "512", "/dev/sda"])], [cpath("/dev/sda", "/dev/sda", "device", "read", 0, "head")])
	not "destroy.device_write" in rules(doc)
	"workspace.read_outside" in rules(doc)
}

# ---- destroy.windows ----

test_destroy_windows_del_force if {
	doc := exec_call("del /f /q report.docx", [cmd(["del", "/f", "/q", "report.docx"])], [])
	"destroy.windows" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_windows_rmdir_s_and_format if {
	"destroy.windows" in rules(exec_call("rmdir /S /Q C:\\Users", [cmd(["rmdir", "/S", "/Q", "C:\\Users"])], []))
	"destroy.windows" in rules(exec_call("format C:", [cmd(["format", "C:"])], []))
	"destroy.windows" in rules(exec_call("diskpart", [cmd(["diskpart"])], []))
}

test_destroy_windows_not_for_plain_rmdir if {
	doc := exec_call("rmdir build/empty", [cmd(["rmdir", "build/empty"])], [wpath("build/empty", "delete", 0, "rmdir")])
	not "destroy.windows" in rules(doc)
	verdict(doc) == "allow"
}

# ---- destroy.power ----

test_destroy_power_shutdown if {
	doc := exec_call("shutdown -h now", [cmd(["shutdown", "-h", "now"])], [])
	"destroy.power" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_power_reboot_init_systemctl if {
	every argv in [["reboot"], ["poweroff"], ["halt"], ["init", "0"], ["init", "6"], ["systemctl", "poweroff"], ["systemctl", "reboot"]] {
		"destroy.power" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
}

test_destroy_power_not_for_git_init_or_runlevel_3 if {
	not "destroy.power" in rules(exec_call("git init", [cmd(["git", "init"])], []))
	not "destroy.power" in rules(exec_call("init 3", [cmd(["init", "3"])], []))
}

test_destroy_power_not_for_systemctl_status if {
	doc := exec_call("systemctl status nginx", [cmd(["systemctl", "status", "nginx"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- destroy.fork_bomb ----

test_destroy_fork_bomb if {
	# :(){ :|:& };:
	doc := with_facts(
		exec_call(":(){ :|:& };:", [
			in_context(cmd([":"]), "pipeline", 0),
			in_context(cmd([":"]), "pipeline", 0),
			cmd([":"]),
		], []),
		{"functions": [{"name": ":", "recursive": true, "forks": true}], "pipelines": [[":", ":"]]},
	)
	"destroy.fork_bomb" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_fork_bomb_not_for_plain_recursion if {
	# countdown(){ [ "$1" -gt 0 ] && countdown $(($1-1)); }; countdown 3
	doc := with_facts(
		exec_call("countdown(){ ...; }; countdown 3", [cmd(["countdown", "3"])], []),
		{"functions": [{"name": "countdown", "recursive": true, "forks": false}]},
	)
	not "destroy.fork_bomb" in rules(doc)
	verdict(doc) == "allow"
}

# ---- destroy.kill_all ----

test_destroy_kill_all_kill_9_minus_1 if {
	doc := exec_call("kill -9 -1", [cmd(["kill", "-9", "-1"])], [])
	"destroy.kill_all" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_kill_all_after_double_dash if {
	"destroy.kill_all" in rules(exec_call("kill -KILL -- -1", [cmd(["kill", "-KILL", "--", "-1"])], []))
}

test_destroy_kill_all_killall5 if {
	"destroy.kill_all" in rules(exec_call("killall5 -9", [cmd(["killall5", "-9"])], []))
}

test_destroy_kill_all_not_for_a_pid if {
	doc := exec_call("kill -9 12345", [cmd(["kill", "-9", "12345"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_destroy_kill_all_not_for_sighup_to_a_pid if {
	# kill -1 12345 sends SIGHUP to one process
	not "destroy.kill_all" in rules(exec_call("kill -1 12345", [cmd(["kill", "-1", "12345"])], []))
}

# ---- destroy.recursive_outside ----

test_destroy_recursive_outside_chmod_etc if {
	doc := exec_call("chmod -R 777 /etc", [cmd(["chmod", "-R", "777", "/etc"])], [cpath("/etc", "/etc", "system", "write", 0, "chmod")])
	"destroy.recursive_outside" in rules(doc)
	verdict(doc) == "deny"
}

test_destroy_recursive_outside_chown_home if {
	doc := exec_call("chown --recursive me ~/other", [cmd(["chown", "--recursive", "me", "/home/user/other"])], [cpath("/home/user/other", "/home/user/other", "home", "write", 0, "chown")])
	"destroy.recursive_outside" in rules(doc)
}

test_destroy_recursive_outside_only_the_commands_own_paths if {
	# chmod -R u+w src && cat /etc/hosts: the outside path belongs to cat
	doc := exec_call("chmod -R u+w src && cat /etc/hosts", [cmd(["chmod", "-R", "u+w", "src"]), cmd(["cat", "/etc/hosts"])], [
		wpath("src", "write", 0, "chmod"),
		cpath("/etc/hosts", "/etc/hosts", "system", "read", 1, "cat"),
	])
	not "destroy.recursive_outside" in rules(doc)
	verdict(doc) == "allow"
}

test_destroy_recursive_outside_not_in_workspace_or_tmp if {
	doc := exec_call("chmod -R u+w src /tmp/scratch", [cmd(["chmod", "-R", "u+w", "src", "/tmp/scratch"])], [
		wpath("src", "write", 0, "chmod"),
		cpath("/tmp/scratch", "/tmp/scratch", "tmp", "write", 0, "chmod"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_destroy_recursive_outside_not_without_recursion if {
	# chmod 644 /etc/hosts is a write outside, not a recursive one
	doc := exec_call("chmod 644 /etc/hosts", [cmd(["chmod", "644", "/etc/hosts"])], [cpath("/etc/hosts", "/etc/hosts", "system", "write", 0, "chmod")])
	not "destroy.recursive_outside" in rules(doc)
	"workspace.write_outside" in rules(doc)
}

test_destroy_recursive_outside_off_when_not_restricted if {
	doc := exec_call("chmod -R 777 /etc", [cmd(["chmod", "-R", "777", "/etc"])], [cpath("/etc", "/etc", "system", "write", 0, "chmod")])
	r := rules(doc) with data.toolgate.config.restrict_to_workspace as false
	not "destroy.recursive_outside" in r
}

# ---- destroy.kill_all: match-everything patterns (red-team sweep, session 5) ----

test_destroy_kill_all_pkill_match_everything if {
	every argv in [["pkill", "-9", "-f", "."], ["pkill", ".*"], ["pkill", "-f", "^"], ["killall", "-9", "-r", "."], ["pkill", "-P", "1"]] {
		"destroy.kill_all" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
}

test_destroy_kill_all_kill_over_pgrep_or_ps if {
	doc := exec_call("kill -9 $(pgrep .)", [cmd(["pgrep", "."]), object.union(cmd(["kill", "-9", "$(pgrep .)"]), {"dynamic": true})], [])
	"destroy.kill_all" in rules(doc)
	doc2 := exec_call("ps -eo pid | xargs kill -9", [cmd(["ps", "-eo", "pid"]), object.union(cmd(["kill", "-9"]), {"stdin": "args", "stdin_from": "ps"})], [])
	"destroy.kill_all" in rules(doc2)
}

test_destroy_kill_all_not_for_named_processes if {
	every argv in [["pkill", "-f", "node server.js"], ["pkill", "gunicorn"], ["killall", "node"], ["killall", "-r", "^python"], ["pkill", "-P", "4242"]] {
		not "destroy.kill_all" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
}

test_destroy_kill_all_more_spellings if {
	every argv in [["pkill", "..."], ["pkill", "-f", "/"], ["killall", "--regex", "."], ["pkill", "-U", "1000"], ["pkill", "--euid", "1000"], ["pkill", "--inverse", "foo"], ["kill", "-9", "-01"], ["kill", "-9", "0"]] {
		"destroy.kill_all" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
	doc := exec_call("kill -9 $(ps -eo pid=)", [object.union(cmd(["ps", "-eo", "pid="]), {"context": "subst"}), object.union(cmd(["kill", "-9", "$(ps -eo pid=)"]), {"dynamic": true})], [])
	"destroy.kill_all" in rules(doc)
	"destroy.kill_all" in rules(exec_call("loginctl kill-user me", [object.union(cmd(["loginctl", "kill-user", "me"]), {"subcommand": "kill-user"})], []))
}

test_destroy_kill_all_signal_numbers_are_not_targets if {
	every argv in [["kill", "-s", "1", "4242"], ["kill", "-n", "1", "4242"], ["kill", "-1", "4242"], ["pkill", "-f", "node server.js"]] {
		not "destroy.kill_all" in rules(exec_call(concat(" ", argv), [cmd(argv)], []))
	}
}

# ---- device nodes, firmware, boot entries (red-team, session 10) ----

test_destroy_disk_device_nodes_and_firmware if {
	"destroy.disk" in rules(simple_call(["mknod", "disk", "b", "8", "0"]))
	"destroy.disk" in rules(simple_call(["mknod", "-m", "666", "tty9", "c", "4", "9"]))
	not "destroy.disk" in rules(simple_call(["mknod", "pipe", "p"]))
	"destroy.disk" in rules(simple_call(["flashrom", "-p", "internal", "-w", "x.rom"]))
	"destroy.disk" in rules(simple_call(["efibootmgr", "-B", "-b", "0"]))
}
