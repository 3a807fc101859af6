package parser

import (
	"maps"
	"strings"
)

// spec says which arguments of a command are paths and how it uses them.
type spec struct {
	opts    string            // getopt-style short options; a letter followed by ':' takes a value
	optRole map[byte]string   // role of a short option's value (default: data)
	long    map[string]string // long options that take a value, with the value's role
	skip    int               // leading operands that are data (pattern, mode, program)
	noSkip  string            // short options that cancel skip (grep -e, sed -f)
	role    string            // operands: read | write | delete | exec | data | cwd | copy | move | guess
	inPlace string            // short options turning read operands into writes (sed -i)
	// dashLong: long options take one dash (openssl -in FILE); they are
	// looked up in long.
	dashLong bool
}

func roles(pairs ...string) map[byte]string {
	m := map[byte]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i][0]] = pairs[i+1]
	}
	return m
}

func longs(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

var (
	cc       = spec{opts: "o:I:L:l:D:U:x:", optRole: roles("o", "write"), role: "guess"}
	readSpec = spec{role: "read"}
	dataSpec = spec{role: "data"}
	zstdSpec = spec{opts: "o:", optRole: roles("o", "write"), long: longs("--output-dir-flat", "write", "--output-dir-mirror", "write", "--filelist", "read"), role: "write"}
	grepSpec = spec{opts: "e:f:m:A:B:C:d:D:", optRole: roles("f", "read"), long: longs("--file", "read", "--regexp", "data", "--include", "data", "--exclude", "data", "--exclude-dir", "data", "--exclude-from", "read", "--max-count", "data", "--context", "data"), skip: 1, noSkip: "ef", role: "read"}
)

var specs = map[string]spec{
	"cat": readSpec, "tac": readSpec, "nl": {opts: "b:d:f:h:i:l:n:s:v:w:", role: "read"},
	"head": {opts: "n:c:", role: "read"}, "tail": {opts: "n:c:s:", role: "read"},
	"less": {opts: "b:h:j:k:o:O:p:P:t:T:x:y:z:", optRole: roles("o", "write", "O", "write", "k", "read"), role: "read"},
	"more": readSpec, "most": readSpec, "wc": readSpec, "file": {opts: "e:F:m:P:", role: "read"},
	"od": {opts: "A:j:N:S:t:w:", role: "read"}, "hexdump": {opts: "e:f:n:s:", optRole: roles("f", "read"), role: "read"},
	"xxd": {opts: "c:g:l:o:s:C:n:", role: "copy"}, "strings": {opts: "n:t:e:", role: "read"},
	"stat":   {opts: "c:", long: longs("--format", "data", "--printf", "data"), role: "read"},
	"md5sum": readSpec, "sha1sum": readSpec, "sha224sum": readSpec, "sha256sum": readSpec, "sha384sum": readSpec,
	"sha512sum": readSpec, "b2sum": readSpec, "cksum": readSpec, "sum": readSpec, "shasum": {opts: "a:", role: "read"},
	"base64": {opts: "w:", role: "read"}, "base32": {opts: "w:", role: "read"}, "basenc": readSpec,
	"cut": {opts: "b:c:d:f:", role: "read"}, "paste": {opts: "d:", role: "read"},
	"sort": {opts: "k:t:o:S:T:", optRole: roles("o", "write"), long: longs("--output", "write", "--files0-from", "read", "--compress-program", "data"), role: "read"},
	"uniq": {opts: "f:s:w:", role: "copy"}, "fold": {opts: "w:", role: "read"}, "fmt": {opts: "w:", role: "read"},
	"pr": readSpec, "column": {opts: "c:s:o:t", role: "read"}, "expand": {opts: "t:", role: "read"}, "unexpand": {opts: "t:", role: "read"},
	"comm": readSpec, "join": {opts: "t:1:2:j:o:e:", role: "read"},
	"tr":   dataSpec, // character sets, not files
	"diff": {opts: "x:X:I:L:F:C:U:", optRole: roles("X", "read"), role: "read"}, "cmp": {opts: "i:n:", role: "read"},
	"diff3": readSpec, "sdiff": {opts: "o:w:", optRole: roles("o", "write"), role: "read"}, "colordiff": readSpec,
	"readlink": readSpec, "realpath": readSpec, "ls": {opts: "I:w:T:", long: longs("--ignore", "data", "--hide", "data"), role: "read"},
	"dir": readSpec, "vdir": readSpec, "tree": {opts: "I:L:P:o:", optRole: roles("o", "write"), role: "read"},
	"du": {opts: "d:B:t:X:", optRole: roles("X", "read"), role: "read"}, "lsattr": readSpec, "getfacl": readSpec,
	"bat": {opts: "l:r:H:", role: "read"}, "batcat": {opts: "l:r:H:", role: "read"}, "iconv": {opts: "f:t:o:", optRole: roles("o", "write"), long: longs("--output", "write", "--from-code", "data", "--to-code", "data"), role: "read"},
	"jq":   {opts: "f:L:", optRole: roles("f", "read"), long: longs("--from-file", "read", "--indent", "data"), skip: 1, noSkip: "f", role: "read"},
	"yq":   {skip: 1, role: "read"},
	"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec, "zgrep": grepSpec, "rgrep": grepSpec,
	"rg":    {opts: "e:f:g:t:T:m:A:B:C:j:M:E:", optRole: roles("f", "read"), long: longs("--glob", "data", "--type", "data", "--regexp", "data", "--file", "read", "--max-count", "data", "--replace", "data", "--ignore-file", "read", "--pre", "exec"), skip: 1, noSkip: "ef", role: "read"},
	"ag":    {opts: "G:g:A:B:C:m:", skip: 1, role: "read"},
	"ack":   {skip: 1, role: "read"},
	"sed":   {opts: "e:f:l:E", optRole: roles("f", "read"), long: longs("--expression", "data", "--file", "read"), skip: 1, noSkip: "ef", inPlace: "i", role: "read"},
	"perl":  {opts: "e:E:I:M:m:x:", skip: 0, inPlace: "i", role: "exec"},
	"touch": {opts: "d:t:r:", optRole: roles("r", "read"), role: "write"}, "mkdir": {opts: "m:", role: "write"},
	"mkfifo": {opts: "m:", role: "write"}, "mknod": {opts: "m:", role: "write"}, "truncate": {opts: "s:r:", optRole: roles("r", "read"), role: "write"},
	"tee": {role: "write"}, "rm": {role: "delete"}, "rmdir": {role: "delete"}, "unlink": {role: "delete"},
	"shred": {opts: "n:s:", role: "delete"}, "wipe": {role: "delete"}, "srm": {role: "delete"},
	"cp":      {opts: "t:S:", optRole: roles("t", "write"), long: longs("--target-directory", "write", "--suffix", "data"), role: "copy"},
	"install": {opts: "m:o:g:t:S:", optRole: roles("t", "write"), long: longs("--target-directory", "write", "--mode", "data", "--owner", "data", "--group", "data", "--suffix", "data"), role: "copy"},
	"mv":      {opts: "t:S:", optRole: roles("t", "write"), long: longs("--target-directory", "write"), role: "move"},
	"ln":      {opts: "t:S:", optRole: roles("t", "write"), long: longs("--target-directory", "write", "--suffix", "data"), role: "link"},
	"chmod":   {long: longs("--reference", "read"), skip: 1, role: "write"}, "chown": {long: longs("--reference", "read"), skip: 1, role: "write"},
	"chgrp": {long: longs("--reference", "read"), skip: 1, role: "write"}, "chattr": {skip: 1, role: "write"},
	"setfacl": {opts: "m:x:M:X:", role: "write"}, "setcap": {skip: 1, role: "write"},
	"zip": {opts: "x:i:", role: "archive"}, "unzip": {opts: "d:x:", optRole: roles("d", "write"), role: "read"},
	"gzip": {opts: "S:", role: "write"}, "gunzip": {opts: "S:", role: "write"}, "bzip2": {role: "write"}, "bunzip2": {role: "write"},
	"xz": {role: "write"}, "unxz": {role: "write"}, "zstd": zstdSpec, "unzstd": zstdSpec, "zstdmt": zstdSpec, "pzstd": zstdSpec, "lz4": {role: "write"},
	"lzop": {opts: "o:p:", optRole: roles("o", "write", "p", "write"), role: "write"}, "lzip": {opts: "o:", optRole: roles("o", "write"), role: "write"},
	"compress": {role: "write"}, "uncompress": {role: "write"}, "dos2unix": {role: "write"}, "unix2dos": {role: "write"}, "mac2unix": {role: "write"},
	"zcat": readSpec, "bzcat": readSpec, "xzcat": readSpec, "zless": readSpec,
	"source": {role: "exec"}, ".": {role: "exec"},
	"vi": {opts: "c:", role: "write"}, "vim": {opts: "c:", role: "write"}, "nano": {role: "write"}, "emacs": {role: "write"}, "ed": {role: "write"}, "ex": {role: "write"},
	"patch": {opts: "i:o:p:d:r:B:", optRole: roles("i", "read", "o", "write", "d", "cwd", "r", "write"),
		long: longs("--input", "read", "--output", "write", "--directory", "cwd", "--reject-file", "write", "--strip", "data", "--prefix", "data", "--suffix", "data"), role: "write"},
	"curl": {opts: "o:T:K:d:F:b:c:D:H:A:e:u:X:x:E:m:w:r:Y:y:z:U:", optRole: roles("o", "write", "T", "upload", "d", "at", "F", "at", "K", "read", "c", "write", "D", "write", "E", "read"),
		long: longs("--output", "write", "--upload-file", "upload", "--config", "read", "--data", "at", "--data-binary", "at", "--data-raw", "data", "--data-urlencode", "at", "--data-ascii", "at", "--json", "at",
			"--form", "at", "--cookie", "data", "--cookie-jar", "write", "--dump-header", "write", "--header", "data", "--user-agent", "data", "--user", "data", "--request", "data",
			"--cacert", "read", "--cert", "read", "--key", "read", "--proxy", "data", "--max-time", "data", "--write-out", "data", "--url", "data", "--output-dir", "write", "--connect-timeout", "data", "--retry", "data"),
		role: "data"},
	"wget": {opts: "O:o:a:P:i:t:T:U:e:", optRole: roles("O", "write", "o", "write", "a", "write", "P", "write", "i", "read"),
		long: longs("--output-document", "write", "--output-file", "write", "--directory-prefix", "write", "--input-file", "read", "--post-file", "upload", "--body-file", "upload",
			"--load-cookies", "read", "--save-cookies", "write", "--header", "data", "--user-agent", "data", "--post-data", "data"), role: "data"},
	// D-Bus clients: object paths (/org/freedesktop/…), bus names and
	// method arguments, no files
	"busctl": {opts: "H:M:", role: "data"}, "dbus-send": dataSpec, "qdbus": dataSpec, "gdbus": dataSpec, "dbus-monitor": dataSpec,
	"ssh":   {opts: "i:F:o:l:p:E:b:c:D:e:I:J:L:m:O:Q:R:S:W:w:B:", optRole: roles("i", "read", "F", "read", "E", "write"), role: "data"},
	"scp":   {opts: "i:F:o:P:l:c:S:J:", optRole: roles("i", "read", "F", "read"), role: "copy"},
	"rsync": {opts: "e:f:B:T:", long: longs("--exclude-from", "read", "--include-from", "read", "--files-from", "read", "--rsh", "data", "--exclude", "data", "--include", "data", "--filter", "data", "--password-file", "read", "--log-file", "write"), role: "copy"},
	"sftp":  {opts: "i:F:o:P:b:", optRole: roles("i", "read", "F", "read", "b", "read"), role: "data"},
	"make":  {opts: "C:f:j:l:o:W:I:", optRole: roles("C", "cwd", "f", "read"), long: longs("--directory", "cwd", "--file", "read", "--makefile", "read"), role: "data"},
	"cd":    {role: "cwd"}, "pushd": {role: "cwd"},
	"split": {opts: "a:b:l:n:C:", role: "read"}, "csplit": {opts: "f:b:n:", long: longs("--prefix", "data", "--suffix-format", "data", "--digits", "data"), role: "guess"},
	"enable":     {opts: "f:", optRole: roles("f", "exec"), role: "data"},
	"sponge":     {opts: "a", role: "write"},
	"fallocate":  {opts: "l:o:n", role: "write"},
	"mktemp":     {opts: "p:t", optRole: roles("p", "write"), long: longs("--tmpdir", "write", "--suffix", "data"), role: "write"},
	"sqlite3":    {opts: "", long: longs("-cmd", "data", "-init", "read", "-separator", "data"), role: "archive"},
	"ssh-keygen": {opts: "f:t:b:C:N:P:I:n:O:V:z:Y:s:", optRole: roles("f", "write", "s", "read"), role: "data"},
	"pandoc":     {opts: "o:f:t:", optRole: roles("o", "write"), long: longs("--output", "write", "--template", "read", "--lua-filter", "exec", "--filter", "exec"), role: "read"},
	"cmake":      {opts: "B:S:G:D:C:", optRole: roles("B", "write", "S", "read", "C", "read"), long: longs("--install-prefix", "write", "--toolchain", "read", "--build", "write", "--install", "read", "--prefix", "write"), role: "guess"},
	"ar":         {role: "archive", skip: 1},
	"objcopy":    {role: "copy"},
	"strip":      {opts: "o:", optRole: roles("o", "write"), role: "write"},
	"7z":         {opts: "o:p:w:", optRole: roles("o", "write", "w", "write"), role: "archive", skip: 1},
	"npm":        {long: longs("--pack-destination", "write", "--prefix", "write", "--cache", "write", "--userconfig", "read", "--globalconfig", "read"), role: "data"},
	"wget2":      {opts: "O:o:P:", optRole: roles("O", "write", "o", "write", "P", "write"), role: "data"},
	"openssl":    {dashLong: true, long: longs("-in", "read", "-out", "write", "-key", "read", "-inkey", "read", "-cert", "read", "-certfile", "read", "-CAfile", "read", "-CAkey", "read", "-signkey", "read", "-config", "read", "-keyout", "write", "-passin", "data", "-passout", "data", "-pass", "data", "-subj", "data", "-days", "data", "-name", "data"), role: "guess"},
	"go": {dashLong: true, long: longs("-o", "write", "-C", "cwd", "-modfile", "read", "-coverprofile", "write", "-cpuprofile", "write", "-memprofile", "write",
		"-blockprofile", "write", "-mutexprofile", "write", "-trace", "write", "-outputdir", "write", "-toolexec", "data", "-exec", "data", "-vettool", "data",
		"-overlay", "data", "-pgo", "data", "-tags", "data", "-ldflags", "data", "-gcflags", "data", "-run", "data", "-bench", "data", "-count", "data", "-timeout", "data", "-p", "data", "-covermode", "data", "-coverpkg", "data", "-mod", "data", "-buildmode", "data", "-benchtime", "data", "-parallel", "data", "-skip", "data", "-shuffle", "data", "-fuzz", "data", "-fuzztime", "data", "-asmflags", "data"), role: "guess"},
	"gcc": cc, "cc": cc, "g++": cc, "c++": cc, "clang": cc, "clang++": cc, "tcc": cc,
	"rustc":   {opts: "o:L:l:C:", optRole: roles("o", "write"), long: longs("--out-dir", "write", "-o", "write"), role: "guess"},
	"javac":   {opts: "d:s:h:", optRole: roles("d", "write", "s", "write", "h", "write"), role: "guess"},
	"cargo":   {long: longs("--target-dir", "write", "--manifest-path", "read", "--config", "data", "--out-dir", "write"), role: "guess"},
	"kubectl": {long: longs("--kubeconfig", "read", "--filename", "read", "--token", "data", "--namespace", "data", "--context", "data", "--output", "data"), opts: "f:n:o:l:c:", optRole: roles("f", "read"), role: "guess"},
	"helm":    {long: longs("--kubeconfig", "read", "--values", "read", "--namespace", "data"), opts: "f:n:", optRole: roles("f", "read"), role: "guess"}, "gpg": {opts: "o:r:u:", optRole: roles("o", "write"), long: longs("--output", "write", "--recipient", "data", "--local-user", "data", "--homedir", "read"), role: "read"},
}

// dataCommands take no path operands at all.
var dataCommands = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true, "test": true, "[": true, "expr": true,
	"seq": true, "sleep": true, "yes": true, "date": true, "whoami": true, "id": true, "uname": true, "hostname": true,
	"pwd": true, "basename": true, "dirname": true, "type": true, "which": true, "hash": true, "help": true,
	"set": true, "unset": true, "shift": true, "exit": true, "return": true, "wait": true, "jobs": true, "kill": true,
	"pkill": true, "killall": true, "export": true, "let": true, "read": true, "printenv": true, "locale": true,
	"nproc": true, "free": true, "uptime": true, "ps": true, "top": true, "df": true, "lsblk": true, "ip": true,
	"ifconfig": true, "ss": true, "netstat": true, "clear": true, "tput": true, "stty": true, "getent": true,
	"nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true, "ping": true, "dig": true, "nslookup": true, "host": true, "traceroute": true, "whois": true,
	"docker": true, "podman": true, "systemctl": true, "service": true, "journalctl": true,
	"crontab": false, "at": true, "shutdown": true, "reboot": true, "poweroff": true, "halt": true, "init": true,
	"sudo": true, "su": true, "doas": true, "history": true, "alias": true, "unalias": true, "trap": true,
	"npx": true, "yarn": true, "pnpm": true, "pip": true, "pip3": true, "cargo": true, "rustc": false,
	"mvn": true, "gradle": true, "apt": true, "apt-get": true, "dpkg": true, "brew": true, "gem": true, "bundle": true,
	"kill9": true, "env": true, "mkfs": true, "fdisk": true, "parted": true, "wipefs": true, "sysctl": true,
	"iptables": true, "ip6tables": true, "nft": true, "ufw": true, "firewall-cmd": true, "modprobe": true, "insmod": false, "rmmod": true,
	"mount": false, "umount": false, "format": true, "del": true, "diskpart": true,
}

// lookupSpec returns the argument spec of a command, or a guessing spec.
func lookupSpec(name string) spec {
	if s, ok := specs[name]; ok {
		return s
	}
	if dataCommands[name] {
		return dataSpec
	}
	if strings.HasPrefix(name, "mkfs") {
		return dataSpec
	}
	return spec{role: "guess"}
}

// abbrev expands a long option written as a prefix (cp --target=DIR,
// sort --out=F), as getopt_long does when the prefix names one option: the
// spec's long option it begins, when exactly one does; else key itself.
// (A prefix the real program finds ambiguous makes it fail; one that
// means an option the spec does not list is taken for the listed one,
// which errs toward treating its value as a path.)
func (sp spec) abbrev(key string) string {
	return longPrefix(key, maps.Keys(sp.long))
}

// operand is an argument with the role it plays.
type operand struct {
	f    field
	role string
}

// classifyArgs splits argv[1:] into path operands with roles; data operands
// are dropped. It implements getopt-style option parsing driven by spec.
func classifyArgs(name string, sp spec, args []field) []operand {
	var out []operand
	var operands []field
	var afterOpt []bool // operand i directly follows an option word
	skipCancelled, inPlace := false, false
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if endOpts || a.dynamic || len(t) < 2 || t[0] != '-' {
			prev := i > 0 && len(args[i-1].text) > 1 && args[i-1].text[0] == '-' && !strings.Contains(args[i-1].text, "=")
			operands = append(operands, a)
			afterOpt = append(afterOpt, prev && !endOpts)
			continue
		}
		if t == "--" {
			endOpts = true
			continue
		}
		if strings.HasPrefix(t, "--") || sp.dashLong {
			key, val, eq := strings.Cut(t, "=")
			if sp.dashLong && strings.HasPrefix(key, "--") {
				key = key[1:] // go accepts --flag for -flag
			}
			if _, ok := sp.long[key]; !ok && !sp.dashLong {
				key = sp.abbrev(key) // getopt takes unambiguous prefixes
			}
			role, takes := sp.long[key]
			if !eq && takes && i+1 < len(args) {
				i++
				val = args[i].text
				out = appendOpt(out, role, args[i])
			} else if eq {
				vf := field{text: val, pattern: strings.TrimPrefix(a.pattern, key+"="), dynamic: a.dynamic, subst: a.subst, wild: a.wild}
				if takes {
					out = appendOpt(out, role, vf)
				} else if looksLikePath(val) || a.wild {
					out = append(out, operand{vf, "guessed"})
				}
			}
			if key == "--in-place" || sp.inPlace != "" && len(key) >= 3 && strings.HasPrefix("--in-place", key) {
				inPlace = true
			}
			if key == "--regexp" || key == "--file" || key == "--expression" || key == "--from-file" {
				skipCancelled = true
			}
			continue
		}
		// a cluster of short options
		for j := 1; j < len(t); j++ {
			ch := t[j]
			if strings.IndexByte(sp.noSkip, ch) >= 0 {
				skipCancelled = true
			}
			if strings.IndexByte(sp.inPlace, ch) >= 0 {
				inPlace = true
			}
			k := strings.IndexByte(sp.opts, ch)
			if k >= 0 && k+1 < len(sp.opts) && sp.opts[k+1] == ':' {
				var v field
				if j+1 < len(t) {
					s := t[j+1:]
					v = field{text: s, pattern: s}
				} else if i+1 < len(args) {
					i++
					v = args[i]
				}
				out = appendOpt(out, sp.optRole[ch], v)
				break
			}
		}
	}
	if !skipCancelled && sp.skip > 0 {
		if len(operands) > sp.skip {
			operands = operands[sp.skip:]
			afterOpt = afterOpt[sp.skip:]
		} else {
			operands, afterOpt = nil, nil
		}
	}
	role := sp.role
	if inPlace && role == "read" {
		role = "write"
	}
	if role != "data" && name != "curl" {
		// browsers, xmllint, ffmpeg … open file: URLs (curl's are its own)
		for _, o := range operands {
			if p, ok := fileURLPath(o, false); ok {
				out = append(out, operand{p, "read"})
			}
		}
	}
	switch role {
	case "data":
	case "copy", "move", "link", "archive":
		first, rest := "read", "write"
		if role == "move" {
			first = "delete"
		}
		// -t DIR (--target-directory): every operand is a source
		targeted := role != "archive" && strings.Contains(sp.opts, "t:") && hasOpt(args, 't', "--target-directory")
		for k, o := range operands {
			if remote(o.text) && !o.dynamic {
				continue // (a dynamic word may hold a ":" of its own: ${X:-y})
			}
			switch {
			case role == "archive" && k == 0:
				out = append(out, operand{o, "write"})
			case role == "archive":
				out = append(out, operand{o, "read"})
			case k == len(operands)-1 && len(operands) > 1 && !targeted:
				out = append(out, operand{o, rest})
			default:
				out = append(out, operand{o, first})
			}
		}
	case "guess":
		for k := 0; k < len(args); k++ {
			a := args[k]
			t := a.text
			// options that name an output, for commands not in the table
			if (t == "-o" || t == "--output" || t == "--out" || t == "--outdir" || t == "--output-dir" || t == "--prefix" || t == "--target" || t == "--dest" || t == "--destination") && k+1 < len(args) {
				out = append(out, operand{args[k+1], "write"})
			}
			for _, pre := range []string{"--output=", "--out=", "--outdir=", "--output-dir=", "--prefix=", "--dest=", "--destination=", "--basetemp=", "--target-dir="} {
				if v, ok := strings.CutPrefix(t, pre); ok {
					out = append(out, operand{field{text: v, pattern: v, dynamic: a.dynamic}, "write"})
				}
			}
		}
		for k, o := range operands {
			switch {
			case !o.dynamic && buildLabel(name, o.text):
				// a target label names a package of the build's own
				// workspace (the one around the cwd), not a file
			case o.dynamic || o.glob:
				out = append(out, operand{o, "read"})
			case looksLikePath(o.text) && (afterOpt[k] || strings.ContainsAny(o.text, "()|^$*\\")):
				// an option's value or a pattern that merely looks like a path
				out = append(out, operand{o, "guessed"})
			case looksLikePath(o.text):
				out = append(out, operand{o, "read"})
			default:
				out = append(out, operand{o, "maybe"})
			}
		}
	default:
		for _, o := range operands {
			out = append(out, operand{o, role})
		}
	}
	return out
}

// buildLabel says whether an operand of bazel (bazelisk, buck2) is a
// target label or pattern rooted at the build's workspace: //pkg:t,
// //src/..., a negative -//pkg/... after "--". Taken as a path it would be
// a file below /; no ".." may appear in one.
func buildLabel(name, t string) bool {
	switch name {
	case "bazel", "bazelisk", "buck", "buck2":
	default:
		return false
	}
	t = strings.TrimPrefix(t, "-")
	if !strings.HasPrefix(t, "//") || strings.HasPrefix(t, "///") {
		return false
	}
	pkg, _, _ := strings.Cut(t[2:], ":")
	for _, c := range strings.Split(pkg, "/") {
		if c == ".." || c == "." {
			return false
		}
	}
	return true
}

func appendOpt(out []operand, role string, v field) []operand {
	switch role {
	case "", "data":
		return out
	case "at": // curl -d @file, -F name=@file, --data-urlencode name@file
		t := v.text
		if i := strings.IndexAny(t, "@<"); i >= 0 && (i == 0 || strings.Contains(t[:i], "=") || isName(t[:i])) {
			p := t[i+1:]
			if j := strings.IndexByte(p, ';'); j >= 0 {
				p = p[:j]
			}
			if p == "-" {
				p = "/dev/stdin" // uploads whatever is on stdin
			}
			if p != "" {
				return append(out, operand{field{text: p, pattern: p, dynamic: v.dynamic}, "upload"})
			}
		}
		return out
	}
	return append(out, operand{v, role})
}

func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// looksLikePath is the rule for commands not in the table: an argument is a
// path when it contains "/", starts with "~" or ".".
func looksLikePath(s string) bool {
	if s == "" || strings.Contains(s, "://") {
		return false
	}
	return strings.Contains(s, "/") || s[0] == '~' || s[0] == '.'
}

// remote reports whether an scp/rsync operand names another host (host:path).
func remote(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	return !strings.Contains(s[:i], "/")
}
