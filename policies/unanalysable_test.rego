# Tests for unanalysable.rego. Helpers live in toolgate_test.rego.
package toolgate_test

# ---- dynamic.command_name ----

test_dynamic_command_name_variable if {
	# $CMD -rf build
	doc := with_facts(
		exec_call("$CMD -rf build", [object.union(cmd(["$CMD", "-rf", "build"]), {"name": "", "dynamic": true})], []),
		{"dynamic": [{"kind": "command_name", "text": "$CMD", "cmd": 0}]},
	)
	"dynamic.command_name" in rules(doc)
	verdict(doc) == "deny"
	some m in messages(doc, "dynamic.command_name")
	contains(m, "$CMD")
}

test_dynamic_command_name_substitution if {
	# $(echo rm) -rf x: echo runs in the substitution, the name is unknown
	doc := with_facts(
		exec_call("$(echo rm) -rf x", [
			in_context(cmd(["echo", "rm"]), "subst", 1),
			object.union(cmd(["$(echo rm)", "-rf", "x"]), {"name": "", "dynamic": true}),
		], []),
		{"dynamic": [{"kind": "command_name", "text": "$(echo rm)", "cmd": 1}]},
	)
	"dynamic.command_name" in rules(doc)
}

test_dynamic_command_name_glob if {
	# /usr/bin/r? x: a glob in the command name
	doc := with_facts(
		exec_call("/usr/bin/r? x", [object.union(cmd(["/usr/bin/r?", "x"]), {"name": ""})], []),
		{"dynamic": [{"kind": "command_name", "text": "/usr/bin/r?", "cmd": 0}]},
	)
	"dynamic.command_name" in rules(doc)
}

test_dynamic_command_name_not_for_dynamic_arguments if {
	# echo "$HOME_DIR": a parameter in an argument is fine
	doc := with_facts(
		exec_call("echo \"$BUILD_ID\"", [object.union(cmd(["echo", "$BUILD_ID"]), {"dynamic": true})], []),
		{"dynamic": [{"kind": "param", "text": "$BUILD_ID", "cmd": 0}]},
	)
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- dynamic.nested_script ----

test_dynamic_nested_script_sh_c_variable if {
	doc := with_facts(
		exec_call("sh -c \"$X\"", [object.union(cmd(["sh", "-c", "$X"]), {"dynamic": true})], []),
		{"dynamic": [{"kind": "param", "text": "$X", "cmd": 0}, {"kind": "nested_script", "text": "$X", "cmd": 0}]},
	)
	"dynamic.nested_script" in rules(doc)
	verdict(doc) == "deny"
	some m in messages(doc, "dynamic.nested_script")
	startswith(m, "sh runs a script that is not literal ($X)")
}

test_dynamic_nested_script_eval if {
	doc := with_facts(
		exec_call("eval \"$X\"", [object.union(cmd(["eval", "$X"]), {"dynamic": true})], []),
		{"dynamic": [{"kind": "param", "text": "$X", "cmd": 0}, {"kind": "eval", "text": "$X", "cmd": 0}]},
	)
	"dynamic.nested_script" in rules(doc)
}

test_dynamic_nested_script_read_from_stdin if {
	# cat payload | bash: the script arrives on stdin
	doc := with_facts(
		exec_call("cat payload | bash", [
			in_context(cmd(["cat", "payload"]), "pipeline", 0),
			piped(["bash"], "cat"),
		], [wpath("payload", "read", 0, "cat")]),
		{"pipelines": [["cat", "bash"]], "dynamic": [{"kind": "stdin_script", "text": "script read from pipe", "cmd": 1}]},
	)
	"dynamic.nested_script" in rules(doc)
}

test_dynamic_nested_script_not_tied_to_a_command if {
	# a variable assigned a non-literal script (cmd -1) is named "a variable"
	doc := with_facts(
		exec_call("PROMPT_COMMAND=$(cat x)", [], []),
		{"dynamic": [{"kind": "nested_script", "text": "PROMPT_COMMAND=$(cat x)", "cmd": -1}]},
	)
	some m in messages(doc, "dynamic.nested_script")
	startswith(m, "a variable runs a script")
}

test_dynamic_nested_script_not_for_literal_scripts if {
	# sh -c 'make test': the literal script was parsed; make is commands[1]
	doc := exec_call("sh -c 'make test'", [
		cmd(["sh", "-c", "make test"]),
		in_context(cmd(["make", "test"]), "nested-shell", 1),
	], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_dynamic_nested_script_not_for_inline_interpreter_code if {
	# python3 -c '…' is not parsed; the sandbox contains it
	doc := exec_call("python3 -c 'print(1+1)'", [cmd(["python3", "-c", "print(1+1)"])], [])
	rules(doc) == set()
	verdict(doc) == "allow"
}

# ---- dynamic.decode_to_shell ----

test_dynamic_decode_to_shell_base64 if {
	doc := with_facts(
		exec_call("echo ZWNobyBoaQ== | base64 -d | sh", [
			in_context(cmd(["echo", "ZWNobyBoaQ=="]), "pipeline", 0),
			piped(["base64", "-d"], "echo"),
			piped(["sh"], "base64"),
		], []),
		{"pipelines": [["echo", "base64", "sh"]], "dynamic": [{"kind": "stdin_script", "text": "script read from pipe", "cmd": 2}]},
	)
	"dynamic.decode_to_shell" in rules(doc)
	verdict(doc) == "deny"
	some m in messages(doc, "dynamic.decode_to_shell")
	startswith(m, "decoded data from base64 is piped into sh")
}

test_dynamic_decode_to_shell_xxd_and_zcat if {
	every pl in [["xxd", "bash"], ["zcat", "python3"], ["openssl", "perl"], ["rev", "sh"]] {
		doc := with_facts(exec_call(concat(" | ", pl), [in_context(cmd([pl[0]]), "pipeline", 0), piped([pl[1]], pl[0])], []), {"pipelines": [pl], "dynamic": [stdin_script(1)]})
		"dynamic.decode_to_shell" in rules(doc)
	}
}

test_dynamic_decode_to_shell_not_to_a_file if {
	# base64 -d blob.b64 > blob.bin: decoding to a file is ordinary
	doc := exec_call("base64 -d blob.b64 > blob.bin", [cmd(["base64", "-d", "blob.b64"])], [
		wpath("blob.b64", "read", 0, "base64"),
		redirect_path("blob.bin", concat("/", [ws, "blob.bin"]), "workspace", "write"),
	])
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_dynamic_decode_to_shell_not_into_text_tools if {
	doc := with_facts(
		exec_call("base64 -d blob.b64 | head -c 100", [
			in_context(cmd(["base64", "-d", "blob.b64"]), "pipeline", 0),
			piped(["head", "-c", "100"], "base64"),
		], [wpath("blob.b64", "read", 0, "base64")]),
		{"pipelines": [["base64", "head"]]},
	)
	rules(doc) == set()
	verdict(doc) == "allow"
}

test_dynamic_decode_to_shell_not_when_the_shell_comes_first if {
	doc := with_facts(
		exec_call("sh build.sh | gzip > out.gz", [
			in_context(cmd(["sh", "build.sh"]), "pipeline", 0),
			piped(["gzip"], "sh"),
		], [wpath("build.sh", "read", 0, "sh"), redirect_path("out.gz", concat("/", [ws, "out.gz"]), "workspace", "write")]),
		{"pipelines": [["sh", "gzip"]]},
	)
	not "dynamic.decode_to_shell" in rules(doc)
	verdict(doc) == "allow"
}

# Regression test (bug fixed): unanalysable.rego:18-24 fires whenever a "decoder" from the list
# (which includes tr, od, rev, gzip, zcat) precedes any interpreter (which
# includes awk) in a pipeline, whether or not the interpreter reads its
# program from stdin. A pipe of text tools — DESIGN.md "Allowed: … pipes of
# text tools" — is denied: `tr a-z A-Z < names.txt | awk '{print $1}'`, and
# likewise `zcat app.log.gz | awk '/ERROR/'`. The parser already marks a
# stdin-read script with a stdin_script dynamic entry; an interpreter that
# has a literal program argument does not run the decoded data.
#
test_dynamic_decode_to_shell_not_for_awk_with_a_program if {
	doc := with_facts(
		exec_call("tr a-z A-Z < names.txt | awk '{print $1}'", [
			in_context(cmd(["tr", "a-z", "A-Z"]), "pipeline", 0),
			piped(["awk", "{print $1}"], "tr"),
		], [wpath("names.txt", "read", 0, "tr")]),
		{"pipelines": [["tr", "awk"]]},
	)
	not "dynamic.decode_to_shell" in rules(doc)
	verdict(doc) == "allow"
}
