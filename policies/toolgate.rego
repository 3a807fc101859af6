# The default toolgate policy: decision assembly and shared helpers.
#
# Rules in this package add objects {"rule", "message"} to the `deny` and
# `ask` sets. Any deny wins, then any ask, else the call is allowed. The
# input document is described in the README ("The Rego input document");
# paths arrive already resolved and classified, so rules only look things up.
package toolgate

# Tunables are read key by key from data.toolgate.config: reading the whole
# object costs more than the rest of a typical decision.

# decision is what the gate reads: one rule, one branch per verdict (OPA
# evaluates this in about half the time of an object built from separate
# verdict, reasons and sandbox rules). Any deny wins, then any ask.
# Reasons come out sorted by rule id, then message.
decision := {"decision": "deny", "reasons": by_rule(deny), "sandbox": closed_sandbox} if {
	count(deny) > 0
} else := {"decision": "ask", "reasons": by_rule(ask), "sandbox": {"network": network_granted, "network_on_approval": network_on_approval, "profile": "default"}} if {
	count(ask) > 0
} else := {"decision": "allow", "reasons": [], "sandbox": {"network": network_granted, "network_on_approval": false, "profile": "default"}}

# a denied call runs nowhere
closed_sandbox := {"network": false, "network_on_approval": false, "profile": "default"}

# The parts of the decision, by name.
verdict := decision.decision

reasons := decision.reasons

sandbox := decision.sandbox

by_rule(set) := [{"rule": p[0], "message": p[1]} | some p in sort([[r.rule, r.message] | some r in set])]

default network_granted := false

# An ask about network access, once a person approves it, gets the network
# it asked for (toolgate run grants it only after the approval); a team that
# wants approvals without network sets network_on_approval to false. (Only
# an ask is ever approved.)
default network_on_approval := false

network_on_approval if {
	data.toolgate.config.network_on_approval != false
	some r in ask
	r.rule in {"ask.network", "ask.git_remote", "ask.package_install"}
}

network_granted if {
	data.toolgate.config.allow_network == true
	some c in commands
	network_client(c)
}

# ---- the present index ----
#
# The gate adds input.present, an index of what the facts hold: sets of the
# command and wrapper names, their command groups, access kinds, zones and
# dynamic kinds, and flags that are present only when true. Rules open with
# a test on it, such as "chmod" in input.present.names or
# input.present.writes: OPA indexes membership in a set by the member, so a
# look-up reaches only the rules whose guard holds and a rule that cannot
# apply costs nothing. Inputs written by hand (unit tests) can be completed
# with complete(doc).

complete(doc) := doc if doc.present

else := object.union(doc, {"present": present_of(doc)})

present_of(doc) := object.union(lists, {k: true | some k, v in flags; v}) if {
	cmds := object.get(doc, "commands", [])
	ps := object.get(doc, "paths", [])
	dyn := object.get(doc, "dynamic", [])
	names := {n | some c in cmds; some n in array.concat([c.name], object.get(c, "wrappers", [])); n != ""}
	lists := {
		"names": names,
		"groups": {g | some n in names; some m in {n, lower(n)}; some g, _ in idx.groups; in_group(m, g)},
		"access": {x.access | some x in ps},
		"zones": {x.zone | some x in ps},
		"dynamic": {d.kind | some d in dyn},
	}
	flags := {
		"sensitive": count([x | some x in ps; object.get(x, "sensitive", false)]) > 0,
		"assigns": count(object.get(doc, "assigns", [])) > 0,
		"forks": count([f | some f in object.get(doc, "functions", []); object.get(f, "forks", false)]) > 0,
		"pipelines": count(object.get(doc, "pipelines", [])) > 0,
		"uploads": count([x | some x in ps; object.get(x, "role", "") == "upload"]) > 0,
		"writes": count([x | some x in ps; x.access in {"write", "delete"}]) > 0,
		"scripts": count([d | some d in dyn; d.kind in script_kinds]) > 0,
		"protected": count([x | some x in ps; object.get(x, "protected", "") != ""]) > 0,
	}
}

script_kinds := {"nested_script", "eval", "procsubst_script", "stdin_script", "too_large"}

# ---- helpers over the input ----

is_exec if input.tool == "exec"

commands := object.get(input, "commands", [])

paths := object.get(input, "paths", [])

names := {c.name | some c in commands}


# The gate builds data.toolgate.index from data.toolgate.config at load
# time: each named list becomes an object keyed by name (plus a list of the
# entries that are glob patterns), so membership is one look-up.
default idx := {}

idx := data.toolgate.index

# in_group(name, "escalators") holds when name is in the command group
# (data.toolgate.config.command_groups, or one of the named lists shells,
# interpreters, downloaders, decoders, rc_files, or a package manager).
in_group(name, group) if idx.groups[group][name]

in_group(name, group) if {
	some p in idx.group_patterns[group]
	glob.match(p, [], name)
}

code_runner(name) if in_group(name, "shells")

code_runner(name) if in_group(name, "interpreters")

# source FILE and . FILE run a script in the shell itself
code_runner(name) if name in {"source", "."}

# reads_script_from_stdin(i) holds when command i is a shell or interpreter
# whose program comes from a non-literal stdin (the parser's stdin_script).
reads_script_from_stdin(i) if {
	some d in object.get(input, "dynamic", [])
	d.kind == "stdin_script"
	d.cmd == i
}

# base is the last component of a path
base(p) := b if {
	parts := split(p, "/")
	b := parts[count(parts) - 1]
}

# args are argv without the command name
args(c) := array.slice(c.argv, 1, count(c.argv))

# short_flag(c, "r") holds for -r, -rf, -fr … given before "--"; the
# parser collects the options of each command in c.flags.
short_flag(c, letter) if c.flags[letter]

# Hand-written inputs (unit tests) may leave flags and subcommand out: then
# they are worked out from argv.
short_flag(c, letter) if {
	not c.flags
	some a in args(c)
	regex.match(`^-[A-Za-z0-9]+$`, a)
	contains(a, letter)
}

# long_flag(c, "--mode") holds for --mode and --mode=VALUE.
long_flag(c, name) if c.flags[name]

long_flag(c, name) if {
	not c.flags
	some a in args(c)
	split(a, "=")[0] == name
}

# subcommand(c) is the first argument that is not an option (for git, after
# its global options), computed by the parser.
subcommand(c) := c.subcommand if c.subcommand != ""

subcommand(c) := s if {
	not c.subcommand
	a := args(c)
	ops := [x | some i, x in a; not startswith(x, "-"); not option_value(c, a, i)]
	s := ops[0]
}

option_value(c, a, i) if {
	c.name == "git"
	i > 0
	a[i - 1] in {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}
}

# names(c) is the command's name followed by its wrappers
names_of(c) := array.concat([c.name], c.wrappers)

# zones a call may touch for each access kind
readable_zones := {"workspace_root", "workspace", "system", "dev_safe", "tmp", "tmp_root"} if is_exec

# file tools are workspace tools: read_file ../../etc/passwd is traversal
else := {"workspace_root", "workspace"}

# /tmp is the sandbox's private /tmp; a command that runs outside the
# sandbox (input.sandboxed false: a hook answering for the agent's own
# shell) would write the host's /tmp, shared with every other program.
writable_zones := {"workspace_root", "workspace", "tmp_root", "tmp", "dev_safe"} if {
	is_exec
	sandboxed
} else := {"workspace_root", "workspace", "dev_safe"} if is_exec

# file tools write files, never the workspace directory itself
else := {"workspace"}

deletable_zones := {"workspace", "tmp"} if {
	is_exec
	sandboxed
} else := {"workspace"}

cwd_zones := {"workspace_root", "workspace", "tmp_root", "tmp"} if sandboxed

else := {"workspace_root", "workspace"}

# sandboxed: the call runs inside toolgate's sandbox (absent in older
# inputs: assumed).
default sandboxed := true

sandboxed := false if input.sandboxed == false

default restrict := true

restrict := data.toolgate.config.restrict_to_workspace
