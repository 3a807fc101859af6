package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// DefaultMask lists the argument fields stored as their size and SHA-256
// instead of their text: file contents are bulky, and often private.
var DefaultMask = []string{"write_file.content", "edit_file.old_text", "edit_file.new_text"}

// Masked is what replaces a masked field.
type Masked struct {
	Masked bool   `json:"masked"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// secretPatterns find credentials in argument text. Each match is replaced
// by "[REDACTED]"; a group named keep is kept (the "password=" before a
// value, say). Each is compiled when a text first holds its needles, not
// at every start: a short-lived process (a hook) recording `ls` compiles
// none, where compiling all eleven cost it 88 KB of fresh heap.
var secretPatterns = func() []func() *regexp.Regexp {
	out := make([]func() *regexp.Regexp, len(secretSources))
	for i, src := range secretSources {
		out[i] = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
	}
	return out
}()

// secretSources are the patterns' sources.
var secretSources = []string{
	`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`,
	`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
	`\bgh[pousr]_[A-Za-z0-9]{30,}\b`,
	`\bgithub_pat_[A-Za-z0-9_]{40,}\b`,
	`\bglpat-[A-Za-z0-9_-]{20,}\b`,
	`\bxox[abprs]-[A-Za-z0-9-]{10,}\b`,
	`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b`,
	`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`,
	`(?i)(?P<keep>\bbearer\s+)[A-Za-z0-9._~+/=-]{12,}`,
	`(?i)(?P<keep>\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\s*[=:]\s*)(?:"[^"]*"|'[^']*'|[^\s&;'"]+)`,
	`(?P<keep>://[^/\s:@]+:)[^/\s@]+(?P<keep2>@)`,
}

// secretNeedles are, for each of secretPatterns, lower-case strings one of
// which every match contains: a pattern none of whose needles is in the
// (ASCII-lowered) text cannot match it, and is not run. Most text holds no
// credential, and eleven regular expressions cost more than the rest of a
// record.
var secretNeedles = [][]string{
	{"-----begin "},
	{"akia", "asia"},
	{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
	{"github_pat_"},
	{"glpat-"},
	{"xox"},
	{"sk-"},
	{"eyj"},
	{"bearer"},
	keywordNeedles,
	{"://"},
}

// keywordNeedles are the keyword pattern's needles, which keywordAssigned
// also reads.
var keywordNeedles = []string{"passw", "pwd", "secret", "token", "key"}

// secretGates refine the needles where a needle alone is common in
// ordinary text (rule messages say "secret" and "key"; URLs hold "://"):
// given the lowered text, a gate reports whether a match is still
// possible. nil: the needles decide.
var secretGates = []func(lower string) bool{
	nil, nil, nil, nil, nil, nil, nil, nil, nil,
	keywordAssigned,
	userinfoPossible,
}

// keywordAssigned: some needle of the keyword pattern is followed by the
// rest of a word ([a-z_-]), optional white space, and "=" or ":", which
// every match of that pattern has.
func keywordAssigned(lower string) bool {
	for _, n := range keywordNeedles {
		for from := 0; ; {
			i := strings.Index(lower[from:], n)
			if i < 0 {
				break
			}
			j := from + i + len(n)
			for j < len(lower) && (lower[j] >= 'a' && lower[j] <= 'z' || lower[j] == '_' || lower[j] == '-') {
				j++
			}
			for j < len(lower) && isSpace(lower[j]) {
				j++
			}
			if j < len(lower) && (lower[j] == '=' || lower[j] == ':') {
				return true
			}
			from += i + 1
		}
	}
	return false
}

// userinfoPossible: some "://" is followed by an "@" before any "/" or
// white space, as a user:password@ part is.
func userinfoPossible(lower string) bool {
	for from := 0; ; {
		i := strings.Index(lower[from:], "://")
		if i < 0 {
			return false
		}
		j := from + i + 3
		for j < len(lower) && lower[j] != '/' && !isSpace(lower[j]) {
			if lower[j] == '@' {
				return true
			}
			j++
		}
		from += i + 1
	}
}

// isSpace is RE2's \s: space, \t, \n, \f, \r (not \v).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// redacted replaces a match, keeping the groups named keep and keep2 (a
// name a pattern lacks expands to nothing).
const redacted = "${keep}[REDACTED]${keep2}"

// Redact replaces credentials found in s.
func Redact(s string) string {
	lower := foldLower(s)
	for i, re := range secretPatterns {
		if !containsAny(lower, secretNeedles[i]) || secretGates[i] != nil && !secretGates[i](lower) {
			continue
		}
		s = re().ReplaceAllString(s, redacted)
		lower = foldLower(s)
	}
	return s
}

// foldLower lowers s for the needles and gates. A case-insensitive pattern
// also matches letters outside ASCII whose case folding reaches an ASCII
// letter (the Kelvin sign matches k, the long s matches s): each such rune
// becomes that ASCII letter, lowered, so what the pattern can match still
// holds a needle. Bytes that are not valid UTF-8 become U+FFFD, as the
// matcher reads them.
func foldLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.Map(foldRune, s)
		}
	}
	return strings.ToLower(s)
}

func foldRune(r rune) rune {
	if r < 0x80 {
		return unicode.ToLower(r)
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < 0x80 {
			return unicode.ToLower(f)
		}
	}
	return unicode.ToLower(r)
}

func containsAny(s string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// MaskArgs returns a call's arguments for the log: fields named in mask
// ("tool.field") become Masked, and every other string is redacted.
// Arguments that are not a JSON object are kept as a redacted string.
func MaskArgs(tool string, args json.RawMessage, mask []string) json.RawMessage {
	if len(args) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil || obj == nil {
		b, _ := json.Marshal(Redact(string(args)))
		return b
	}
	for _, m := range mask {
		t, field, ok := strings.Cut(m, ".")
		if !ok || t != tool {
			continue
		}
		if s, ok := obj[field].(string); ok {
			sum := sha256.Sum256([]byte(s))
			obj[field] = Masked{Masked: true, Bytes: len(s), SHA256: hex.EncodeToString(sum[:])}
		}
	}
	for k, v := range obj {
		obj[k] = redactValue(v, 0)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return b
}

func redactValue(v any, depth int) any {
	if depth > 32 {
		return "[too deep]"
	}
	switch x := v.(type) {
	case string:
		return Redact(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], depth+1)
		}
	case map[string]any:
		for k := range x {
			x[k] = redactValue(x[k], depth+1)
		}
	}
	return v
}

// OutputDigest is the size and SHA-256 of a tool's output, for an outcome
// record.
func OutputDigest(out string) (int64, string) {
	sum := sha256.Sum256([]byte(out))
	return int64(len(out)), "sha256:" + hex.EncodeToString(sum[:])
}
