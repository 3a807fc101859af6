package parser

import (
	"iter"
	"slices"
	"strings"
)

// expandLong rewrites a long option given as a prefix ("--pre=x", "--ext")
// into the one of names it begins, when exactly one does, as getopt_long
// and git's option parser accept it; anything else comes back unchanged.
// names should hold every long option of the command that shares a prefix
// with the ones that matter, so a prefix the program finds ambiguous is
// not taken for one of them.
func expandLong(t string, names ...string) string {
	key, val, eq := strings.Cut(t, "=")
	found := longPrefix(key, slices.Values(names))
	if found == key {
		return t
	}
	if eq {
		return found + "=" + val
	}
	return found
}

// longPrefix is the one of names that the long option key ("--ext")
// begins, or key itself when it is one of them, none or several begin with
// it, or it is not a long option.
func longPrefix(key string, names iter.Seq[string]) string {
	if len(key) < 3 || !strings.HasPrefix(key, "--") {
		return key
	}
	found := ""
	for n := range names {
		if n == key {
			return key
		}
		if strings.HasPrefix(n, key) {
			if found != "" {
				return key
			}
			found = n
		}
	}
	if found == "" {
		return key
	}
	return found
}

// expandArgs applies expandLong to every argument before "--".
func expandArgs(args []field, names ...string) []field {
	out := make([]field, len(args))
	copy(out, args)
	for i, a := range out {
		if a.text == "--" {
			break
		}
		if !a.dynamic && strings.HasPrefix(a.text, "--") {
			if t := expandLong(a.text, names...); t != a.text {
				out[i].text = t
				out[i].pattern = t
			}
		}
	}
	return out
}

// tarLongs are GNU tar's long options, for expandLong.
var tarLongs = strings.Fields(`--absolute-names --acls --add-file --after-date --anchored --append
--atime-preserve --auto-compress --backup --block-number --blocking-factor --bzip2 --catenate
--check-device --checkpoint --checkpoint-action --compare --compress --concatenate --confirmation
--create --delay-directory-restore --delete --dereference --diff --directory --exclude
--exclude-backups --exclude-caches --exclude-caches-all --exclude-caches-under --exclude-from
--exclude-ignore --exclude-ignore-recursive --exclude-tag --exclude-tag-all --exclude-tag-under
--exclude-vcs --exclude-vcs-ignores --extract --file --files-from --force-local --format --full-time
--get --group --group-map --gunzip --gzip --hard-dereference --help --hole-detection --ignore-case
--ignore-command-error --ignore-failed-read --ignore-zeros --incremental --index-file --info-script
--interactive --keep-directory-symlink --keep-newer-files --keep-old-files --label --level --list
--listed-incremental --lzip --lzma --lzop --mode --mtime --multi-volume --new-volume-script --newer
--newer-mtime --no-acls --no-anchored --no-auto-compress --no-check-device
--no-delay-directory-restore --no-ignore-case --no-ignore-command-error --no-null
--no-overwrite-dir --no-quote-chars --no-recursion --no-same-owner --no-same-permissions --no-seek
--no-selinux --no-unquote --no-verbatim-files-from --no-wildcards --no-wildcards-match-slash
--no-xattrs --null --numeric-owner --occurrence --old-archive --one-file-system --one-top-level
--overwrite --overwrite-dir --owner --owner-map --pax-option --portability --posix --preserve
--preserve-order --preserve-permissions --quote-chars --quoting-style --read-full-records
--record-size --recursion --recursive-unlink --remove-files --restrict --rmt-command --rsh-command
--same-order --same-owner --same-permissions --seek --selinux --show-defaults --show-omitted-dirs
--show-snapshot-field-ranges --show-stored-names --show-transformed-names --skip-old-files --sort
--sparse --sparse-version --starting-file --strip-components --suffix --tape-length --to-command
--to-stdout --totals --touch --transform --uncompress --ungzip --unlink-first --unquote --update
--usage --use-compress-program --utc --verbatim-files-from --verbose --verify --version
--volno-file --warning --wildcards --wildcards-match-slash --xattrs --xattrs-exclude
--xattrs-include --xform --xz --zstd`)

// getoptArgs rewrites the options of a command that reads them with
// getopt_long into one word per option, so that a handler matching whole
// words sees every spelling: a cluster of short options split into its
// letters ("-sE" is "-s" "-E"), a value attached to a short option moved
// to the next word ("-ecmd" is "-e" "cmd"), a long option given as a
// unique prefix of longs spelled out ("--ev=x" is "--eval=x"). spec lists
// the short options as getopt does: a letter followed by ":" takes a value,
// by "::" an optional one, which only an attached value gives ("-j4").
// longs ending in "=" take a value (in the next word when not attached).
// A value, an operand, a dynamic word and everything after "--" are
// kept as they are.
func getoptArgs(args []field, spec string, longs []string) []field {
	names := make([]string, len(longs))
	takes := map[string]bool{}
	for i, l := range longs {
		n, v := strings.CutSuffix(l, "=")
		names[i] = n
		takes[n] = v
	}
	arg := func(c byte) int { // 0 none, 1 required, 2 optional
		i := strings.IndexByte(spec, c)
		switch {
		case i < 0 || c == ':':
			return 0
		case strings.HasPrefix(spec[i+1:], "::"):
			return 2
		case strings.HasPrefix(spec[i+1:], ":"):
			return 1
		}
		return 0
	}
	word := func(t string, like field) field { return field{text: t, pattern: t, dynamic: like.dynamic} }
	out := make([]field, 0, len(args))
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case t == "--":
			return append(out, args[k:]...)
		case a.dynamic && strings.HasPrefix(a.pattern, "-") && !strings.HasPrefix(a.pattern, "--"):
			// -ave"$R": the letters before the unknown part are known; a
			// value letter among them takes the rest, unknown
			out = append(out, dynamicCluster(a, arg)...)
		case a.dynamic || len(t) < 2 || t[0] != '-':
			out = append(out, a)
		case strings.HasPrefix(t, "--"):
			key, val, eq := strings.Cut(t, "=")
			full := longPrefix(key, slices.Values(names))
			if eq {
				out = append(out, word(full+"="+val, a))
				continue
			}
			out = append(out, word(full, a))
			if takes[full] && k+1 < len(args) {
				k++
				out = append(out, args[k])
			}
		default:
			for j := 1; j < len(t); j++ {
				c := t[j]
				out = append(out, word("-"+string(c), a))
				n := arg(c)
				if n == 0 {
					continue
				}
				if j+1 < len(t) {
					out = append(out, word(t[j+1:], a))
				} else if n == 1 && k+1 < len(args) {
					k++
					out = append(out, args[k])
				}
				break
			}
		}
	}
	return out
}

// dynamicCluster splits a short-option cluster whose end is known only at
// run time (pattern "-ave*"): the known letters each a word, and the rest
// (from a letter that takes a value, or from the unknown part) one dynamic
// word, so that a value letter before it is seen with an unknown value.
func dynamicCluster(a field, arg func(byte) int) []field {
	var out []field
	for j := 1; j < len(a.pattern) && j < len(a.text); j++ {
		c := a.pattern[j]
		if c == '*' || a.text[j] != c {
			break
		}
		out = append(out, field{text: "-" + string(c), pattern: "-" + string(c)})
		if arg(c) != 0 {
			return append(out, field{text: a.text[j+1:], pattern: a.pattern[j+1:], dynamic: true})
		}
	}
	return append(out, a)
}
