# Workspace escape: writes, deletes and directory changes stay inside the
# workspace (and the sandbox's private /tmp); reads stay inside the workspace
# and the read-only system roots.
package toolgate

deny contains {"rule": "workspace.write_outside", "message": sprintf("%s writes %s, outside the workspace; write inside the workspace%s", [who(p), p.raw, scratch_hint])} if {
	"write" in input.present.access
	restrict
	some p in paths
	p.access == "write"
	not p.zone in writable_zones
	not p.zone in {"device", "dev_net", "unknown"}
	not p.sensitive
}

deny contains {"rule": "workspace.delete_outside", "message": sprintf("%s deletes %s, outside the workspace; delete only paths inside the workspace", [who(p), p.raw])} if {
	"delete" in input.present.access
	restrict
	some p in paths
	p.access == "delete"
	not p.zone in deletable_zones
	not p.zone in {"root", "workspace_root", "device", "unknown"}
	not p.real == input.home
	not p.sensitive
}

deny contains {"rule": "workspace.cd_outside", "message": sprintf("changing directory to %s leaves the workspace; stay inside the workspace and use relative paths", [p.raw])} if {
	"cwd" in input.present.access
	restrict
	some p in paths
	p.access == "cwd"
	not p.zone in cwd_zones
	not p.zone == "unknown"
}

deny contains reads_outside(p) if {
	"read" in input.present.access
	some p in paths
	p.access == "read"
	read_outside(p)
}

deny contains reads_outside(p) if {
	"exec" in input.present.access
	some p in paths
	p.access == "exec"
	read_outside(p)
}

reads_outside(p) := {"rule": "workspace.read_outside", "message": sprintf("%s reads %s, outside %s; work with files inside the workspace", [who(p), p.raw, readable_places])}

read_outside(p) if {
	restrict
	not p.zone in readable_zones
	not p.zone in {"proc_private", "dev_net", "unknown"}
	not p.sensitive
	not guessed_missing(p)
}

# An argument of a command toolgate does not know that merely looks like a
# path ("--exclude /vendor") and names nothing is not a read.
guessed_missing(p) if {
	object.get(p, "role", "") == "guessed"
	not p.exists
	not p.glob
}

scratch_hint := " (or /tmp for scratch files)" if {
	is_exec
	sandboxed
}

else := ""

readable_places := "the workspace and the system directories" if is_exec

else := "the workspace (file tools read and write only the workspace; use exec for system files)"

deny contains {"rule": "workspace.unknown_path", "message": sprintf("%s uses the path %s, which depends on values known only at run time; write the path literally", [who(p), p.raw])} if {
	"unknown" in input.present.zones
	some p in paths
	p.zone == "unknown"
	not walked_too_far(p)
}

# walked_too_far: p is what lies below a directory too large to walk
# (workspace.walk_budget says so).
walked_too_far(p) if {
	"walk_budget" in input.present.dynamic
	some d in object.get(input, "dynamic", [])
	d.kind == "walk_budget"
	p.raw == concat("/", [d.text, "*"])
}

deny contains {"rule": "workspace.walk_budget", "message": sprintf("%s follows (or moves or copies) the links below %s, which holds more entries than are worth checking for a link out of the workspace; name the directories it needs, or do not follow links (grep -r rather than -R, rg and find without -L, tar without -h)", [script_runner(d), d.text])} if {
	"walk_budget" in input.present.dynamic
	some d in object.get(input, "dynamic", [])
	d.kind == "walk_budget"
}

deny contains {"rule": "workspace.source_outside", "message": sprintf("sourcing %s runs a script from outside the workspace; copy what you need into the workspace", [p.raw])} if {
	"exec" in input.present.access
	some p in paths
	p.access == "exec"
	p.command in {"source", "."}
	not p.zone in {"workspace", "workspace_root"}
}

# who names the command behind a path, for messages.
who(p) := p.command if p.command != ""

else := input.tool if input.tool != "exec"

else := "a redirection" if p.cmd == -1

else := "the command"
