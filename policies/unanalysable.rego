# Unanalysable code: what cannot be known before it runs is not run.
package toolgate

deny contains {"rule": "dynamic.command_name", "message": sprintf("the command name %s is computed at run time, so it cannot be checked; write the command name literally", [d.text])} if {
	"command_name" in input.present.dynamic
	some d in object.get(input, "dynamic", [])
	d.kind == "command_name"
}

deny contains {"rule": "dynamic.nested_script", "message": sprintf("%s runs a script that is not literal (%s), so it cannot be checked; write the commands out directly", [script_runner(d), d.text])} if {
	input.present.scripts
	some d in object.get(input, "dynamic", [])
	d.kind in script_kinds
}

script_runner(d) := commands[d.cmd].name if d.cmd >= 0

else := "a brace expansion" if d.kind == "too_large"

else := "a variable"

deny contains {"rule": "dynamic.decode_to_shell", "message": sprintf("decoded data from %s is piped into %s: that hides the code being run; write the commands in clear text", [pl[i], pl[j]])} if {
	"stdin_script" in input.present.dynamic
	some k, c in commands
	code_runner(c.name)
	reads_script_from_stdin(k)
	some pl in object.get(input, "pipelines", [])
	some i, j
	in_group(pl[i], "decoders")
	pl[j] == c.name
	i < j
}
