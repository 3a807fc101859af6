package tools

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Result is what a file tool returns to the model.
type Result struct {
	Output string
	// IsError is set for every "Error: ..." output and for edit_file's
	// warning about several matches: the call did not do what was asked.
	IsError bool
	// Truncated is set when read_file cut its output at ReadMaxChars.
	Truncated bool
}

func errorf(format string, a ...any) Result {
	return Result{Output: fmt.Sprintf(format, a...), IsError: true}
}

// Limits of the walking tools. They bound the work one call can cause, so a
// huge or hostile tree costs a bounded amount of time and memory.
const (
	// listMax is the number of entries list_dir and glob show.
	listMax = 1000
	// searchMaxFileBytes: search skips larger files.
	searchMaxFileBytes = 4 << 20
	// searchSniffBytes: a NUL byte this close to the start marks a binary
	// file, which search skips.
	searchSniffBytes = 8 << 10
	// searchMaxLineRunes is where search cuts a matching line.
	searchMaxLineRunes = 500
	// maxBraceExpansions bounds the patterns one glob expands to, as the
	// policy analyser does.
	maxBraceExpansions = 64
)

// Work bounds of search and glob; variables so tests can lower them.
var (
	// walkMaxEntries bounds the directory entries search visits and glob
	// reads.
	walkMaxEntries = 100_000
	// searchMaxBytes bounds the bytes search reads over all files.
	searchMaxBytes int64 = 256 << 20
)

// commonError turns the errors every tool shares into their message; ok is
// false for any other error. p is the path as the caller gave it.
func commonError(err error, p string) (Result, bool) {
	switch {
	case errors.Is(err, errOutside):
		return errorf("Error: Path %s is outside the workspace", p), true
	case errors.Is(err, errNUL):
		return errorf("Error: Path contains a NUL byte"), true
	case errors.Is(err, errClosed):
		return errorf("Error: The workspace is closed"), true
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return errorf("Error: Permission denied: %s", p), true
	}
	return Result{}, false
}

// isNotFound is true for the errors of a path that does not lead to
// anything: a missing name, a file used as a directory ("f.txt/x") and a
// symlink loop. Python's Path.exists() is false for all three, and the
// messages follow the seed.
func isNotFound(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
}

// describe writes err for an "Error ...: <err>" message, naming the path the
// caller gave when err does not already name one.
func describe(err error, p string) string {
	var pe *pathErr
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return p + ": " + err.Error()
}

// errNotFile means a path leads to something other than a regular file.
var errNotFile = errors.New("not a regular file")

// tooLargeError means a file is over ReadMaxBytes.
type tooLargeError struct{ size int64 }

func (e tooLargeError) Error() string { return fmt.Sprintf("file is %d bytes", e.size) }

// readRegular reads the regular file rel, at most ReadMaxBytes of it, and
// returns its permission bits. It looks before it opens: an O_PATH open and
// fstat decide whether the path is a regular file, so a FIFO or a device is
// never opened for reading (opening a FIFO blocks, opening some devices has
// effects). The file is then opened for reading with O_NONBLOCK and checked
// again, so a FIFO swapped in between cannot block either.
func (w *Workspace) readRegular(rel string) ([]byte, uint32, error) {
	fd, err := w.open(rel, unix.O_PATH)
	if err != nil {
		return nil, 0, err
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	unix.Close(fd)
	if err != nil {
		return nil, 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, 0, errNotFile
	}
	fd, err = w.open(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY)
	if err != nil {
		return nil, 0, err
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, 0, errNotFile
	}
	if st.Size > ReadMaxBytes {
		return nil, 0, tooLargeError{size: st.Size}
	}
	data, err := readAllFd(fd, ReadMaxBytes+1)
	if err != nil {
		return nil, 0, &pathErr{op: "read", path: rel, err: err}
	}
	if len(data) > ReadMaxBytes { // it grew after the fstat
		return nil, 0, tooLargeError{size: max(st.Size, int64(len(data)))}
	}
	return data, st.Mode & 0o777, nil
}

// readAllFd reads fd to its end or to limit bytes, whichever comes first.
func readAllFd(fd int, limit int) ([]byte, error) {
	buf := make([]byte, 0, min(limit, 64<<10))
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(limit-len(buf), cap(buf)))
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}

// decodeUTF8 returns s with every byte that is not part of valid UTF-8
// replaced by U+FFFD, as Python's errors="replace" does.
func decodeUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// cutRunes returns the first n runes of s and how many runes it dropped.
func cutRunes(s string, n int) (string, int) {
	count := 0
	for i := range s {
		if count == n {
			return s[:i], utf8.RuneCountInString(s[i:])
		}
		count++
	}
	return s, 0
}

// ReadFile is the read_file tool. offset and limit count lines from 1; zero
// means not given. Without either the whole file is returned; with either,
// the chosen lines, each as "<number>\t<text>".
func (w *Workspace) ReadFile(p string, offset, limit int) Result {
	release, err := w.acquire()
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	defer release()
	if offset < 0 {
		return errorf("Error: offset must be at least 1")
	}
	if limit < 0 {
		return errorf("Error: limit must be at least 1")
	}
	rel, err := w.resolvePath(p)
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	data, _, err := w.readRegular(rel)
	if err != nil {
		return readError(err, p, "read_file reads at most %d bytes. Use exec with head, tail or grep to read parts of it.")
	}
	text := decodeUTF8(string(data))
	if offset > 0 || limit > 0 {
		var bad *Result
		if text, bad = selectLines(text, offset, limit); bad != nil {
			return *bad
		}
	}
	out, dropped := cutRunes(text, ReadMaxChars)
	if dropped == 0 {
		return Result{Output: text}
	}
	return Result{Output: out + fmt.Sprintf("\n\n... (truncated, %d more chars)", dropped), Truncated: true}
}

// readError is the message for a failed readRegular; hint completes the
// too-large message and holds one %d for ReadMaxBytes.
func readError(err error, p, hint string) Result {
	if r, ok := commonError(err, p); ok {
		return r
	}
	var big tooLargeError
	switch {
	case isNotFound(err):
		return errorf("Error: File not found: %s", p)
	case errors.Is(err, errNotFile):
		return errorf("Error: Not a file: %s", p)
	case errors.As(err, &big):
		return errorf("Error: File too large: %s is %d bytes; "+hint, p, big.size, ReadMaxBytes)
	}
	return errorf("Error reading file: %s", describe(err, p))
}

// selectLines returns the lines offset..offset+limit-1 of text, numbered.
// A final newline ends the last line rather than starting an empty one.
// Reading an empty file from line 1 gives nothing rather than an error:
// line 1 is where the file would start.
func selectLines(text string, offset, limit int) (string, *Result) {
	var lines []string
	if text != "" {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	start := max(offset, 1)
	if start > len(lines) && !(start == 1 && len(lines) == 0) {
		r := errorf("Error: offset %d is beyond end of file (%d lines)", start, len(lines))
		return "", &r
	}
	end := len(lines)
	if limit > 0 && limit < end-(start-1) {
		end = start - 1 + limit
	}
	var b strings.Builder
	for i := start - 1; i < end; i++ {
		if i > start-1 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteByte('\t')
		b.WriteString(lines[i])
	}
	return b.String(), nil
}

// WriteFile is the write_file tool: it creates or replaces the file p with
// content, atomically, creating missing parent directories.
func (w *Workspace) WriteFile(p, content string) Result {
	release, err := w.acquire()
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	defer release()
	rel, err := w.resolvePath(p)
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	abs, err := w.writeAtomic(rel, []byte(content), 0o644, false)
	if err != nil {
		return writeError(err, p, "write", "Error writing file")
	}
	return Result{Output: fmt.Sprintf("Successfully wrote %d bytes to %s", len(content), abs)}
}

// writeError is the message for a failed writeAtomic.
func writeError(err error, p, verb, prefix string) Result {
	if r, ok := commonError(err, p); ok {
		return r
	}
	var prot protectedError
	switch {
	case errors.As(err, &prot):
		return errorf("Error: Refusing to %s %s: %s", verb, p, prot.Error())
	case errors.Is(err, errIsDir):
		return errorf("Error: Is a directory: %s", p)
	}
	return errorf("%s: %s", prefix, describe(err, p))
}

// EditFile is the edit_file tool: it replaces the one occurrence of oldText
// in the file p with newText, writing the file atomically with its
// permission bits kept. The file is replaced, not rewritten in place, so a
// symlink at p becomes a regular file and a hard link is broken; the file
// the link pointed to is left as it was.
func (w *Workspace) EditFile(p, oldText, newText string) Result {
	release, err := w.acquire()
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	defer release()
	if oldText == "" {
		return errorf("Error: old_text must not be empty")
	}
	rel, err := w.resolvePath(p)
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	// Refuse a protected name before reading, so the answer does not depend
	// on whether old_text happens to match.
	if err := protectedRel(strings.Split(rel, "/")); err != nil {
		return writeError(err, p, "edit", "Error editing file")
	}
	data, perm, err := w.readRegular(rel)
	if err != nil {
		return readError(err, p, "edit_file edits files of at most %d bytes. Use exec to change it.")
	}
	content := string(data)
	switch n := strings.Count(content, oldText); n {
	case 0:
		return notFoundMessage(oldText, content, p)
	case 1:
	default:
		return errorf("Warning: old_text appears %d times. Please provide more context to make it unique.", n)
	}
	updated := strings.Replace(content, oldText, newText, 1)
	abs, err := w.writeAtomic(rel, []byte(updated), perm, true)
	if err != nil {
		return writeError(err, p, "edit", "Error editing file")
	}
	return Result{Output: "Successfully edited " + abs}
}

// Bounds of the best-match search of edit_file, in cells of the
// longest-common-subsequence table. Past matchBudget the search keeps the
// best window found so far; a diff larger than diffMaxCells is shown
// without alignment.
const (
	matchBudget  = 20_000_000
	diffMaxCells = 4_000_000
)

// notFoundMessage explains that oldText is not in content and shows the
// most similar window of lines, as the seed does with difflib.
func notFoundMessage(oldText, content, p string) Result {
	lines := splitKeepEnds(content)
	old := splitKeepEnds(oldText)
	ratio, start := bestMatch(lines, old)
	if ratio <= 0.5 {
		return errorf("Error: old_text not found in %s. No similar text found. Verify the file content.", p)
	}
	window := lines[start:min(start+len(old), len(lines))]
	diff := unifiedDiff(old, window, "old_text (provided)", fmt.Sprintf("%s (actual, line %d)", p, start+1), start+1)
	// 'f' with no decimals rounds half to even, as Python's "{:.0%}" does.
	percent := strconv.FormatFloat(ratio*100, 'f', 0, 64)
	return errorf("Error: old_text not found in %s.\nBest match (%s%% similar) at line %d:\n%s",
		p, percent, start+1, decodeUTF8(diff))
}

// splitKeepEnds splits s into lines that keep their "\n".
func splitKeepEnds(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// bestMatch slides a window of len(old) lines over lines and returns the
// highest similarity 2*M/T (M lines matched by a longest common
// subsequence, T lines in both) and the index of the first window that
// reaches it, as the seed's difflib loop does.
//
// Measuring every window costs a table of len(old)² cells each, far too
// much for a long old_text in a long file. The lines a window shares with
// old, counted as multisets, bound M from above and are cheap to keep while
// sliding. So windows are measured in order of that bound, highest first,
// and the search stops as soon as no remaining window could beat (or, at an
// earlier line, tie) the best found, or clear the 0.5 the message needs.
// Usually the first window measured is the answer. matchBudget bounds the
// cells spent on inputs built to defeat the bound; past it the best window
// found so far is kept.
func bestMatch(lines, old []string) (float64, int) {
	ids := map[string]int{}
	intern := func(ss []string) []int {
		out := make([]int, len(ss))
		for i, s := range ss {
			id, ok := ids[s]
			if !ok {
				id = len(ids)
				ids[s] = id
			}
			out[i] = id
		}
		return out
	}
	a, b := intern(old), intern(lines)
	window := len(a)
	need := make([]int, len(ids))
	for _, id := range a {
		need[id]++
	}
	have := make([]int, len(ids))
	shared := 0
	add := func(id int) {
		have[id]++
		if have[id] <= need[id] {
			shared++
		}
	}
	remove := func(id int) {
		if have[id] <= need[id] {
			shared--
		}
		have[id]--
	}
	for _, id := range b[:min(window, len(b))] {
		add(id)
	}
	n := max(1, len(b)-window+1)
	bound := make([]int, n)
	for i := range n {
		if i > 0 {
			remove(b[i-1])
			add(b[i+window-1])
		}
		bound[i] = shared
	}
	// All windows but a lone short one have the same T, so ordering by the
	// shared count orders by the bound on the similarity. The sort is
	// stable: among equal bounds, earlier windows come first.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return bound[y] - bound[x] })
	best, bestStart, found := 0.0, 0, false
	budget := matchBudget
	for _, i := range order {
		win := b[i:min(i+window, len(b))]
		total := len(a) + len(win)
		limit := similarity(bound[i], total)
		if limit <= 0.5 || (found && limit < best) {
			break
		}
		if found && limit == best && i > bestStart {
			continue
		}
		m, ok := lcsLen(a, win, &budget)
		if !ok {
			break
		}
		r := similarity(m, total)
		if !found || r > best || (r == best && i < bestStart) {
			best, bestStart, found = r, i, true
		}
	}
	return best, bestStart
}

func similarity(matched, total int) float64 {
	if total == 0 {
		return 1
	}
	return float64(2*matched) / float64(total)
}

// trimCommon returns how many items a and b share at the start and, after
// that, at the end. Neither changes a longest common subsequence, and
// trimming them keeps near matches cheap.
func trimCommon(a, b []int) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// lcsLen returns the length of a longest common subsequence of a and b,
// spending table cells from budget; ok is false when the budget is short.
func lcsLen(a, b []int, budget *int) (int, bool) {
	p, s := trimCommon(a, b)
	a, b = a[p:len(a)-s], b[p:len(b)-s]
	cells := len(a) * len(b)
	if cells > *budget {
		return 0, false
	}
	*budget -= cells
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return p + s + prev[len(b)], true
}

// unifiedDiff writes a unified diff of a against b, lines without their
// terminators, in one hunk that covers both whole: b starts at line bStart
// of the file.
func unifiedDiff(a, b []string, fromFile, toFile string, bStart int) string {
	ids := map[string]int{}
	intern := func(ss []string) []int {
		out := make([]int, len(ss))
		for i, s := range ss {
			id, ok := ids[s]
			if !ok {
				id = len(ids)
				ids[s] = id
			}
			out[i] = id
		}
		return out
	}
	ai, bi := intern(a), intern(b)
	var out []string
	out = append(out, "--- "+fromFile, "+++ "+toFile,
		fmt.Sprintf("@@ -%s +%s @@", unifiedRange(1, len(a)), unifiedRange(bStart, len(b))))
	var run []string // the '-' lines of the change being collected
	var plus []string
	flush := func() {
		out = append(out, run...)
		out = append(out, plus...)
		run, plus = run[:0], plus[:0]
	}
	for _, op := range align(ai, bi) {
		switch op.kind {
		case ' ':
			flush()
			out = append(out, " "+stripEnd(a[op.i]))
		case '-':
			run = append(run, "-"+stripEnd(a[op.i]))
		case '+':
			plus = append(plus, "+"+stripEnd(b[op.j]))
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// unifiedRange writes a hunk range the conventional way: "start" for one
// line, "start,len" otherwise, and the line before for an empty range.
func unifiedRange(start, length int) string {
	switch length {
	case 1:
		return strconv.Itoa(start)
	case 0:
		return strconv.Itoa(start-1) + ",0"
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(length)
}

func stripEnd(line string) string {
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
}

// diffOp is one line of an alignment: kept (' ', a[i] and b[j]), removed
// ('-', a[i]) or added ('+', b[j]).
type diffOp struct {
	kind byte
	i, j int
}

// align lines a up with b along a longest common subsequence. Within each
// change, removals come before additions, as in difflib's output.
func align(a, b []int) []diffOp {
	p, s := trimCommon(a, b)
	var ops []diffOp
	for k := range p {
		ops = append(ops, diffOp{' ', k, k})
	}
	n, m := len(a)-p-s, len(b)-p-s
	if n*m > diffMaxCells {
		// Too large to align: show the middle as one change.
		for k := range n {
			ops = append(ops, diffOp{'-', p + k, 0})
		}
		for k := range m {
			ops = append(ops, diffOp{'+', 0, p + k})
		}
	} else {
		// suffix[i*(m+1)+j] is the LCS length of a[p+i:] and b[p+j:], so the
		// walk from the front can pick, at each step, a move that keeps an
		// optimal alignment.
		w := m + 1
		suffix := make([]int32, (n+1)*w)
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if a[p+i] == b[p+j] {
					suffix[i*w+j] = suffix[(i+1)*w+j+1] + 1
				} else {
					suffix[i*w+j] = max(suffix[(i+1)*w+j], suffix[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n && j < m {
			switch {
			case a[p+i] == b[p+j]:
				ops = append(ops, diffOp{' ', p + i, p + j})
				i++
				j++
			case suffix[(i+1)*w+j] >= suffix[i*w+j+1]:
				ops = append(ops, diffOp{'-', p + i, 0})
				i++
			default:
				ops = append(ops, diffOp{'+', 0, p + j})
				j++
			}
		}
		for ; i < n; i++ {
			ops = append(ops, diffOp{'-', p + i, 0})
		}
		for ; j < m; j++ {
			ops = append(ops, diffOp{'+', 0, p + j})
		}
	}
	for k := range s {
		ops = append(ops, diffOp{' ', len(a) - s + k, len(b) - s + k})
	}
	return ops
}

// ListDir is the list_dir tool: the entries of the directory p, folders
// first, each group in byte order of the names.
func (w *Workspace) ListDir(p string) Result {
	release, err := w.acquire()
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	defer release()
	rel, err := w.resolvePath(p)
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	fail := func(err error) Result {
		if r, ok := commonError(err, p); ok {
			return r
		}
		if isNotFound(err) {
			return errorf("Error: Directory not found: %s", p)
		}
		return errorf("Error listing directory: %s", describe(err, p))
	}
	// Look with O_PATH first: opening a FIFO or a device to find out that it
	// is not a directory would block or have effects.
	fd, err := w.open(rel, unix.O_PATH)
	if err != nil {
		return fail(err)
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	unix.Close(fd)
	if err != nil {
		return fail(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return errorf("Error: Not a directory: %s", p)
	}
	fd, err = w.open(rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return fail(err)
	}
	ents, err := readDir(fd)
	unix.Close(fd)
	if err != nil {
		return fail(err)
	}
	if len(ents) == 0 {
		return Result{Output: fmt.Sprintf("Directory %s is empty", p)}
	}
	var dirs, others []string
	for _, e := range ents {
		isDir := e.typ == unix.DT_DIR
		if e.typ == unix.DT_LNK {
			// A link is a folder only if it leads to a directory inside the
			// workspace; the beneath open decides, as for any other path.
			if lfd, err := w.open(path.Join(rel, e.name), unix.O_PATH|unix.O_DIRECTORY); err == nil {
				unix.Close(lfd)
				isDir = true
			}
		}
		if isDir {
			dirs = append(dirs, "📁 "+e.name)
		} else {
			others = append(others, "📄 "+e.name)
		}
	}
	slices.Sort(dirs)
	slices.Sort(others)
	all := append(dirs, others...)
	out := strings.Join(all[:min(len(all), listMax)], "\n")
	if len(all) > listMax {
		out += fmt.Sprintf("\n\n(truncated, showing first %d of %d entries)", listMax, len(all))
	}
	return Result{Output: out}
}

// Search is the search tool: lines matching the regular expression pattern
// in the file or directory p ("" for the whole workspace), in files whose
// names match glob ("" for all), as "path:line: text", sorted by path and
// line. maxResults 0 means SearchMaxResults; more than SearchMaxResultsCap
// is lowered to it.
//
// The walk goes from directory descriptor to directory descriptor with
// O_NOFOLLOW and never follows a symlink, skips .git directories, files
// over 4 MiB and files with a NUL byte in their first 8 KiB, and stops after
// 100,000 entries or 256 MiB read, saying so. A symlink given as p itself is
// followed if it stays inside the workspace, like any path argument.
func (w *Workspace) Search(pattern, p, glob string, maxResults int) Result {
	release, err := w.acquire()
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	defer release()
	re, err := regexp.Compile(pattern)
	if err != nil {
		return errorf("Error: Invalid regex pattern: %v", err)
	}
	if maxResults <= 0 {
		maxResults = SearchMaxResults
	}
	maxResults = min(maxResults, SearchMaxResultsCap)
	filter, err := newFileFilter(glob)
	if err != nil {
		if r, ok := commonError(err, glob); ok {
			return r
		}
		return errorf("Error: Invalid glob pattern: %s", glob)
	}
	rel, err := w.resolvePath(p)
	if err != nil {
		r, _ := commonError(err, p)
		return r
	}
	fail := func(err error) Result {
		if r, ok := commonError(err, p); ok {
			return r
		}
		if isNotFound(err) {
			return errorf("Error: Path not found: %s", p)
		}
		return errorf("Error searching: %s", describe(err, p))
	}
	fd, err := w.open(rel, unix.O_PATH)
	if err != nil {
		return fail(err)
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	unix.Close(fd)
	if err != nil {
		return fail(err)
	}
	s := &searcher{re: re, filter: filter, max: maxResults}
	prefix := rel
	if prefix == "." {
		prefix = ""
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		dfd, err := w.open(rel, unix.O_RDONLY|unix.O_DIRECTORY)
		if err != nil {
			return fail(err)
		}
		s.walk(dfd, prefix, 0)
		unix.Close(dfd)
	case unix.S_IFREG:
		// A file named explicitly is searched whatever glob says.
		ffd, err := w.open(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY)
		if err != nil {
			return fail(err)
		}
		s.file(ffd, rel)
		unix.Close(ffd)
	}
	var out string
	switch {
	case len(s.results) == 0:
		out = "No matches found for pattern: " + pattern
	case len(s.results) > maxResults:
		out = strings.Join(s.results[:maxResults], "\n") +
			fmt.Sprintf("\n\n(results limited to %d; narrow the search with path or glob)", maxResults)
	default:
		out = strings.Join(s.results, "\n")
	}
	if s.stopped != "" {
		out += "\n\n(" + s.stopped + "; narrow the search with path or glob)"
	}
	return Result{Output: out}
}

// searcher holds the state of one search.
type searcher struct {
	re      *regexp.Regexp
	filter  fileFilter
	max     int
	results []string // one more than max means "there are more"
	visited int
	read    int64
	stopped string // why the walk stopped early, or ""
}

func (s *searcher) done() bool { return len(s.results) > s.max || s.stopped != "" }

// walk searches the directory open at dir (not O_PATH), whose
// workspace-relative path is prefix ("" for the root). Entries are visited
// in the order of their paths ("name/" for a directory), so results come out
// sorted by path without collecting them all first, and the walk can stop at
// max+1 results.
func (s *searcher) walk(dir int, prefix string, depth int) {
	ents, err := readDir(dir)
	if err != nil && len(ents) == 0 {
		return
	}
	key := func(e dirent) string {
		if e.typ == unix.DT_DIR {
			return e.name + "/"
		}
		return e.name
	}
	slices.SortFunc(ents, func(x, y dirent) int { return strings.Compare(key(x), key(y)) })
	for _, e := range ents {
		if s.done() {
			return
		}
		s.visited++
		if s.visited > walkMaxEntries {
			s.stopped = fmt.Sprintf("search stopped after visiting %d files and directories", walkMaxEntries)
			return
		}
		rel := joinRel(prefix, e.name)
		switch e.typ {
		case unix.DT_DIR:
			if e.name == ".git" || depth+1 >= maxDepth {
				continue
			}
			fd, err := unix.Openat(dir, e.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			s.walk(fd, rel, depth+1)
			unix.Close(fd)
		case unix.DT_REG:
			if !s.filter.match(e.name, rel) {
				continue
			}
			// O_NOFOLLOW: the entry may have become a link since getdents;
			// O_NONBLOCK: or a FIFO. file() checks it is still regular.
			fd, err := unix.Openat(dir, e.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			s.file(fd, rel)
			unix.Close(fd)
		}
		// Symlinks, FIFOs, sockets and devices are skipped.
	}
}

// file searches the open file fd, named rel in the results.
func (s *searcher) file(fd int, rel string) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > searchMaxFileBytes {
		return
	}
	if s.read+st.Size > searchMaxBytes {
		s.stopped = fmt.Sprintf("search stopped before reading more than %d MiB", searchMaxBytes>>20)
		return
	}
	data, err := readAllFd(fd, searchMaxFileBytes+1)
	s.read += int64(len(data))
	if err != nil || len(data) > searchMaxFileBytes {
		return
	}
	if bytes.IndexByte(data[:min(len(data), searchSniffBytes)], 0) >= 0 {
		return
	}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !s.re.Match(line) {
			continue
		}
		text, _ := cutRunes(decodeUTF8(string(line)), searchMaxLineRunes)
		s.results = append(s.results, rel+":"+strconv.Itoa(n)+": "+text)
		if len(s.results) > s.max {
			return
		}
	}
}

func joinRel(prefix, name string) string {
	if prefix == "" || prefix == "." {
		return name
	}
	return prefix + "/" + name
}

// fileFilter is search's glob. A glob without "/" is matched against the
// base name of each file; one with "/" against its workspace-relative path,
// with the semantics of the glob tool. Braces are expanded in both.
type fileFilter struct {
	names []string   // base-name patterns
	paths [][]string // path patterns, split into components
}

func newFileFilter(glob string) (fileFilter, error) {
	var f fileFilter
	switch {
	case glob == "":
		return f, nil
	case strings.Contains(glob, "/"):
		alts, err := globAlternatives(glob)
		if err != nil {
			return f, err
		}
		for _, comps := range alts {
			for _, c := range comps {
				if isGlob(c) {
					if _, err := path.Match(c, ""); err != nil {
						return f, err
					}
				}
			}
		}
		f.paths = alts
	default:
		if strings.IndexByte(glob, 0) >= 0 {
			return f, errNUL
		}
		f.names = expandBraces(glob)
		for _, pat := range f.names {
			if _, err := path.Match(pat, ""); err != nil {
				return f, err
			}
		}
	}
	return f, nil
}

// match reports whether the file name, at workspace-relative path rel,
// passes the filter.
func (f fileFilter) match(name, rel string) bool {
	if f.names == nil && f.paths == nil {
		return true
	}
	for _, pat := range f.names {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	if f.paths != nil {
		comps := strings.Split(rel, "/")
		for _, pat := range f.paths {
			if matchFilePath(pat, comps) {
				return true
			}
		}
	}
	return false
}

// matchFilePath reports whether the glob tool would list the file at path
// (components name) for the pattern components pat. "**" stands for any
// number of directories, never for the file's own name: the glob walk only
// descends through "**" into directories.
func matchFilePath(pat, name []string) bool {
	m, n := len(pat), len(name)
	// ok[i*(n+1)+j]: pat[i:] matches name[j:]; filled from the end, so
	// "**/**/**" costs m*n and not an exponential search.
	ok := make([]bool, (m+1)*(n+1))
	ok[m*(n+1)+n] = true
	for i := m - 1; i >= 0; i-- {
		for j := n; j >= 0; j-- {
			c := pat[i]
			var v bool
			if c == "**" {
				v = ok[(i+1)*(n+1)+j] || (j < n-1 && ok[i*(n+1)+j+1])
			} else if j < n {
				v = componentMatches(c, name[j]) && ok[(i+1)*(n+1)+j+1]
			}
			ok[i*(n+1)+j] = v
		}
	}
	return ok[0]
}

// componentMatches matches one path component as the glob walk does: a
// wildcard component with path.Match, anything else literally.
func componentMatches(pat, name string) bool {
	if isGlob(pat) {
		ok, _ := path.Match(pat, name)
		return ok
	}
	return pat == name
}

// isGlob reports whether a component is a wildcard, with the policy
// analyser's rule: "*" or "?", or a "[" closed by a later "]" that is not
// right after it.
func isGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		return strings.IndexByte(s[i+1:], ']') > 0
	}
	return false
}

// globAlternatives expands the braces of a glob pattern and splits each
// alternative into clean components (none for the root). An alternative
// that is absolute, starts with "~" or climbs above the root is outside the
// workspace, and so is the whole pattern. Cleaning removes "." and ".."
// lexically, so the walk never meets "..".
func globAlternatives(pattern string) ([][]string, error) {
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, errNUL
	}
	var out [][]string
	for _, alt := range expandBraces(pattern) {
		if strings.HasPrefix(alt, "/") || strings.HasPrefix(alt, "~") {
			return nil, errOutside
		}
		c := path.Clean(alt)
		if c == ".." || strings.HasPrefix(c, "../") {
			return nil, errOutside
		}
		if c == "." {
			out = append(out, nil)
		} else {
			out = append(out, strings.Split(c, "/"))
		}
	}
	return out, nil
}

// Glob is the glob tool: workspace paths matching pattern, sorted, one a
// line. The semantics are the policy analyser's (parser/files.go), so the
// paths listed are the paths the policy judged: braces, "*", "?" and "[...]"
// within a component, "**" for any number of directories. "**" does not
// descend into symlinked directories; a literal or wildcard component that
// names a symlink is followed only when it leads to a directory inside the
// workspace. "*" matches names starting with a dot, and "**" alone lists
// directories, "." included.
func (w *Workspace) Glob(pattern string) Result {
	release, err := w.acquire()
	if err != nil {
		r, _ := commonError(err, pattern)
		return r
	}
	defer release()
	alts, err := globAlternatives(pattern)
	if err != nil {
		r, _ := commonError(err, pattern)
		return r
	}
	g := &globber{w: w, budget: walkMaxEntries, found: map[string]bool{}}
	for _, comps := range alts {
		g.walk(w.fd, ".", comps, 0)
	}
	found := make([]string, 0, len(g.found))
	for p := range g.found {
		found = append(found, p)
	}
	slices.Sort(found)
	var out string
	switch {
	case len(found) == 0:
		out = "No files found matching: " + pattern
	case len(found) > listMax:
		out = strings.Join(found[:listMax], "\n") +
			fmt.Sprintf("\n\n(truncated, showing first %d of %d matches)", listMax, len(found))
	default:
		out = strings.Join(found, "\n")
	}
	if g.stopped {
		out += fmt.Sprintf("\n\n(stopped after reading %d directory entries; the list may be incomplete, narrow the pattern)", walkMaxEntries)
	}
	return Result{Output: out}
}

// globber holds the state of one glob walk.
type globber struct {
	w       *Workspace
	budget  int // directory entries left to read
	stopped bool
	found   map[string]bool
}

// walk matches comps beneath the directory open at dir (O_PATH is enough),
// whose workspace-relative path is rel. The caller keeps dir.
func (g *globber) walk(dir int, rel string, comps []string, depth int) {
	if len(comps) == 0 {
		g.found[rel] = true
		return
	}
	if g.budget <= 0 {
		g.stopped = true
		return
	}
	c, rest := comps[0], comps[1:]
	switch {
	case c == "**":
		g.walk(dir, rel, rest, depth)
		if depth+1 >= maxDepth {
			return
		}
		for _, e := range g.list(dir) {
			// d_type of a symlink is DT_LNK: "**" never follows links, and
			// O_NOFOLLOW keeps it so if the entry is swapped meanwhile.
			if e.typ != unix.DT_DIR {
				continue
			}
			child, err := unix.Openat(dir, e.name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			g.walk(child, joinRel(rel, e.name), comps, depth+1)
			unix.Close(child)
		}
	case isGlob(c):
		for _, e := range g.list(dir) {
			if ok, _ := path.Match(c, e.name); ok {
				g.descend(rel, e.name, rest, depth)
			}
		}
	default:
		var st unix.Stat_t
		if unix.Fstatat(dir, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			g.descend(rel, c, rest, depth)
		}
	}
}

// descend goes on matching rest in the entry name of rel. The last
// component is listed without being opened, so a symlink's own name can
// match; to go further, the entry is opened beneath the root, which follows
// a symlink only when it stays inside the workspace.
func (g *globber) descend(rel, name string, rest []string, depth int) {
	child := joinRel(rel, name)
	if len(rest) == 0 {
		g.found[child] = true
		return
	}
	if depth+1 >= maxDepth {
		return
	}
	fd, err := g.w.open(child, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return
	}
	g.walk(fd, child, rest, depth+1)
	unix.Close(fd)
}

// list reads the entries of dir, charging them to the budget.
func (g *globber) list(dir int) []dirent {
	fd, err := unix.Openat(dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		g.budget--
		return nil
	}
	ents, _ := readDir(fd)
	unix.Close(fd)
	g.budget -= len(ents) + 1
	return ents
}

// expandBraces expands the {a,b} alternatives and {1..3}/{a..c} sequences of
// a glob pattern the way the policy analyser does (it uses the shell
// parser's brace rules): a backslash protects the next character, "{x}" and
// unbalanced braces stay literal, a comma turns a sequence into a list, and
// a malformed sequence stays literal. At most maxBraceExpansions patterns
// come out.
func expandBraces(p string) []string {
	if !strings.Contains(p, "{") {
		return []string{p}
	}
	var out []string
	expandWord(parseBraces(p), "", func(s string) bool {
		out = append(out, s)
		return len(out) < maxBraceExpansions
	})
	return out
}

// braceWord is a pattern as a sequence of literals and brace expressions.
type braceWord []bracePart

type bracePart struct {
	lit string
	br  *braceExp // nil for a literal
}

type braceExp struct {
	seq   bool // {x..y[..step]}, otherwise a list {a,b,...}
	elems []*braceWord
}

func (w braceWord) literal() (string, bool) {
	var b strings.Builder
	for _, part := range w {
		if part.br != nil {
			return "", false
		}
		b.WriteString(part.lit)
	}
	return b.String(), true
}

// parseBraces splits p into literals and brace expressions. acc is the word
// being filled: the top level, or the current element of the innermost open
// brace.
func parseBraces(p string) braceWord {
	top := &braceWord{}
	acc := top
	var open []*braceExp
	cur := func() *braceExp {
		if len(open) == 0 {
			return nil
		}
		return open[len(open)-1]
	}
	addLit := func(s string) {
		if s != "" {
			*acc = append(*acc, bracePart{lit: s})
		}
	}
	addParts := func(parts braceWord) { *acc = append(*acc, parts...) }
	pop := func() *braceExp {
		br := open[len(open)-1]
		open = open[:len(open)-1]
		if c := cur(); c != nil {
			acc = c.elems[len(c.elems)-1]
		} else {
			acc = top
		}
		return br
	}
	last := 0
	for j := 0; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
			continue
		case '{':
			addLit(p[last:j])
			acc = &braceWord{}
			open = append(open, &braceExp{elems: []*braceWord{acc}})
		case ',':
			br := cur()
			if br == nil {
				continue
			}
			addLit(p[last:j])
			if br.seq {
				// {1..2,3} is a list whose first element is "1..2".
				merged := br.elems[0]
				for _, e := range br.elems[1:] {
					*merged = append(*merged, bracePart{lit: ".."})
					*merged = append(*merged, *e...)
				}
				br.seq = false
				br.elems = br.elems[:1]
			}
			acc = &braceWord{}
			br.elems = append(br.elems, acc)
		case '.':
			br := cur()
			if br == nil || j+1 >= len(p) || p[j+1] != '.' {
				continue
			}
			if !br.seq && len(br.elems) > 1 { // {1,2..3}: the dots are literal
				continue
			}
			addLit(p[last:j])
			br.seq = true
			acc = &braceWord{}
			br.elems = append(br.elems, acc)
			j++
		case '}':
			if cur() == nil {
				continue
			}
			addLit(p[last:j])
			br := pop()
			switch {
			case len(br.elems) == 1: // {x} is literal
				addLit("{")
				addParts(*br.elems[0])
				addLit("}")
			case !br.seq || validSequence(br):
				*acc = append(*acc, bracePart{br: br})
			default:
				addLit("{")
				for i, e := range br.elems {
					if i > 0 {
						addLit("..")
					}
					addParts(*e)
				}
				addLit("}")
			}
		default:
			continue
		}
		last = j + 1
	}
	addLit(p[last:])
	// Braces never closed are literal.
	for len(open) > 0 {
		br := pop()
		addLit("{")
		for i, e := range br.elems {
			if i > 0 {
				if br.seq {
					addLit("..")
				} else {
					addLit(",")
				}
			}
			addParts(*e)
		}
	}
	return *top
}

// validSequence: {x..y} or {x..y..step} with x and y both integers or both
// single ASCII letters, and an integer step.
func validSequence(br *braceExp) bool {
	if len(br.elems) > 3 {
		return false
	}
	var letter [2]bool
	for i, e := range br.elems[:2] {
		s, _ := e.literal()
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			continue
		}
		if len(s) == 1 && isASCIILetter(s[0]) {
			letter[i] = true
			continue
		}
		return false
	}
	if len(br.elems) == 3 {
		s, _ := br.elems[2].literal()
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return false
		}
	}
	return letter[0] == letter[1]
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// expandWord calls yield with prefix followed by each expansion of w, in
// order, until yield returns false; it returns false once stopped.
func expandWord(w braceWord, prefix string, yield func(string) bool) bool {
	for i, part := range w {
		if part.br == nil {
			prefix += part.lit
			continue
		}
		rest := w[i+1:]
		if part.br.seq {
			return expandSequence(part.br, func(s string) bool {
				return expandWord(rest, prefix+s, yield)
			})
		}
		for _, e := range part.br.elems {
			next := append(append(braceWord{}, *e...), rest...)
			if !expandWord(next, prefix, yield) {
				return false
			}
		}
		return true
	}
	return yield(prefix)
}

// expandSequence yields the values of a valid sequence: integers, padded
// with zeros to the wider end when either end has a leading zero, or
// letters; the step's sign is ignored and a zero step is 1.
func expandSequence(br *braceExp, yield func(string) bool) bool {
	fromS, _ := br.elems[0].literal()
	toS, _ := br.elems[1].literal()
	from, err1 := strconv.ParseInt(fromS, 10, 64)
	to, err2 := strconv.ParseInt(toS, 10, 64)
	letters := err1 != nil || err2 != nil
	if letters {
		from, to = int64(fromS[0]), int64(toS[0])
	}
	width := 0
	if !letters && (leadingZero(fromS) || leadingZero(toS)) {
		width = max(len(fromS), len(toS))
	}
	step := int64(1)
	if len(br.elems) == 3 {
		s, _ := br.elems[2].literal()
		n, _ := strconv.ParseInt(s, 10, 64)
		if n < 0 {
			n = -n
		}
		if n != 0 {
			step = n
		}
	}
	up := from <= to
	if !up {
		step = -step
	}
	for n := from; (up && n <= to) || (!up && n >= to); n += step {
		var s string
		switch {
		case letters:
			s = string(rune(n))
		case width > 0:
			s = fmt.Sprintf("%0*d", width, n)
		default:
			s = strconv.FormatInt(n, 10)
		}
		if !yield(s) {
			return false
		}
		if (up && n > to-step) || (!up && n < to-step) { // the next step would overflow or pass the end
			break
		}
	}
	return true
}

func leadingZero(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}
