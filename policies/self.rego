# Toolgate's own files: the policy that judges calls, its data, the audit
# log that records them (and its rotated files) and the toolgate binary are
# changed by the people who run toolgate, never by a call it judges; the
# audit signing key is not touched at all. The gate knows where they are
# and marks every path that names, holds or could match one
# (paths[].protected: "file" when it is changed or deleted, "secret" on any
# access). A policy kept in the workspace (--policy ./policies) is the case
# that matters most: a hook loads the policy afresh for every call.
package toolgate

deny contains {"rule": "self.protected_file", "message": sprintf("%s changes %s, which is or holds one of toolgate's own files (its policy, data, audit log or binary); those are changed by the user, not by an agent — leave them alone", [who(p), p.raw])} if {
	input.present.protected
	some p in paths
	p.protected == "file"
}

deny contains {"rule": "self.signing_key", "message": sprintf("%s touches %s, toolgate's audit signing key; never read, copy or change it", [who(p), p.raw])} if {
	input.present.protected
	some p in paths
	p.protected == "secret"
}
