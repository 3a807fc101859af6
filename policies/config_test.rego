# Tests for config.rego: the seed's opt-in deny_patterns, allow_patterns and
# allowed_commands. Helpers live in toolgate_test.rego.
package toolgate_test

rm_build := exec_call("rm -rf build", [cmd(["rm", "-rf", "build"])], [wpath("build", "delete", 0, "rm")])

git_status := exec_call("git status -s", [cmd(["git", "status", "-s"])], [])

# the allowlist as config (what the user writes) and as the gate's index
allow_list := ["git status", "git diff", "ls", "/usr/bin/make test"]

allow_index := {"git status": true, "git diff": true, "ls": true, "make test": true}

# ---- config.deny_pattern ----

test_config_deny_pattern_matches if {
	r := rules(rm_build) with data.toolgate.config.deny_patterns as [`\brm\s+-[rf]{1,2}\b`]
	r == {"config.deny_pattern"}
	v := verdict(rm_build) with data.toolgate.config.deny_patterns as [`\brm\s+-[rf]{1,2}\b`]
	v == "deny"
}

test_config_deny_pattern_is_case_insensitive_on_the_command if {
	# the command text is lowercased before matching, as the seed did
	doc := exec_call("RM -RF build", [cmd(["RM", "-RF", "build"])], [])
	r := rules(doc) with data.toolgate.config.deny_patterns as [`rm\s+-rf`]
	"config.deny_pattern" in r
}

test_config_deny_pattern_message_names_the_pattern if {
	ms := messages(rm_build, "config.deny_pattern") with data.toolgate.config.deny_patterns as [`rm\s+-rf`]
	some m in ms
	contains(m, `"rm\\s+-rf"`)
}

test_config_deny_pattern_not_when_nothing_matches if {
	r := rules(git_status) with data.toolgate.config.deny_patterns as [`\brm\s+-[rf]{1,2}\b`, `:\(\)\s*\{`]
	r == set()
}

test_config_deny_pattern_off_by_default if {
	# data.json ships no deny patterns: rm -rf build/ is ordinary work
	rules(rm_build) == set()
	verdict(rm_build) == "allow"
}

test_config_deny_pattern_only_for_exec if {
	doc := file_call("write_file", {"path": "notes.md", "content": "rm -rf /"}, [path(concat("/", [ws, "notes.md"]), "workspace", "write")])
	r := rules(doc) with data.toolgate.config.deny_patterns as [`rm\s+-rf`]
	r == set()
}

# ---- config.allow_pattern ----

test_config_allow_pattern_rejects_other_commands if {
	r := rules(rm_build) with data.toolgate.config.allow_patterns as [`^git (status|diff|log)\b`]
	r == {"config.allow_pattern"}
	v := verdict(rm_build) with data.toolgate.config.allow_patterns as [`^git (status|diff|log)\b`]
	v == "deny"
}

test_config_allow_pattern_accepts_a_match if {
	r := rules(git_status) with data.toolgate.config.allow_patterns as [`^ls\b`, `^git (status|diff|log)\b`]
	r == set()
}

test_config_allow_pattern_off_when_empty if {
	r := rules(rm_build) with data.toolgate.config.allow_patterns as []
	r == set()
}

test_config_allow_pattern_only_for_exec if {
	doc := file_call("read_file", {"path": "README.md"}, [path(concat("/", [ws, "README.md"]), "workspace", "read")])
	r := rules(doc) with data.toolgate.config.allow_patterns as [`^git `]
	r == set()
}

# ---- config.not_allowlisted ----

test_config_not_allowlisted if {
	doc := simple_call(["git", "push"])
	r := rules(doc) with data.toolgate.config.allowed_commands as allow_list with data.toolgate.index.allowed_commands as allow_index
	"config.not_allowlisted" in r
	d := decision(doc) with data.toolgate.config.allowed_commands as allow_list with data.toolgate.index.allowed_commands as allow_index
	d.decision == "deny"
	some m in messages(doc, "config.not_allowlisted") with data.toolgate.config.allowed_commands as allow_list with data.toolgate.index.allowed_commands as allow_index
	startswith(m, "git push is not in the configured command allowlist")
}

test_config_not_allowlisted_every_command_counts if {
	# ls -la | grep x: ls is allowed, grep is not
	doc := with_facts(
		exec_call("ls -la | grep x", [in_context(cmd(["ls", "-la"]), "pipeline", 0), piped(["grep", "x"], "ls")], []),
		{"pipelines": [["ls", "grep"]]},
	)
	ms := messages(doc, "config.not_allowlisted") with data.toolgate.config.allowed_commands as allow_list with data.toolgate.index.allowed_commands as allow_index
	ms == {"grep x is not in the configured command allowlist; use one of the allowed commands"}
}

test_config_not_allowlisted_nested_commands_count if {
	# sh -c 'git status': sh itself is not on the list
	doc := exec_call("sh -c 'git status'", [cmd(["sh", "-c", "git status"]), in_context(cmd(["git", "status"]), "nested-shell", 1)], [])
	r := rules(doc) with data.toolgate.config.allowed_commands as allow_list with data.toolgate.index.allowed_commands as allow_index
	"config.not_allowlisted" in r
}

test_config_not_allowlisted_accepts_prefixes if {
	every argv in [
		["git", "status"],
		["git", "status", "-s"],
		["git", "diff", "--stat", "HEAD~1"],
		["ls"],
		["ls", "-la", "src"],
		["/usr/bin/git", "status"],
		["make", "test"],
	] {
		r := rules(simple_call(argv)) with data.toolgate.config.allowed_commands as allow_list with data.toolgate.index.allowed_commands as allow_index
		r == set()
	}
}

test_config_not_allowlisted_prefix_is_by_whole_words if {
	# "git status" does not allow "git stash", nor "make" alone "make install"
	every argv in [["git", "stash"], ["git"], ["make"], ["make", "install"], ["lsof"]] {
		r := rules(simple_call(argv)) with data.toolgate.config.allowed_commands as allow_list with data.toolgate.index.allowed_commands as allow_index
		"config.not_allowlisted" in r
	}
}

test_config_not_allowlisted_off_by_default if {
	rules(simple_call(["make", "install"])) == set()
}
