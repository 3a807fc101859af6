# A test policy that echoes the call it was given, so the hook tests can
# see exactly what a Claude Code tool call was mapped to.
package toolgate

echo := {"rule": "test.echo", "message": sprintf("%s %s", [input.tool, json.marshal(input.args)])}

deny contains {"rule": "test.secret", "message": sprintf("%s touches a secret", [input.tool])} if {
	some p in input.paths
	contains(p.abs, "secret")
}

ask contains {"rule": "test.push", "message": "pushing needs a person"} if {
	some c in input.commands
	c.name == "git"
	c.subcommand == "push"
}

decision := {"decision": "deny", "reasons": [r | some r in deny]} if {
	count(deny) > 0
} else := {"decision": "ask", "reasons": array.concat([r | some r in ask], [echo])} if {
	count(ask) > 0
} else := {"decision": "allow", "reasons": [echo]}
