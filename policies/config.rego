# The seed's options, kept as opt-in data in data.toolgate.config:
#   deny_patterns  - regexes; a command matching any is denied
#   allow_patterns - regexes; when set, a command must match one
#   allowed_commands - command prefixes ("git status"); when set, every
#                      command found anywhere must start with one
package toolgate

command_text := lower(object.get(object.get(input, "args", {}), "command", ""))

deny contains {"rule": "config.deny_pattern", "message": sprintf("the command matches the configured deny pattern %q", [pat])} if {
	data.toolgate.config.deny_patterns[0]
	is_exec
	some pat in data.toolgate.config.deny_patterns
	regex.match(pat, command_text)
}

deny contains {"rule": "config.allow_pattern", "message": "the command matches none of the configured allow patterns; use one of the allowed commands"} if {
	data.toolgate.config.allow_patterns[0]
	is_exec
	pats := data.toolgate.config.allow_patterns
	count(pats) > 0
	not allow_pattern_matches(pats)
}

allow_pattern_matches(pats) if {
	some pat in pats
	regex.match(pat, command_text)
}

# The gate turns allowed_commands into an object of prefixes at load time
# (data.toolgate.index.allowed_commands), so the check is a few look-ups.
allowed_index := object.get(idx, "allowed_commands", {})

deny contains {"rule": "config.not_allowlisted", "message": sprintf("%s is not in the configured command allowlist; use one of the allowed commands", [concat(" ", c.argv)])} if {
	data.toolgate.config.allowed_commands[0]
	some c in commands
	not allowlisted(c)
}

allowlisted(c) if {
	some n in numbers.range(1, count(c.argv))
	key := concat(" ", array.concat([c.name], array.slice(c.argv, 1, n)))
	allowed_index[key]
}
