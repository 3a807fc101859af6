# Tests for decision assembly (toolgate.rego) and the shared helpers every
# other *_test.rego file in this package uses to build input documents.
#
# Inputs are written by hand in the shape the parser produces (see
# parser/facts.go): the workspace is /home/user/proj and the home directory
# /home/user throughout.
package toolgate_test

import data.toolgate

ws := "/home/user/proj"

home := "/home/user"

# ---- building input documents ----

base_name(p) := n if {
	parts := split(p, "/")
	n := parts[count(parts) - 1]
}

# cmd is one entry of input.commands: a top-level simple command in the
# workspace, with nothing unwrapped and no dynamic parts. flags and
# subcommand are filled in as the parser does (see parser/facts.go).
cmd(argv) := {
	"name": base_name(argv[0]),
	"argv": argv,
	"dynamic": false,
	"wrappers": [],
	"depth": 0,
	"context": "simple",
	"cwd": ws,
	"stdin": "",
	"stdin_from": "",
	"env": {},
	"flags": flags_of(argv),
	"subcommand": subcommand_of(argv),
}

# bare is a command without the parser's flags and subcommand, as a rule
# author may write it by hand; the policy works them out from argv.
bare(c) := object.remove(c, ["flags", "subcommand"])

# options_of is the arguments before the first "--".
options_of(argv) := array.slice(argv, 1, ends[0]) if {
	ends := [i | some i, a in argv; i > 0; a == "--"]
	count(ends) > 0
} else := array.slice(argv, 1, count(argv))

# flags_of: each letter of a short cluster ("-rf" gives r and f) and each
# long option name without its value ("--mode=x" gives --mode).
flags_of(argv) := {k: true | some k in flag_names(argv)}

flag_names(argv) := {l | some a in options_of(argv); regex.match(`^-[A-Za-z0-9]+$`, a); some l in split(substring(a, 1, -1), "")} | {split(a, "=")[0] | some a in options_of(argv); startswith(a, "--"); a != "--"}

# subcommand_of: the first operand, skipping git's global option values;
# "" when there is none.
subcommand_of(argv) := ops[0] if {
	ops := [argv[i] | some i, _ in argv; operand(argv, i)]
	count(ops) > 0
} else := ""

operand(argv, i) if {
	i > 0
	not startswith(argv[i], "-")
	not git_global_value(argv, i)
}

operand(argv, i) if {
	i > 0
	some j, a in argv
	a == "--"
	j > 0
	j < i
}

git_global_value(argv, i) if {
	base_name(argv[0]) == "git"
	argv[i - 1] in {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}
}

# wrapped is a command the parser found behind wrappers (sudo, nice, …).
wrapped(wrappers, argv) := object.union(cmd(argv), {"wrappers": wrappers})

# in_context places a command elsewhere: pipeline, subst, nested-shell, …
in_context(c, ctx, depth) := object.union(c, {"context": ctx, "depth": depth})

# piped is a command reading its stdin from the previous pipeline stage.
piped(argv, from) := object.union(cmd(argv), {"context": "pipeline", "stdin": "pipe", "stdin_from": from})

# path is an entry of the normalized path set not tied to a command
# (working_dir, a file tool's path).
path(real, zone, access) := {
	"raw": real,
	"abs": real,
	"real": real,
	"access": access,
	"in_workspace": zone in {"workspace", "workspace_root"},
	"sensitive": false,
	"exists": true,
	"zone": zone,
	"glob": false,
	"dynamic": false,
	"command": "",
	"cmd": -1,
}

# cpath is a path argument of commands[i] (named command), written as raw.
cpath(raw, real, zone, access, i, command) := object.union(path(real, zone, access), {"raw": raw, "command": command, "cmd": i})

# wpath is a workspace-relative path argument of commands[i].
wpath(rel, access, i, command) := cpath(rel, concat("/", [ws, rel]), "workspace", access, i, command)

# redirect_path is the target of a redirection (cmd -1, no command).
redirect_path(raw, real, zone, access) := object.union(path(real, zone, access), {"raw": raw})

# secret marks a path as sensitive, as the parser does.
secret(p, match) := object.union(p, {"sensitive": true, "sensitive_match": match})

# exec_call is the input document of an exec call.
exec_call(text, cmds, paths) := {
	"version": 1,
	"tool": "exec",
	"args": {"command": text, "working_dir": null},
	"workspace": ws,
	"cwd": ws,
	"home": home,
	"commands": cmds,
	"pipelines": [],
	"redirects": [],
	"paths": paths,
	"dynamic": [],
	"functions": [],
	"assigns": [],
	"parse_error": null,
}

# simple_call is an exec call of one command with no paths.
simple_call(argv) := exec_call(concat(" ", argv), [cmd(argv)], [])

# stdin_script(i) is the parser's fact that command i reads a non-literal
# script from stdin.
stdin_script(i) := {"kind": "stdin_script", "text": "script read from pipe", "cmd": i}

# with_facts adds or replaces top-level fields (pipelines, dynamic, …).
with_facts(doc, extra) := object.union(doc, extra)

# file_call is the input document of a file tool (read_file, write_file, …).
file_call(tool, args, paths) := {
	"version": 1,
	"tool": tool,
	"args": args,
	"workspace": ws,
	"cwd": ws,
	"home": home,
	"commands": [],
	"pipelines": [],
	"redirects": [],
	"paths": paths,
	"dynamic": [],
	"functions": [],
	"assigns": [],
	"parse_error": null,
}

# ---- reading the result ----

# rules is the set of rule ids that fired (deny and ask).
rules(doc) := ids if {
	ids := {r.rule | some r in toolgate.deny} | {r.rule | some r in toolgate.ask} with input as toolgate.complete(doc)
}

denied(doc) := ids if {
	ids := {r.rule | some r in toolgate.deny} with input as toolgate.complete(doc)
}

asked(doc) := ids if {
	ids := {r.rule | some r in toolgate.ask} with input as toolgate.complete(doc)
}

# messages is the set of messages the rule id produced.
messages(doc, id) := ms if {
	ms := {r.message | some r in toolgate.deny; r.rule == id} | {r.message | some r in toolgate.ask; r.rule == id} with input as toolgate.complete(doc)
}

verdict(doc) := v if {
	v := toolgate.decision.decision with input as toolgate.complete(doc)
}

decision(doc) := d if {
	d := toolgate.decision with input as toolgate.complete(doc)
}

reason_keys(reasons) := [sprintf("%s\u0000%s", [r.rule, r.message]) | some r in reasons]

# ---- common inputs ----

# ls -la src: the plainest allowed call
plain_ls := exec_call("ls -la src", [cmd(["ls", "-la", "src"])], [wpath("src", "read", 0, "ls")])

# git push: an ask
git_push := exec_call("git push origin main", [cmd(["git", "push", "origin", "main"])], [])

# curl -o page.html https://example.com: a network client, ask
curl_download := exec_call(
	"curl -o page.html https://example.com",
	[cmd(["curl", "-o", "page.html", "https://example.com"])],
	[wpath("page.html", "write", 0, "curl")],
)

# ---- decision assembly ----

test_allow_when_nothing_fires if {
	d := decision(plain_ls)
	d.decision == "allow"
	d.reasons == []
	d.sandbox == {"network": false, "network_on_approval": false, "profile": "default"}
	rules(plain_ls) == set()
}

test_decision_has_exactly_the_documented_keys if {
	d := decision(plain_ls)
	object.keys(d) == {"decision", "reasons", "sandbox"}
	d.sandbox.network == false
}

test_allow_without_any_facts if {
	# list_dir of the workspace root: no commands, no dynamic parts
	doc := file_call("list_dir", {"path": "."}, [path(ws, "workspace_root", "read")])
	verdict(doc) == "allow"
}

test_allow_when_facts_are_missing if {
	# a document without commands/paths keys at all still decides
	verdict({"version": 1, "tool": "list_dir", "args": {"path": "."}, "workspace": ws, "cwd": ws, "home": home}) == "allow"
}

test_ask_beats_allow if {
	d := decision(git_push)
	d.decision == "ask"
	[r.rule | some r in d.reasons] == ["ask.git_remote"]
}

test_deny_beats_ask if {
	# sudo git push: priv.escalate denies, ask.git_remote would ask
	doc := exec_call("sudo git push", [wrapped(["sudo"], ["git", "push"])], [])
	"ask.git_remote" in asked(doc)
	"priv.escalate" in denied(doc)
	d := decision(doc)
	d.decision == "deny"

	# only the deny reasons are reported
	[r.rule | some r in d.reasons] == ["priv.escalate"]
}

# sudo rm -rf / ~/.ssh: several deny rules at once
sudo_rm_root_and_ssh := exec_call("sudo rm -rf / ~/.ssh", [wrapped(["sudo"], ["rm", "-rf", "/", "/home/user/.ssh"])], [
	cpath("/", "/", "root", "delete", 0, "rm"),
	secret(cpath("/home/user/.ssh", "/home/user/.ssh", "home", "delete", 0, "rm"), "~/.ssh"),
])

test_deny_reasons_hold_every_fired_rule_once if {
	d := decision(sudo_rm_root_and_ssh)
	d.decision == "deny"
	count(d.reasons) == 3
	{r.rule | some r in d.reasons} == {"destroy.root", "priv.escalate", "secrets.access"}
}

# Regression test (bug fixed): toolgate.rego:23-27 builds reasons as [r | some r in deny] on the
# claim that "sets are ordered, so reasons come out sorted by rule id, then
# message". Sets of objects are ordered by comparing the objects, and an
# object compares by its sorted keys' values: "message" < "rule", so the
# reasons come out sorted by MESSAGE, not by rule id. For this input the
# result is destroy.root ("refusing…"), secrets.access ("rm touches…"),
# priv.escalate ("sudo runs…"). Sorting by sprintf("%s\u0000%s", [rule,
# message]) (as the first version of the file did) gives the right order.
#
test_deny_reasons_are_sorted_by_rule_then_message if {
	d := decision(sudo_rm_root_and_ssh)
	[r.rule | some r in d.reasons] == ["destroy.root", "priv.escalate", "secrets.access"]
	keys := reason_keys(d.reasons)
	keys == sort(keys)
}

test_reasons_of_one_rule_are_sorted_by_message if {
	# rm -rf /var/www /etc/nginx: two workspace.delete_outside reasons
	doc := exec_call("rm -rf /var/www /etc/nginx", [cmd(["rm", "-rf", "/var/www", "/etc/nginx"])], [
		cpath("/var/www", "/var/www", "outside", "delete", 0, "rm"),
		cpath("/etc/nginx", "/etc/nginx", "system", "delete", 0, "rm"),
	])
	d := decision(doc)
	count(d.reasons) == 2
	[r.rule | some r in d.reasons] == ["workspace.delete_outside", "workspace.delete_outside"]
	contains(d.reasons[0].message, "/etc/nginx")
	contains(d.reasons[1].message, "/var/www")
}

test_ask_reasons_are_sorted if {
	# git push && pip install requests: two ask rules
	doc := exec_call("git push && pip install requests", [
		cmd(["git", "push"]),
		cmd(["pip", "install", "requests"]),
	], [])
	d := decision(doc)
	d.decision == "ask"
	[r.rule | some r in d.reasons] == ["ask.git_remote", "ask.package_install"]
	keys := reason_keys(d.reasons)
	keys == sort(keys)
}

test_every_reason_has_rule_and_message if {
	doc := exec_call("sudo reboot", [wrapped(["sudo"], ["reboot"])], [])
	d := decision(doc)
	count(d.reasons) == 2
	every r in d.reasons {
		object.keys(r) == {"rule", "message"}
		r.message != ""
	}
}

# ---- the sandbox profile ----

test_network_not_granted_by_default if {
	# allow_network is false in data.json, so even a network client gets none
	d := decision(curl_download)
	d.decision == "ask"
	d.sandbox.network == false
}

test_network_on_approval_for_a_network_ask if {
	d := decision(curl_download)
	d.decision == "ask"
	d.sandbox.network_on_approval == true
}

test_network_on_approval_can_be_turned_off if {
	d := decision(curl_download) with data.toolgate.config.network_on_approval as false
	d.sandbox.network_on_approval == false
}

test_no_network_on_approval_for_other_asks if {
	doc := exec_call("git clean -fdx", [cmd(["git", "clean", "-fdx"])], [])
	d := decision(doc)
	d.sandbox.network_on_approval == false
}

test_network_granted_with_allow_network_and_a_client if {
	d := decision(curl_download) with data.toolgate.config.allow_network as true
	d.sandbox.network == true
}

test_network_granted_for_ssh_too if {
	# ssh is a network client; allow_network grants the namespace
	doc := exec_call("ssh build-host uptime", [cmd(["ssh", "build-host", "uptime"])], [])
	d := decision(doc) with data.toolgate.config.allow_network as true
	d.sandbox.network == true
}

test_network_not_granted_without_a_client if {
	# make: allow_network alone does not open the network
	doc := exec_call("make test", [cmd(["make", "test"])], [])
	d := decision(doc) with data.toolgate.config.allow_network as true
	d.decision == "allow"
	d.sandbox.network == false
}

test_network_needs_a_literal_true if {
	# "yes" is not true: only the boolean grants the network
	d := decision(curl_download) with data.toolgate.config.allow_network as "yes"
	d.sandbox.network == false
}

test_sandbox_profile_is_default if {
	d := decision(git_push)
	d.sandbox.profile == "default"
}

# ---- shared helpers ----

test_short_flag_matches_bundled_letters if {
	toolgate.short_flag(cmd(["rm", "-rf", "x"]), "r")
	toolgate.short_flag(cmd(["rm", "-fr", "x"]), "r")
	toolgate.short_flag(cmd(["rm", "-r", "x"]), "r")
}

test_short_flag_ignores_long_options_and_operands if {
	not toolgate.short_flag(cmd(["rm", "--recursive", "x"]), "r")
	not toolgate.short_flag(cmd(["rm", "-f", "rx"]), "r")
	not toolgate.short_flag(cmd(["grep", "-e", "-r"]), "x")
}

test_long_flag_matches_bare_and_assigned if {
	toolgate.long_flag(cmd(["docker", "run", "--privileged", "img"]), "--privileged")
	toolgate.long_flag(cmd(["docker", "run", "--privileged=true", "img"]), "--privileged")
	not toolgate.long_flag(cmd(["docker", "run", "--privileged-mode", "img"]), "--privileged")
}

test_cmd_helper_matches_the_parser_shape if {
	# what the parser gives for these (toolgate explain)
	c := cmd(["git", "-C", "sub", "push", "origin"])
	c.flags == {"C": true}
	c.subcommand == "push"
	d := cmd(["rm", "-rf", "--", "-x"])
	d.flags == {"r": true, "f": true}
	d.subcommand == "-x"
	e := cmd(["docker", "run", "--privileged=true", "x"])
	e.flags == {"--privileged": true}
	e.subcommand == "run"
	cmd(["ls"]).subcommand == ""
}

test_flags_from_argv_when_the_parser_fields_are_missing if {
	toolgate.short_flag(bare(cmd(["rm", "-rf", "x"])), "r")
	not toolgate.short_flag(bare(cmd(["rm", "--recursive", "x"])), "r")
	toolgate.long_flag(bare(cmd(["chmod", "--recursive", "u+w", "src"])), "--recursive")
	toolgate.long_flag(bare(cmd(["install", "--mode=644", "a", "b"])), "--mode")
	toolgate.subcommand(bare(cmd(["git", "-C", "sub", "-c", "a=b", "push"]))) == "push"
	toolgate.subcommand(bare(cmd(["pip", "--quiet", "install", "x"]))) == "install"
}

test_flags_after_double_dash_are_operands if {
	# rm -- -r: "-r" is a file name, not the recursive flag
	not toolgate.short_flag(cmd(["rm", "--", "-r"]), "r")
}

test_hand_written_inputs_decide_like_parser_shaped_ones if {
	doc := exec_call("chmod -R 777 /etc", [bare(cmd(["chmod", "-R", "777", "/etc"]))], [cpath("/etc", "/etc", "system", "write", 0, "chmod")])
	"destroy.recursive_outside" in rules(doc)
	push := exec_call("git -C sub push", [bare(cmd(["git", "-C", "sub", "push"]))], [])
	rules(push) == {"ask.git_remote"}
}

test_subcommand_skips_options if {
	toolgate.subcommand(cmd(["pip", "--quiet", "install", "x"])) == "install"
	toolgate.subcommand(cmd(["systemctl", "--user", "enable", "x"])) == "enable"
	not toolgate.subcommand(cmd(["ls", "-la"]))
}

test_args_drop_the_command_name if {
	toolgate.args(cmd(["git", "status", "-s"])) == ["status", "-s"]
	toolgate.args(cmd(["true"])) == []
}

test_code_runner_knows_shells_interpreters_and_versioned_pythons if {
	toolgate.code_runner("bash")
	toolgate.code_runner("perl")
	toolgate.code_runner("python3.12")
	not toolgate.code_runner("grep")
	not toolgate.code_runner("python3-config")
}

test_zones_are_narrower_for_file_tools if {
	"system" in toolgate.readable_zones with input as toolgate.complete(plain_ls)
	"tmp" in toolgate.writable_zones with input as toolgate.complete(plain_ls)
	not "system" in toolgate.readable_zones with input as toolgate.complete(file_call("read_file", {"path": "/etc/hosts"}, []))
	not "tmp" in toolgate.writable_zones with input as toolgate.complete(file_call("write_file", {"path": "/tmp/x"}, []))
}

test_restrict_defaults_to_true if {
	toolgate.restrict == true with input as toolgate.complete(plain_ls)
	toolgate.restrict == false with input as toolgate.complete(plain_ls) with data.toolgate.config.restrict_to_workspace as false
}
