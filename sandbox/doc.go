// Package sandbox runs exec commands inside bubblewrap, the hard layer under
// the policy: with a policy that allows everything, the box alone keeps the
// host safe.
//
// A box has new user, pid, ipc, uts, cgroup and network namespaces (the
// network is the host's only when the decision grants it), an unprivileged
// uid, no capabilities, no further user namespaces, a new session (no
// terminal injection) and dies with toolgate. Its file system shows the
// system directories (/usr, /etc, /opt, /lib*, …) read-only with secrets
// under them masked (the policy's sensitive paths), a private /tmp, /var/tmp
// and /dev/shm of bounded size, the home directory as an empty private
// directory, and the workspace as the only writable host directory, with
// its .git hooks and config read-only and its .git directory pinned as a
// mount point. /home, /root, /var, /run (daemon sockets) and /sys are not
// there at all. The environment is cleared to an allow-list plus
// GIT_TERMINAL_PROMPT=0, DEBIAN_FRONTEND=noninteractive and path_append.
//
// Limits: bwrap is started blocked (--block-fd); before anything inside
// runs, the box joins its own pids and memory cgroups (v1 or v2, where the
// host lets toolgate make them) and gets rlimits (core, file size, CPU,
// processes, and address space when there is no memory cgroup). Output is
// read through a bounded head-and-tail Capture and a flood stops the box.
// The timeout, a flood, or the end of the command kills the box's pid 1, and
// with it every process of its pid namespace, setsid or not.
//
// If bubblewrap is missing or cannot make namespaces, Run refuses with an
// *Unavailable error that carries a hint; nothing runs. ModeNone runs
// commands on the host for trusted set-ups; results say so.
//
// Not covered: running as root, a box's processes are root-owned outside
// (files under visible system directories readable by root are readable
// unless masked), and RLIMIT_NPROC does not apply to root, so fork bombs are
// bounded only by the pids cgroup; run toolgate as an ordinary user where
// possible. A repository the command creates itself (git init) has writable
// hooks; core.hooksPath pointing into the workspace is not guarded. Disk use
// inside the workspace is bounded per file, not in total. ModeNone has no
// isolation at all and its rlimits are set just after start.
package sandbox
