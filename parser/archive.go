package parser

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"io"
	"os"
	"path"
	"strings"
)

// An archive extracted into the workspace writes the names its members
// have, not only the directory: a member .git/hooks/pre-commit, or
// link_home/.bash_login through a link already in the workspace (tar and
// unzip follow it), and a member that is a link leads where it points.
// When the archive is a file on disk the analysis can open (tar, plain or
// gzip or bzip2; zip) its members are the command's writes.

// member is one entry of an archive.
type member struct {
	name string
	link string // a symbolic or hard link's target
	hard bool
}

// Bounds on reading an archive for its names (per decision: the archive
// is read again each time). An archive past them is not listed.
const (
	maxArchiveBytes   = 16 << 20 // the file
	maxArchiveData    = 64 << 20 // what it decompresses to
	maxArchiveMembers = 512
)

// archiveMembers lists the members of the tar or zip archive at real; ok
// is false when it cannot be read whole within the bounds.
func archiveMembers(real string) ([]member, bool) {
	f, err := os.Open(real)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxArchiveBytes {
		return nil, false
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	if bytes.HasPrefix(head, []byte("PK")) {
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil || len(zr.File) > maxArchiveMembers {
			return nil, false
		}
		var out []member
		for _, zf := range zr.File {
			m := member{name: zf.Name}
			if zf.Mode()&os.ModeSymlink != 0 {
				rc, err := zf.Open()
				if err != nil {
					return nil, false
				}
				b, _ := io.ReadAll(io.LimitReader(rc, 4096))
				rc.Close()
				m.link = string(b)
			}
			out = append(out, m)
		}
		return out, true
	}
	var r io.Reader = bufio.NewReader(f)
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, false
		}
		r = gz
	case bytes.HasPrefix(head, []byte("BZh")):
		r = bzip2.NewReader(r)
	}
	// one byte past the bound tells a cut from an end: a listing cut
	// short would leave out the members after it
	data := &io.LimitedReader{R: r, N: maxArchiveData + 1}
	tr := tar.NewReader(data)
	var out []member
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, len(out) > 0 && data.N > 0
		}
		if err != nil || len(out) >= maxArchiveMembers {
			return nil, false
		}
		m := member{name: h.Name}
		switch h.Typeflag {
		case tar.TypeSymlink:
			m.link = h.Linkname
		case tar.TypeLink:
			m.link, m.hard = h.Linkname, true
		}
		out = append(out, m)
	}
}

// extractMembers adds the writes of extracting members into dir, the
// first strip components of each name removed (tar --strip-components),
// and the reads of the links among them (a link's target, from where the
// link lies; a hard link's, from dir). Leading "/" are dropped as tar
// and unzip drop them.
func (r *run) extractMembers(idx int, name string, ms []member, dir string, strip int, st *state) {
	for _, m := range ms {
		n := strings.TrimLeft(m.name, "/")
		if strip > 0 {
			var ok bool
			if n, ok = stripName(n, strip); !ok {
				continue
			}
		}
		n = strings.TrimSuffix(n, "/")
		if n == "" || n == "." {
			continue
		}
		p := dir + "/" + n
		w := r.addPath(field{text: p, pattern: p}, st, "write", idx, name)
		if !w.Glob {
			r.wrote(w.Real, nil) // running it later runs what nobody read
		}
		if m.link != "" {
			t := m.link
			if !strings.HasPrefix(t, "/") {
				base := path.Dir(p)
				if m.hard {
					base = dir
				}
				t = base + "/" + t
			}
			r.addPath(field{text: t, pattern: t}, st, "read", idx, name)
		}
	}
}
