# Secrets: credentials, keys and other processes' memory are never touched,
# however the path is spelled (symlinks, globs, variables are resolved first).
package toolgate

deny contains {"rule": "secrets.access", "message": sprintf("%s touches %s, which holds secrets (%s); never read or copy credentials — ask the user to provide what you need", [who(p), p.raw, object.get(p, "sensitive_match", "sensitive path")])} if {
	input.present.sensitive
	some p in paths
	p.sensitive
}

deny contains {"rule": "secrets.process", "message": sprintf("%s reads %s, another process's private state; only /proc/self status files are readable", [who(p), p.raw])} if {
	input.present.zones.proc_private
	some p in paths
	p.zone == "proc_private"
	not p.sensitive
}
