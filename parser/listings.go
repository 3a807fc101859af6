package parser

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// listingCache keeps directory listings across analyses, so that a stream
// of calls does not list the same unchanged directories again and again
// (each listing is an open, two getdents and a close; a recursive command
// or a glob lists many). A kept listing is used only after a stat of the
// directory shows the same directory, unchanged since it was read:
//
//   - the same device and inode: the path still names the same directory
//     (not another one moved or mounted there, not a link's new target);
//   - the same ctime, to the nanosecond: creating, removing or renaming an
//     entry sets the directory's ctime (and mtime) to the time of the
//     change, and unlike mtime it cannot be set back by a user (touch -d
//     sets mtime and makes ctime now). A link cannot be changed in place
//     either: giving it another target is removing it and making it again.
//
// Two things would break that, and each keeps a listing out of the cache:
//
//   - Racy times. File systems stamp changes with a coarse clock (a tick of
//     1-10 ms; whole seconds on some), so a change made in the same tick as
//     the one before the listing was read could leave the ctime as it was.
//     A listing is kept only when the directory's ctime was at least
//     racyWindow before its status was taken, which comes before the
//     entries are read: a later change then has a later ctime. Directories
//     changed in the last two seconds are read afresh each time.
//   - File systems whose ctime does not follow their listings: /proc and
//     /sys (a process directory comes and goes without one), network file
//     systems (another host's change, attribute caches), FUSE. Only local
//     disk and memory file systems known to keep ctime are cached
//     (localFS).
//
// The cache holds at most maxListings listings of at most
// maxListingEntries entries each, maxKeptEntries entries in all (a few
// tens of MiB); past that arbitrary ones are dropped. Entries are shared
// between analyses and never changed.
type listingCache struct {
	mu      sync.RWMutex
	m       map[string]*keptListing
	entries int // the entries of the listings in m
}

// keptListing is a listing and the status of the directory it was read in.
type keptListing struct {
	dev, ino uint64
	ctim     unix.Timespec
	ents     []fs.DirEntry
}

var listings listingCache

// racyWindow is how long ago a directory's last change must be for its
// listing to be kept (a variable for the tests).
var racyWindow = 2 * time.Second

const (
	maxListings       = 8192
	maxListingEntries = 4096
	maxListingLinks   = 64
	maxKeptEntries    = 200_000
)

// localFS are the file systems (statfs f_type) whose directory ctime
// changes with every change to their entries: ext2/3/4, XFS, Btrfs,
// tmpfs, overlayfs, F2FS, ZFS, bcachefs.
var localFS = map[int64]bool{
	0xEF53:     true, // ext2, ext3, ext4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0x794C7630: true, // overlayfs
	0xF2F52010: true, // f2fs
	0x2FC12FC1: true, // zfs
	0xCA451A4E: true, // bcachefs
}

// cacheable returns the status of the directory open at fd when a listing
// read from it now may be kept: a local file system (localFS) and a ctime
// older than racyWindow. Otherwise (or on an error) it returns nil.
func (c *listingCache) cacheable(fd int) *unix.Stat_t {
	now := time.Now()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil
	}
	if !time.Unix(st.Ctim.Unix()).Before(now.Add(-racyWindow)) {
		return nil
	}
	var sf unix.Statfs_t
	if unix.Fstatfs(fd, &sf) != nil || !localFS[int64(sf.Type)] {
		return nil
	}
	return &st
}

// lookup returns a copy of the listing kept for dir when a stat shows the
// same directory with the same ctime.
func (c *listingCache) lookup(dir string) ([]fs.DirEntry, bool) {
	c.mu.RLock()
	k := c.m[dir]
	c.mu.RUnlock()
	if k == nil {
		return nil, false
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR ||
		st.Dev != k.dev || st.Ino != k.ino || st.Ctim != k.ctim {
		return nil, false
	}
	return slices.Clone(k.ents), true
}

// store keeps ents, read from dir whose status before the reading was st.
// A listing with an entry whose type is not known is not kept.
func (c *listingCache) store(dir string, st *unix.Stat_t, ents []fs.DirEntry) {
	if len(ents) > maxListingEntries {
		return
	}
	links := 0
	for _, e := range ents {
		de, ok := e.(*dirEntry)
		if !ok || !de.known {
			return
		}
		if de.typ&fs.ModeSymlink != 0 {
			links++
		}
	}
	// the links' targets, read after the status the listing is kept under
	// (a link given another target since is a new entry: a new ctime), so
	// that analyses resolve them without a system call; a directory of
	// many links keeps them unread
	if links <= maxListingLinks {
		for _, e := range ents {
			de := e.(*dirEntry)
			if de.typ&fs.ModeSymlink == 0 {
				continue
			}
			t, err := os.Readlink(path.Join(dir, de.name))
			if err != nil {
				return
			}
			de.target, de.targetKnown = t, true
		}
	}
	k := &keptListing{dev: st.Dev, ino: st.Ino, ctim: st.Ctim, ents: slices.Clone(ents)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*keptListing{}
	}
	if old, ok := c.m[dir]; ok {
		c.entries -= len(old.ents)
		delete(c.m, dir)
	}
	for d, old := range c.m {
		if len(c.m) < maxListings && c.entries+len(k.ents) <= maxKeptEntries {
			break
		}
		c.entries -= len(old.ents)
		delete(c.m, d)
	}
	c.m[dir] = k
	c.entries += len(k.ents)
}
