// Package parser turns an exec command into facts a policy can judge: every
// simple command wherever it hides, with its argv as bash would expand it,
// and a normalized, classified path set.
//
// The command is parsed in Bash mode with mvdan.cc/sh/v3 and every node kind
// is walked: pipelines, lists, subshells, blocks, if/for/while/case, function
// bodies, [[ ]] and (( )) tests, declarations, coprocesses, time, command and
// process substitutions, here-documents. An unrecognised node is a parse
// error, never a pass. Words are expanded with a closed expand.Config: only
// $HOME, $PWD, IFS and variables assigned literally earlier in the script are
// known; command substitution and unset variables are never evaluated but
// recorded as dynamic. Globs are expanded against the filesystem (bounded by
// a budget of entries read; past it the word is judged as a pattern). A
// word whose ** is literal (shopt -s globstar) is walked as bash 5 walks it
// (globstar.go: the links ** reaches are matches, not descended into); one
// whose ** comes from a variable is left to mvdan/sh, which follows them.
//
// Wrappers (sudo, env, nice, timeout, xargs, …) are peeled with their own
// option arity and recorded; literal nested scripts (sh -c, eval, env -S,
// here-strings and echo piped into a shell, find -exec sh -c, alias and trap
// bodies, exec-sink variables such as PAGER or GIT_SSH_COMMAND) are parsed
// again, to a depth bound. cd, pushd, env -C, git -C and make -C move the
// directory later relative paths resolve against. A cd to a directory that
// is not there (and that no earlier mkdir or write of the script makes) may
// fail, and bash then goes on where it was: what a && after it runs is
// judged in the new directory, what runs after a ; or || in the old one
// too (the working directory is then unknown).
//
// The shell's state is followed where it changes values (analyze.go):
// indexed arrays of elements known as written, name references, read-only
// variables, set --, loops (each body walked twice, the second pass from
// the merge of the first's end with its start), return/break/continue
// (the states they leave merged into the function's or pass's end), jobs
// and coprocesses as subshells, lastpipe, and function calls (every body
// the name was declared with, walked at each call; the caller takes the
// call's state but for the locals its leading declarations make). An
// expansion mvdan/sh computes otherwise than bash 5.2 (anchored or &
// replacements, extglob, nocasematch) is unknown. Symbolic links the script
// makes, and those on disk that mv/cp/ln/git mv carry, are resolved from
// where they land; text the script writes to a file is analysed when the
// file is run, after cp/mv too.
//
// Paths are resolved as the kernel would (Resolve: symlinks followed
// component by component before the next ".."), except below /proc and /dev,
// which are classified lexically. Each path gets an access kind and a zone
// (workspace_root, workspace, tmp_root, tmp, home, system, root, dev_safe,
// dev_net, device, proc_private, outside, unknown), a sensitivity flag, and
// a protected mark when it changes (or, for a key, touches) one of
// toolgate's own files the gate names in Config.Protected (protect.go).
// Globs that match nothing and paths with unknown parts are judged by their
// literal prefix and by the secrets they could still name.
//
// What it does not cover: the inline code of interpreters (python -c, perl
// -e, awk programs) is not parsed — the sandbox contains it; the contents of
// script files run by path are not read; a program's own configuration files
// are not modelled beyond the argument-role table in roles.go (commands not
// in the table have path-like arguments treated as reads); the names a
// patch or an archive holds are read only where the analysis can open it
// (a patch's text it knows, a tar — plain, gzip or bzip2 — or zip on disk:
// patchfile.go, archive.go), otherwise the command is marked as writing
// files nobody saw (opaque_writes); what a checkout of a branch or a
// whole tree writes is the repository's, and links copied by rsync or tar
// are not known to later commands of the same script; an unknown part in
// the middle of a path that could hold ".." makes it any path ending with
// what follows (climbRest); a construct whose effect on the state is not followed (a
// function named like a state-changing builtin, enable -n, a DEBUG trap
// that assigns, a reference to a name known only at run time) makes the
// script unanalysable rather than guessed. Analysis is pure
// apart from reading the filesystem to resolve paths and expand globs, so
// its answers hold for the filesystem as it was when the call was judged.
// Options are read as each program reads them where a handler looks for
// one that runs a command or names a file: getopt clusters and
// abbreviated long options (getoptArgs, expandArgs; git's own parser in
// gitViews), gdb's single-dash long options; vim-family ex commands and
// sqlite3 dot-commands are followed only when they are on short allow
// lists (exSafe, sqliteSafeDots), anything else is a script nobody saw.
// Directory listings are kept across analyses (listings.go) only where a
// stat proves them current: the same directory, its ctime unchanged and
// older than two seconds, on a local file system (not /proc, /sys,
// network or FUSE mounts, which are read afresh each time).
package parser
