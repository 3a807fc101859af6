# Tests for self.rego. Helpers live in toolgate_test.rego.
package toolgate_test

# ---- self.protected_file ----

test_self_policy_file_rewritten if {
	p := object.union(wpath("policies/toolgate.rego", "write", 0, "sed"), {"protected": "file"})
	doc := exec_call("sed -i s/deny/allow/ policies/toolgate.rego", [cmd(["sed", "-i", "s/deny/allow/", "policies/toolgate.rego"])], [p])
	"self.protected_file" in rules(doc)
	verdict(doc) == "deny"
	some m in messages(doc, "self.protected_file")
	startswith(m, "sed changes policies/toolgate.rego")
}

test_self_audit_log_deleted_with_its_directory if {
	p := object.union(wpath(".local", "delete", 0, "rm"), {"protected": "file"})
	doc := exec_call("rm -rf .local", [cmd(["rm", "-rf", ".local"])], [p])
	"self.protected_file" in rules(doc)
	verdict(doc) == "deny"
}

test_self_file_tool_write if {
	p := object.union(path(concat("/", [ws, "policies/zz.rego"]), "workspace", "write"), {"raw": "policies/zz.rego", "protected": "file"})
	doc := file_call("write_file", {"path": "policies/zz.rego", "content": "package toolgate"}, [p])
	"self.protected_file" in rules(doc)
	verdict(doc) == "deny"
}

test_self_unmarked_paths_are_left_alone if {
	p := wpath("src/main.go", "write", 0, "sed")
	doc := exec_call("sed -i s/a/b/ src/main.go", [cmd(["sed", "-i", "s/a/b/", "src/main.go"])], [p])
	not "self.protected_file" in rules(doc)
	not "self.signing_key" in rules(doc)
	verdict(doc) == "allow"
}

# A read of the policy is no change: the gate leaves it unmarked, and a
# policy read is allowed like any workspace file.
test_self_policy_read_allowed if {
	p := wpath("policies/toolgate.rego", "read", 0, "cat")
	doc := exec_call("cat policies/toolgate.rego", [cmd(["cat", "policies/toolgate.rego"])], [p])
	verdict(doc) == "allow"
}

# ---- self.signing_key ----

test_self_signing_key_read if {
	p := object.union(wpath("keys/audit.key", "read", 0, "cat"), {"protected": "secret"})
	doc := exec_call("cat keys/audit.key", [cmd(["cat", "keys/audit.key"])], [p])
	"self.signing_key" in rules(doc)
	not "self.protected_file" in rules(doc)
	verdict(doc) == "deny"
}
