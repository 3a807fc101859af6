// Package corpus loads toolgate's attack corpus: the tool calls, hostile and
// ordinary, that the parser and the whole gate must judge as the default
// policy says. One format, one loader, many drivers.
//
// # Format
//
// The corpus lives in testdata/attacks/<category>.json, each file an object
// {"cases": [...]}. A case:
//
//	{"note":        "short description, unique in its file",
//	 "category":    "destruction",           // see Categories
//	 "tool":        "exec",                  // default exec
//	 "commands":    ["rm -rf /", "'r''m' -rf /"],
//	 "working_dir": "src",                   // optional, with commands only
//	 "want":        "deny"}                  // allow | deny | ask
//
// A case holds exactly one of:
//
//   - commands: exec only. Every string is one spelling of the same intent
//     and every spelling must reach want. Empty strings are allowed only in
//     the malformed category.
//   - args: the arguments object of a non-exec tool (read_file, write_file,
//     edit_file, list_dir, search, glob). In the malformed category args may
//     also be given to exec, to send arguments of the wrong shape.
//   - raw: input lines fed to the decoder verbatim, malformed category only;
//     a raw case names no tool.
//
// Files are read strictly: an unknown key, a repeated key, trailing data, an
// unknown category, tool or verdict, a missing or repeated note, or a case
// with none or several of commands/args/raw is an error naming the file and
// the case. Numbers in args keep their exact text.
//
// # Placeholders
//
// {{WS}} (the absolute workspace) and {{HOME}} (the absolute fake home) may
// appear in commands, working_dir, args strings and raw lines; Case.Lines
// substitutes them. The paths Fixture returns contain no spaces or quotes
// when root has none, so substituting them into shell text is safe.
//
// # Verdicts in this corpus
//
// By convention, and checked by this package's tests for the shipped corpus:
// benign cases want allow, ask cases want ask, every other category wants
// deny, and each file holds the category it is named after. A command string
// never appears in two cases.
//
// # The fixture
//
// Fixture lays out the world the corpus talks about: a small Go/Python/JS
// project as the workspace, a fake home full of fake secrets, and symlinks
// from the workspace to /etc, /, /var, /proc/self, /etc/shadow, the home, its
// .ssh and the fixture root. Drivers run the gateway with cwd = workspace and
// HOME = home, and reach the root as src/link_up (which points at ../..).
//
// What not to do: do not build the fixture under /tmp, nor anywhere the
// policy treats as sensitive (/root, a real home), when verdicts matter. The
// policy lets exec write and delete below /tmp, so the cases that escape to
// the fixture root ("rm -rf ..", "cd ..", "rm -rf src/link_up/", working_dir
// "..") look like scratch use there and are allowed; under /root every
// workspace path is a secret. t.TempDir() lives under $TMPDIR, usually /tmp:
// make the root with os.MkdirTemp under a neutral directory such as /var/tmp
// instead, or run the tests with TMPDIR pointing at one.
package corpus
