package audit

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// OCSFVersion is the OCSF schema version ExportOCSF's events claim.
const OCSFVersion = "1.1.0"

// OCSF classes and categories ExportOCSF maps calls to.
const (
	ocsfSystemActivity      = 1
	ocsfApplicationActivity = 6
	ocsfFileSystemActivity  = 1001
	ocsfProcessActivity     = 1007
	ocsfAPIActivity         = 6003
)

// ocsfEvent is one OCSF event. Field order follows the schema's
// classification, occurrence, context and primary groups.
type ocsfEvent struct {
	CategoryUID  int    `json:"category_uid"`
	CategoryName string `json:"category_name"`
	ClassUID     int    `json:"class_uid"`
	ClassName    string `json:"class_name"`
	ActivityID   int    `json:"activity_id"`
	ActivityName string `json:"activity_name"`
	TypeUID      int    `json:"type_uid"`
	TypeName     string `json:"type_name"`

	Time       int64  `json:"time"`
	Duration   *int64 `json:"duration,omitempty"`
	SeverityID int    `json:"severity_id"`
	Severity   string `json:"severity"`

	StatusID      int    `json:"status_id"`
	Status        string `json:"status"`
	StatusCode    string `json:"status_code,omitempty"`
	StatusDetail  string `json:"status_detail,omitempty"`
	ActionID      int    `json:"action_id"`
	Action        string `json:"action"`
	DispositionID int    `json:"disposition_id"`
	Disposition   string `json:"disposition"`
	Message       string `json:"message,omitempty"`

	Metadata    ocsfMetadata  `json:"metadata"`
	Actor       ocsfActor     `json:"actor"`
	Device      ocsfDevice    `json:"device"`
	SrcEndpoint *ocsfEndpoint `json:"src_endpoint,omitempty"`

	Process  *ocsfProcess `json:"process,omitempty"`
	ExitCode *int         `json:"exit_code,omitempty"`
	File     *ocsfFile    `json:"file,omitempty"`
	API      *ocsfAPI     `json:"api,omitempty"`

	Unmapped ocsfUnmapped `json:"unmapped"`
}

type ocsfMetadata struct {
	Version      string      `json:"version"`
	Product      ocsfProduct `json:"product"`
	UID          string      `json:"uid"`
	Sequence     int64       `json:"sequence"`
	LogName      string      `json:"log_name"`
	OriginalTime string      `json:"original_time,omitempty"`
}

type ocsfProduct struct {
	Name       string `json:"name"`
	VendorName string `json:"vendor_name"`
}

type ocsfActor struct {
	User    *ocsfUser    `json:"user,omitempty"`
	Process *ocsfProcess `json:"process,omitempty"`
}

type ocsfUser struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

type ocsfDevice struct {
	Hostname string `json:"hostname,omitempty"`
	TypeID   int    `json:"type_id"`
	Type     string `json:"type"`
}

type ocsfEndpoint struct {
	Hostname string `json:"hostname,omitempty"`
}

type ocsfProcess struct {
	Name    string `json:"name,omitempty"`
	PID     int    `json:"pid,omitempty"`
	CmdLine string `json:"cmd_line,omitempty"`
}

type ocsfFile struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	TypeID int    `json:"type_id"`
	Type   string `json:"type"`
}

type ocsfAPI struct {
	Operation string       `json:"operation"`
	Request   *ocsfRequest `json:"request,omitempty"`
}

type ocsfRequest struct {
	UID string `json:"uid"`
}

type ocsfUnmapped struct {
	Toolgate ocsfToolgate `json:"toolgate"`
}

// ocsfToolgate keeps what OCSF has no attribute for.
type ocsfToolgate struct {
	Kind           string     `json:"kind"`
	ID             string     `json:"id,omitempty"`
	Tool           string     `json:"tool,omitempty"`
	Source         string     `json:"source,omitempty"`
	Decision       string     `json:"decision,omitempty"`
	Rules          []string   `json:"rules,omitempty"`
	Policy         string     `json:"policy,omitempty"`
	PolicyRevision string     `json:"policy_revision,omitempty"`
	Sandbox        string     `json:"sandbox,omitempty"`
	Approval       string     `json:"approval,omitempty"`
	Commands       [][]string `json:"commands,omitempty"`
	Paths          []string   `json:"paths,omitempty"`
	Ran            *bool      `json:"ran,omitempty"`
	OutputBytes    *int64     `json:"output_bytes,omitempty"`
	OutputSHA256   string     `json:"output_sha256,omitempty"`
	Truncated      bool       `json:"truncated,omitempty"`
}

// ExportOCSF writes the decision and outcome records of the files that
// pass f as OCSF events, one JSON object a line: exec calls as Process
// Activity (1007, Launch), the file tools as File System Activity (1001:
// Read for read_file, list_dir, search and glob; Create for write_file;
// Update for edit_file), any other tool as API Activity (6003, Other).
// Severity follows the decision (deny Medium, ask Low, allow
// Informational; an outcome takes its call's decision when it was seen);
// what OCSF has no attribute for is under unmapped.toolgate. Genesis,
// checkpoint and repair records are not exported. A line that is not a
// record stops the export with an error, after the events before it.
func ExportOCSF(w io.Writer, paths []string, f Filter) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	// What an outcome's event takes from its call's decision record: the
	// decision, and the command line or file (fewer of those, and cut).
	decisions, subjects := newRecentIDs(recentCalls), newRecentIDs(recentSubjects)
	err := Scan(paths, f, func(_ int64, file string, r *Record) error {
		var decision, subject string
		switch r.Kind {
		case KindDecision:
			decision, subject = r.Decision, ocsfSubject(r)
			if r.ID != "" {
				decisions.add(r.ID, decision)
				subjects.add(r.ID, cutBytes(subject, maxSubject))
			}
		case KindOutcome:
			decision = "allow"
			if d, ok := decisions.get(r.ID); ok && r.ID != "" {
				decision = d
			}
			if s, ok := subjects.get(r.ID); ok && r.ID != "" {
				subject = s
			}
		default:
			return nil
		}
		return enc.Encode(ocsfOf(file, r, decision, subject))
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Bounds on what ExportOCSF remembers of recent decisions for their
// outcomes.
const (
	recentSubjects = 10000
	maxSubject     = 4096
)

// ocsfSubject is what a decision's call acts on: the command line of an
// exec call, the file of a file tool.
func ocsfSubject(r *Record) string {
	if r.Tool == "exec" {
		return What(r)
	}
	return filePath(r)
}

// cutBytes shortens s to at most n bytes, at a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// OCSF enumerations used here.
const (
	ocsfStatusSuccess = 1
	ocsfStatusFailure = 2
	ocsfActionAllowed = 1
	ocsfActionDenied  = 2
	ocsfDispAllowed   = 1
	ocsfDispBlocked   = 2
)

// settledAllow is the set of approvals under which an ask was let through.
var settledAllow = map[string]bool{"approved": true, "edited": true, "auto": true}

// ocsfOf maps one decision or outcome record; decision is the call's
// decision and subject what it acts on (for an outcome, taken from its
// decision record when that was seen).
func ocsfOf(file string, r *Record, decision, subject string) *ocsfEvent {
	e := &ocsfEvent{}
	e.Metadata = ocsfMetadata{Version: OCSFVersion, Product: ocsfProduct{Name: "toolgate", VendorName: "toolgate"},
		UID: r.Hash, Sequence: r.Seq, LogName: file, OriginalTime: r.Time}
	if t, ok := recordTime(r); ok {
		e.Time = t.UnixMilli()
	}
	if wr := r.Writer; wr != nil {
		e.Actor.User = &ocsfUser{Name: wr.User, UID: strconv.Itoa(wr.UID)}
		e.Actor.Process = &ocsfProcess{Name: wr.Program, PID: wr.PID}
		e.Device.Hostname = wr.Host
	}
	e.Device.Type = "Unknown"

	switch decision {
	case "deny":
		e.SeverityID, e.Severity = 3, "Medium"
	case "ask":
		e.SeverityID, e.Severity = 2, "Low"
	default:
		e.SeverityID, e.Severity = 1, "Informational"
	}

	tg := &e.Unmapped.Toolgate
	*tg = ocsfToolgate{Kind: r.Kind, ID: r.ID, Tool: r.Tool, Source: r.Source, Decision: r.Decision,
		Policy: r.Policy, PolicyRevision: r.PolicyRevision, Sandbox: r.Sandbox, Approval: r.Approval,
		Commands: r.Commands, Paths: r.Paths, Ran: r.Ran, OutputBytes: r.OutputBytes,
		OutputSHA256: r.OutputSHA256, Truncated: r.Truncated}
	for _, rs := range r.Reasons {
		tg.Rules = append(tg.Rules, rs.Rule)
	}

	// The call.
	switch r.Tool {
	case "exec":
		e.CategoryUID, e.ClassUID, e.ActivityID, e.ActivityName = ocsfSystemActivity, ocsfProcessActivity, 1, "Launch"
		p := &ocsfProcess{CmdLine: subject}
		if len(r.Commands) > 0 && len(r.Commands[0]) > 0 {
			p.Name = base(r.Commands[0][0])
		}
		e.Process = p
		if r.Kind == KindOutcome {
			e.ExitCode = r.ExitCode
		}
	case "read_file", "list_dir", "search", "glob", "write_file", "edit_file":
		e.CategoryUID, e.ClassUID = ocsfSystemActivity, ocsfFileSystemActivity
		switch r.Tool {
		case "write_file":
			e.ActivityID, e.ActivityName = 1, "Create"
		case "edit_file":
			e.ActivityID, e.ActivityName = 3, "Update"
		default:
			e.ActivityID, e.ActivityName = 2, "Read"
		}
		fl := &ocsfFile{Path: subject, Name: base(subject), TypeID: 0, Type: "Unknown"}
		switch r.Tool {
		case "read_file", "write_file", "edit_file":
			fl.TypeID, fl.Type = 1, "Regular File"
		case "list_dir":
			fl.TypeID, fl.Type = 2, "Folder"
		}
		e.File = fl
	default:
		e.CategoryUID, e.ClassUID, e.ActivityID = ocsfApplicationActivity, ocsfAPIActivity, 99
		e.ActivityName = r.Tool
		if e.ActivityName == "" {
			e.ActivityName = "Other"
		}
		e.API = &ocsfAPI{Operation: r.Tool}
		if r.ID != "" {
			e.API.Request = &ocsfRequest{UID: r.ID}
		}
		if r.Writer != nil {
			e.SrcEndpoint = &ocsfEndpoint{Hostname: r.Writer.Host}
		}
	}
	e.CategoryName = map[int]string{ocsfSystemActivity: "System Activity", ocsfApplicationActivity: "Application Activity"}[e.CategoryUID]
	e.ClassName = map[int]string{ocsfProcessActivity: "Process Activity", ocsfFileSystemActivity: "File System Activity", ocsfAPIActivity: "API Activity"}[e.ClassUID]
	e.TypeUID = e.ClassUID*100 + e.ActivityID
	activity := e.ActivityName
	if e.ActivityID == 99 {
		activity = "Other"
	}
	e.TypeName = e.ClassName + ": " + activity

	// What became of it.
	allowed := true
	switch r.Kind {
	case KindDecision:
		allowed = r.Decision == "allow" || (r.Decision == "ask" && settledAllow[r.Approval])
		if len(r.Reasons) > 0 {
			e.Message = r.Reasons[0].Message
		}
		if e.Message == "" {
			e.Message = r.Tool + " call: " + r.Decision
			if r.Approval != "" {
				e.Message += " (" + r.Approval + ")"
			}
		}
		if allowed {
			e.StatusID, e.Status = ocsfStatusSuccess, "Success"
		} else {
			e.StatusID, e.Status = ocsfStatusFailure, "Failure"
			e.StatusDetail = strings.TrimSpace(r.Decision + " " + r.Approval)
		}
	case KindOutcome:
		e.Duration = r.DurationMS
		result := outcomeResult(r)
		e.Message = r.Tool + " call: " + result
		if r.ExitCode != nil {
			e.StatusCode = strconv.Itoa(*r.ExitCode)
		}
		if failed(r) {
			e.StatusID, e.Status, e.StatusDetail = ocsfStatusFailure, "Failure", result
		} else {
			e.StatusID, e.Status = ocsfStatusSuccess, "Success"
		}
	}
	if allowed {
		e.ActionID, e.Action, e.DispositionID, e.Disposition = ocsfActionAllowed, "Allowed", ocsfDispAllowed, "Allowed"
	} else {
		e.ActionID, e.Action, e.DispositionID, e.Disposition = ocsfActionDenied, "Denied", ocsfDispBlocked, "Blocked"
	}
	return e
}
