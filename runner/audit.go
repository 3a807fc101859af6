package runner

import (
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/gate"
)

// RuleAuditFailed is the reason a call is denied when its decision could not
// be written to the audit log: an unlogged call does not run.
const RuleAuditFailed = "audit.write_failed"

// Auditor writes decision and outcome records for one front end.
type Auditor struct {
	Log    *audit.Log
	Source string   // check, run, mcp, …
	Policy string   // policy digest
	Mask   []string // argument fields stored as size + SHA-256
	// DeferOutcomes leaves outcome records for the next record's fsync
	// (audit.Log.AppendDeferred): the front end calls Sync before it
	// shows the call's result to anyone.
	DeferOutcomes bool
}

// Sync puts on disk the outcome records DeferOutcomes left unsynced.
func (a *Auditor) Sync() error {
	if a == nil || a.Log == nil {
		return nil
	}
	return a.Log.Sync()
}

// AuditMask returns data.toolgate.config.audit_mask, or audit.DefaultMask.
func AuditMask(cfg map[string]any) []string {
	v, ok := cfg["audit_mask"].([]any)
	if !ok {
		return audit.DefaultMask
	}
	out := []string{}
	for _, x := range v {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Decision records a decision made with the policy a.Policy. On error the
// caller must deny the call.
func (a *Auditor) Decision(call gate.Call, res gate.Result, approval, sandboxMode string) error {
	if a == nil {
		return nil
	}
	return a.DecisionWith(a.Policy, call, res, approval, sandboxMode)
}

// Record writes the decision on call, made with the policy whose digest is
// policy; a decision that cannot be recorded becomes a deny saying why (an
// unlogged call does not run). Every front end records through it.
func (a *Auditor) Record(policy string, call gate.Call, res *gate.Result, approval, sandboxMode string) {
	if a == nil || a.Log == nil {
		return
	}
	a.Append(a.DecisionRecord(policy, call, *res, approval, sandboxMode), res)
}

// Append writes a record made by DecisionRecord for res; a decision that
// cannot be recorded becomes a deny saying why. DecisionRecord may run on
// any goroutine; Append is where the log's order is set.
func (a *Auditor) Append(r audit.Record, res *gate.Result) {
	if a == nil || a.Log == nil {
		return
	}
	if _, err := a.Log.Append(r); err != nil {
		*res = refuse(*res, RuleAuditFailed, "the audit log could not be written ("+err.Error()+"), so the call is denied; fix the log (see 'toolgate audit verify') and retry")
	}
}

// AppendAll writes records made by DecisionRecord for ress, in order, as
// one group commit (one lock, one fsync); each decision whose record could
// not be written becomes a deny saying why.
func (a *Auditor) AppendAll(rs []audit.Record, ress []*gate.Result) {
	if a == nil || a.Log == nil || len(rs) == 0 {
		return
	}
	n, err := a.Log.AppendAll(rs)
	for _, res := range ress[n:] {
		*res = refuse(*res, RuleAuditFailed, "the audit log could not be written ("+err.Error()+"), so the call is denied; fix the log (see 'toolgate audit verify') and retry")
	}
}

// DecisionWith records a decision made with the policy whose digest is
// policy (the gate in use, which a reload may have changed).
func (a *Auditor) DecisionWith(policy string, call gate.Call, res gate.Result, approval, sandboxMode string) error {
	if a == nil || a.Log == nil {
		return nil
	}
	_, err := a.Log.Append(a.DecisionRecord(policy, call, res, approval, sandboxMode))
	return err
}

// DecisionRecord builds the decision record for call (arguments masked,
// credentials redacted, commands and resolved paths from the facts)
// without writing it.
func (a *Auditor) DecisionRecord(policy string, call gate.Call, res gate.Result, approval, sandboxMode string) audit.Record {
	r := audit.Record{
		Kind: audit.KindDecision, ID: res.ID, Tool: res.Tool, Source: a.Source,
		Args:     audit.MaskArgs(call.Tool, call.Args, a.Mask),
		Decision: res.Decision, Policy: policy, Sandbox: sandboxMode, Approval: approval,
		PolicyRevision: gate.RevisionOf(policy), // the bundle's revision, if any
	}
	if r.Tool == "" {
		r.Tool = call.Tool
	}
	for _, rs := range res.Reasons {
		r.Reasons = append(r.Reasons, audit.Reason{Rule: rs.Rule, Message: audit.Redact(rs.Message)})
	}
	if in := res.Input; in != nil && in.Facts != nil {
		for _, c := range in.Facts.Commands {
			argv := make([]string, len(c.Argv))
			for i, a := range c.Argv {
				argv[i] = audit.Redact(a)
			}
			r.Commands = append(r.Commands, argv)
		}
		seen := map[string]bool{}
		for _, p := range in.Facts.Paths {
			q := p.Real
			if q == "" {
				q = p.Abs
			}
			if q != "" && !seen[q] {
				seen[q] = true
				r.Paths = append(r.Paths, q)
			}
		}
	}
	return r
}

// Outcome records what an executed call did, under the policy a.Policy.
func (a *Auditor) Outcome(rec *Record) error {
	if a == nil {
		return nil
	}
	return a.OutcomeWith(a.Policy, rec)
}

// OutcomeWith records what an executed call did under the policy whose
// digest is policy.
func (a *Auditor) OutcomeWith(policy string, rec *Record) error {
	if a == nil || a.Log == nil {
		return nil
	}
	n, sum := audit.OutputDigest(rec.Output)
	dur := rec.DurationMS
	ran := rec.ExitCode != nil
	r := audit.Record{
		Kind: audit.KindOutcome, ID: rec.ID, Tool: rec.Tool, Source: a.Source,
		ExitCode: rec.ExitCode, DurationMS: &dur, OutputBytes: &n, OutputSHA256: sum,
		Truncated: rec.Truncated, Ran: &ran, Sandbox: rec.Sandbox, Policy: policy,
		PolicyRevision: gate.RevisionOf(policy),
	}
	var err error
	if a.DeferOutcomes {
		_, err = a.Log.AppendDeferred(r)
	} else {
		_, err = a.Log.Append(r)
	}
	return err
}
