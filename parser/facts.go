package parser

// Facts is what the analyser found in one tool call. It is the heart of the
// Rego input document (see gate.Input); field names are part of the public,
// versioned contract.
type Facts struct {
	Commands   []Command   `json:"commands"`
	Pipelines  [][]string  `json:"pipelines"`
	Redirects  []Redirect  `json:"redirects"`
	Paths      []Path      `json:"paths"`
	Dynamic    []Dynamic   `json:"dynamic"`
	Functions  []Function  `json:"functions"`
	Assigns    []Assign    `json:"assigns"`
	ParseError *ParseError `json:"parse_error"`
}

// Command is one simple command found anywhere in the script.
type Command struct {
	Name     string   `json:"name"`     // basename of argv[0]; "" when not static
	Argv     []string `json:"argv"`     // as bash would expand it; dynamic words keep their source text
	Dynamic  bool     `json:"dynamic"`  // some word could not be resolved statically
	Wrappers []string `json:"wrappers"` // wrappers peeled off, outermost first
	Depth    int      `json:"depth"`    // 0 = top level; +1 per sh -c / eval / $(…) level
	Context  string   `json:"context"`  // simple | pipeline | subst | procsubst | function | background | nested-shell
	Cwd      string   `json:"cwd"`      // directory the command runs in; "" when not known statically
	// Stdin says where the command's standard input comes from when it
	// matters: "" (inherited), "pipe", "file", "heredoc", "herestring".
	Stdin string `json:"stdin"`
	// StdinFrom is the name of the command feeding this one through a pipe.
	StdinFrom string `json:"stdin_from"`
	// stdinIdx is the index of that command (meaningful with StdinFrom)
	stdinIdx int
	// Env holds assignments made for this command only (NAME=value cmd).
	Env map[string]string `json:"env"`
	// Flags holds the options given before any "--": each letter of a
	// short cluster ("-rf" gives "r" and "f") and each long option name
	// without its value ("--recursive", "--mode"). Values are true.
	Flags map[string]bool `json:"flags"`
	// Subcommand is the first argument that is neither an option nor an
	// option's value (for git, global options such as -C DIR and -c K=V are
	// skipped); "" when there is none.
	Subcommand string `json:"subcommand"`
}

// Redirect is one redirection of a command.
type Redirect struct {
	Op   string `json:"op"`
	Fd   int    `json:"fd"`
	Path string `json:"path"` // resolved target; "" for here-docs, fd duplications and dynamic targets
}

// Path is one entry of the normalized path set.
type Path struct {
	Raw         string `json:"raw"`          // the argument as written after expansion
	Abs         string `json:"abs"`          // absolute and lexically cleaned
	Real        string `json:"real"`         // resolved through symlinks, kernel order
	Access      string `json:"access"`       // read | write | delete | exec | cwd
	InWorkspace bool   `json:"in_workspace"` // Real lies inside the workspace
	Sensitive   bool   `json:"sensitive"`    // Real (or what it could still be) is a secret
	Exists      bool   `json:"exists"`
	// Zone is the classification the policy needs, computed in Go:
	//   workspace_root, workspace, tmp_root, tmp, home, system, root,
	//   dev_safe, device, proc_private, outside, unknown.
	Zone string `json:"zone"`
	// SensitiveMatch names the sensitive entry that matched ("~/.ssh", "*.pem").
	SensitiveMatch string `json:"sensitive_match,omitempty"`
	// Glob is true when the argument held unexpanded glob or dynamic parts and
	// the entry stands for the literal prefix of what it could match.
	Glob    bool   `json:"glob"`
	Dynamic bool   `json:"dynamic"` // some part could not be resolved statically
	Command string `json:"command"` // name of the command the path belongs to ("" for working_dir)
	// Role is set when the command does something particular with the path:
	// "upload" (sent to a remote host).
	Role string `json:"role,omitempty"`
	Cmd  int    `json:"cmd"` // index into Commands, -1 when not tied to a command
	// Tree is set on an existing directory the command reads whole, every
	// file below it (grep -r, rg, tar c, zip -r, cp -r, rsync -r, the search
	// tool); Sensitive then says whether a secret lies below it.
	Tree bool `json:"tree,omitempty"`
	// Protected is set when the path names, holds or could match one of
	// toolgate's own files: "file" (the policy, its data, the audit log,
	// the toolgate binary: changing or deleting it), "secret" (the audit
	// signing key: any access).
	Protected string `json:"protected,omitempty"`
	// GitCode: a write or delete here changes what git runs or reads as
	// configuration: a ".git" entry anywhere (a directory, or a "gitdir:"
	// file pointing elsewhere), anything inside a git directory (a .git
	// directory or one that looks like a repository to git: HEAD, objects/
	// and refs/), the directory core.hooksPath names, or the entry that
	// makes a directory a repository.
	GitCode bool `json:"git_code,omitempty"`
	// findNames are field.findNames (not part of the input document)
	findNames []string
	// link: Real is a symbolic link itself, not followed (field.noFollow)
	link bool
	// noLinks, listed and tracked are field.noLinks, .listed, .tracked
	noLinks, listed, tracked bool
}

// Dynamic is one part of the script that could not be known statically.
type Dynamic struct {
	Kind string `json:"kind"` // param | cmdsubst | arith | procsubst | glob_name | nested_script | stdin_script | eval | cwd
	Text string `json:"text"`
	Cmd  int    `json:"cmd"` // index into Commands, -1 when not tied to a command
}

// Function is a shell function defined by the script.
type Function struct {
	Name string `json:"name"`
	// Recursive is true when the body calls the function itself; Forks when
	// such a call runs in the background or in a pipeline (a fork bomb).
	Recursive bool `json:"recursive"`
	Forks     bool `json:"forks"`
}

// Assign is a variable assignment (NAME=value, export, declare, local, env NAME=value).
type Assign struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Dynamic bool   `json:"dynamic"`
	Cmd     int    `json:"cmd"` // the command it applies to, -1 for a shell variable
}

// ParseError is a stable, fail-closed reason why the script could not be
// analysed. Code is one of the parse_* codes in codes.go.
type ParseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// newFacts returns empty facts whose lists encode as [] rather than null.
func newFacts() *Facts {
	return &Facts{Commands: []Command{}, Pipelines: [][]string{}, Redirects: []Redirect{}, Paths: []Path{},
		Dynamic: []Dynamic{}, Functions: []Function{}, Assigns: []Assign{}}
}
