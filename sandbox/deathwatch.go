package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A box's processes are ended by toolgate: when the command ends, on a
// timeout, on SIGINT or SIGTERM. A toolgate that is killed outright (or
// crashes) cannot. bubblewrap's --die-with-parent then ends a box whose
// command runs, but not one still being made or blocked before its
// command (bwrap arms the parent-death signal of the box's pid 1 only
// later): measured, such boxes outlived toolgate for good, blocked on a
// pipe whose other end bwrap itself holds (--sync-fd, startBox).

// deathWatch is a small shell outside toolgate, in its own session, that
// toolgate keeps told of what a box consists of while it may hold
// processes: bwrap's process group from its start (the box's pid 1 is in
// it until the command starts, which is after the box joined its cgroup)
// and each box cgroup while it exists. The shell reads until its input
// ends, which is when toolgate closes it or dies, and then kills what is
// still listed: the process groups, and whatever is in the cgroups, which
// it removes. After a clean end nothing is listed and it only exits. A
// process group is only listed while toolgate has not reaped bwrap: while
// toolgate lives its number cannot name another group, and when toolgate
// dies the watcher acts at once, while the box (a member) usually still
// holds the number; another group could take it only if process numbers
// wrapped around in those moments. sweep does the cgroups' part at the
// next start for a watcher killed too.

// deathWatchScript keeps the list: "+X" adds X, "-X" removes it, where X
// is "g" and a process group or "c" and a cgroup directory. At the end of
// its input it kills what is listed (cgroup.kill where there is one, else
// a SIGKILL to each process, a few rounds for processes forked meanwhile)
// and removes the cgroups.
const deathWatchScript = `set -f
IFS='
'
live=
while read -r line; do
	case $line in
	+*) live="$live
${line#+}" ;;
	-*)
		x=${line#-}
		kept=
		for e in $live; do [ "$e" = "$x" ] || kept="$kept
$e"; done
		live=$kept ;;
	esac
done
[ -z "$live" ] && exit 0
n=0
while [ "$n" -lt 40 ]; do
	left=
	for e in $live; do
		case $e in
		g*) kill -9 "-${e#g}" 2>/dev/null ;;
		c*)
			d=${e#c}
			[ -e "$d/cgroup.kill" ] && echo 1 > "$d/cgroup.kill" 2>/dev/null
			for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; left=1; done ;;
		esac
	done
	[ -z "$left" ] && break
	n=$((n + 1))
	sleep 0.05
done
for e in $live; do
	case $e in c*) rmdir "${e#c}" 2>/dev/null ;; esac
done
exit 0`

// systemShell is the host's POSIX shell, by its absolute path: the
// watcher runs as toolgate's user, often root, and PATH is the caller's.
func systemShell() string {
	for _, p := range []string{"/bin/sh", "/usr/bin/sh"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

type deathWatch struct {
	mu      sync.Mutex
	w       *os.File
	cmd     *exec.Cmd
	pending []string // lines told before the watcher was up
	started bool
	closed  bool
	broken  bool // a write failed: the watcher is told nothing more
}

// start starts the watcher in the background; directories watched before
// it is up are handed to it then.
func (d *deathWatch) start(sh string) {
	if d == nil || sh == "" {
		return
	}
	go func() {
		r, w, err := os.Pipe()
		if err != nil {
			return
		}
		cmd := exec.Command(sh, "-c", deathWatchScript)
		cmd.Stdin = r
		cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
		// Its own session: a signal to toolgate's process group (^C on a
		// terminal) does not end it before toolgate has cleaned up.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		err = cmd.Start()
		r.Close()
		if err != nil {
			w.Close()
			return
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.closed {
			w.Close()
			go cmd.Wait()
			return
		}
		d.w, d.cmd, d.started = w, cmd, true
		for _, line := range d.pending {
			_, _ = w.WriteString(line)
		}
		d.pending = nil
	}()
}

// add lists entries with the watcher ("g" and a process group, "c" and a
// cgroup directory); drop takes them off.
func (d *deathWatch) add(entries ...string)  { d.tell('+', entries) }
func (d *deathWatch) drop(entries ...string) { d.tell('-', entries) }

func (d *deathWatch) tell(op byte, entries []string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for _, e := range entries {
		if strings.ContainsAny(e, "\n\x00") {
			continue
		}
		line := string(op) + e + "\n"
		if d.broken {
			return
		}
		if d.started {
			// A watcher that stopped reading (stopped by a signal, or
			// gone) must not stall the boxes: once it does not take a line
			// within moments it is told nothing more, and the start-up
			// sweep is the backstop.
			_ = d.w.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
			if _, err := d.w.WriteString(line); err != nil {
				d.broken = true
				return
			}
		} else {
			d.pending = append(d.pending, line)
		}
	}
}

// group and cgroupDirs name what add and drop take.
func group(pgid int) string { return "g" + strconv.Itoa(pgid) }

func cgroupDirs(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = "c" + d
	}
	return out
}

// close ends the watcher: toolgate has cleaned up itself.
func (d *deathWatch) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return // a Sandbox closed twice
	}
	d.closed = true
	if d.started {
		d.w.Close()
		go d.cmd.Wait()
	}
}
