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
// A command runs as bash -c COMMAND, except one program with literal
// arguments that bash would find in a system directory the box shows:
// bubblewrap starts that itself, with what bash would have added to the
// environment (direct.go).
//
// Limits: bwrap is started blocked (--block-fd); before anything inside
// runs, the box is in its own pids and memory cgroups (v1 or v2, where the
// host lets toolgate make them) and has its rlimits (core, file size, CPU,
// processes, and address space when there is no memory cgroup). bwrap is
// born in the cgroups (CLONE_INTO_CGROUP on v2; on v1 from a thread that
// moved itself there, see bornIn), so the box's pid 1 is too, and its
// cgroup namespace is rooted there; where that fails, both are moved in.
// Output is read through a bounded head-and-tail Capture and a flood stops
// the box.
// The timeout, a flood, or the end of the command kills the box's pid 1, and
// with it every process of its pid namespace, setsid or not.
//
// The command itself is the box's pid 1 (bwrap --as-pid-1): bwrap's own
// reaper process cost a fork, a fifth of a box's time. As for any pid 1 (a
// container started without an init), a signal the command has no handler
// for is ignored when it comes from inside the box, the command's own
// included (kill $$; abort() then ends in SIGSEGV, exit 139, not 134), and
// orphaned processes are reaped only by a pid 1 that waits for any child,
// as bash does. Signals from outside (timeout, flood) and the kernel's
// limits (the CPU hard limit, the OOM killer) still end it; a process the
// command starts has the usual signal semantics.
//
// A host-root box of a Sequential sandbox (one command at a time, as
// `toolgate run` runs them) binds, as its root, a tree made once with the
// view (makeRoot): the system directories, /dev with the same nodes and
// links as bubblewrap's --dev (read-only, where --dev's is writable) and
// a pty instance shared by those boxes,
// and the mount points each box fills itself (/proc, /tmp, /dev/shm, the
// workspace and the home), read-only for good once made (sealed): no box
// remounts it, and a box with the network, which needs a mount point it
// has not, binds each directory instead.
// bubblewrap reads the whole mount table after every bind; one bind
// replaces a dozen. Other boxes bind each directory and get --dev.
// Such a box also binds the workspace staged once with its guards (the
// repository's git directory, hooks and config, toolgate's own files:
// stage.go), and the masks below the view's directories are mounted on
// the view (view.mask), each once, not in every box; a file or guard
// replaced on the host is staged or masked anew.
//
// toolgate's own mounts (views, masks, staged workspaces) are made in a
// mount namespace of its own, held by one locked OS thread that also
// starts every bwrap that binds them (mountns.go): a mount makes its path
// busy for the processes of its namespace, and the host's git must stay
// free to rename .git/config. Nothing of them is left on the host when
// toolgate dies.
//
// Every box waits on its block pipe until runBox writes to it, and bwrap
// holds the pipe's other end itself (--sync-fd) until it execs the
// command: only that byte, never the end of file a dying toolgate leaves,
// lets a command run. A shell outside toolgate (deathwatch.go) is told
// each box's process group and cgroup and kills what is left of them if
// toolgate dies without doing it.
//
// Boxes made ahead (warm.go): a front end that knows the next command
// while the current one runs (`toolgate run` reading a stream) can have
// its box made meanwhile with Prestart. Run uses it only for the same
// request when the command line it would build then is identical, and
// only if every box released while it waited held its workspace mounts
// in place. Anything else drops it. The cgroup join and rlimits happen while it waits; the
// snapshots for the git and agent-config checks are taken at release.
// Two emptied cgroups take turns, so a box never waits for the last
// one's to empty.
//
// If bubblewrap is missing or cannot make namespaces, Run refuses with an
// *Unavailable error that carries a hint; nothing runs. ModeNone runs
// commands on the host for trusted set-ups; results say so.
//
// Who the box is on the host: toolgate run by an ordinary user gives the box
// that user's uid. Run as root, the box takes the workspace owner's uid when
// that is not root (bwrap then runs as that user). A root-owned workspace
// under a root toolgate gives a mapped box (bwrap.go, "A mapped box"): its
// processes are viewID on the host, an id no one has, with no groups; it
// sees the workspace through an idmapped copy on which root's files are
// its own (what it makes there is root's on disk) and the system
// directories through plain read-only copies, where the permission bits
// give it what any user gets; its rlimits are set by a thread that takes
// viewID's ids where toolgate lacks CAP_SYS_RESOURCE (limiter.go). Only
// where the workspace cannot be idmapped (a kernel before 5.12, a file
// system without idmapped mounts) or bwrap cannot run as viewID is the box
// host uid 0, without capabilities, and hardened for it: no supplementary
// groups, the system directories seen through idmapped mounts on which
// root's files belong to an id it does not have, so it may read there
// exactly what an ordinary user may (view.go; the user namespace carrying
// that mapping, also the mapped box's, is kept on /run/toolgate/userns for
// the next toolgate, checked before each use; where the kernel or a file
// system cannot idmap at all, everything under /etc, /opt and /usr/local
// it could read as uid 0 and gid 0 but an ordinary user could not is
// masked instead, whoever owns the directory it is in: a walk, past
// 400,000 entries whatever is left unlooked at is masked whole),
// /proc/sys read-only and root's keys and timers in /proc masked. Every
// box that is not host root gets others' permission bits on /proc's
// root-owned files; those bits decide which of them are masked (a mapped
// box's uid owns no keys: the kernel lists none to it). A seccomp filter
// refuses keyrings, set-ID modes, io_uring,
// openat2, bpf, perf_event_open, userfaultfd and new user namespaces (the
// filter applies to every box; without one, --disable-userns does that). Descriptors toolgate inherited are closed on exec. After a command,
// git state it planted is moved aside and the result says so (git.go), and
// so is a change to the agent's configuration in the workspace (Claude Code
// settings and hooks, .mcp.json), whose previous content is written back
// (agentcfg.go).
//
// Not covered: a box that is host root (no idmapped workspace) can still
// use the file system's blocks reserved for root; the pids cgroup (not
// RLIMIT_NPROC, which root ignores) bounds its processes. Without idmapped
// mounts it also sees
// root-readable files under /usr, and root-only files created after New are
// not masked. Prefer running toolgate as an ordinary user. Nested
// repositories that are not submodules are not inspected: git run inside
// them obeys their config. Disk use inside the workspace is bounded per
// file, not in total. ModeNone has no isolation at all and
// its rlimits are set just after start.
package sandbox
