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
