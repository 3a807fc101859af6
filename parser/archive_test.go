package parser

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// hasPath says whether f holds a path of command name with the access
// and resolved path given.
func hasPath(f *Facts, name, access, real string) bool {
	for _, p := range f.Paths {
		if p.Command == name && p.Access == access && p.Real == real {
			return true
		}
	}
	return false
}

// TestArchiveMembers: extracting a tar (plain or gzip) or a zip the
// analysis can open writes the names its members have, and a member that
// is a link reads what it points to; an archive the script writes first,
// or a strip it cannot read, leaves only the directory written.
func TestArchiveMembers(t *testing.T) {
	ws, home := world(t)
	a := New(Config{SensitivePaths: []string{"~/.ssh"}})
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, h := range []*tar.Header{
		{Name: "pkg/.git/hooks/pre-commit", Mode: 0o755, Size: 3, Typeflag: tar.TypeReg},
		{Name: "pkg/lnk", Typeflag: tar.TypeSymlink, Linkname: home + "/.ssh"},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte("id\n"))
		}
	}
	tw.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tb.Bytes())
	zw.Close()
	var zb bytes.Buffer
	zz := zip.NewWriter(&zb)
	w, _ := zz.Create(".claude/settings.json")
	w.Write([]byte("{}"))
	zz.Close()
	for name, b := range map[string][]byte{"a.tar": tb.Bytes(), "a.tgz": gz.Bytes(), "a.zip": zb.Bytes()} {
		if err := os.WriteFile(filepath.Join(ws, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Workspace: ws, Home: home}
	for _, src := range []string{"tar xf a.tar", "tar -xzf a.tgz", "tar xf a.tar --strip-components=0"} {
		f := a.Analyze(src, opts)
		if !hasPath(f, "tar", "write", ws+"/pkg/.git/hooks/pre-commit") || !hasPath(f, "tar", "read", home+"/.ssh") {
			t.Errorf("%s: members not written or link not followed: %+v", src, f.Paths)
		}
	}
	if f := a.Analyze("tar xf a.tar --strip-components=1", opts); !hasPath(f, "tar", "write", ws+"/.git/hooks/pre-commit") {
		t.Errorf("strip 1: %+v", f.Paths)
	}
	for _, src := range []string{"unzip -o a.zip", "unzip a.zip -d out", "unzip -dout a.zip"} {
		f := a.Analyze(src, opts)
		want := ws + "/.claude/settings.json"
		if src != "unzip -o a.zip" {
			want = ws + "/out/.claude/settings.json"
		}
		if !hasPath(f, "unzip", "write", want) {
			t.Errorf("%s: member not written: %+v", src, f.Paths)
		}
	}
	// not read: written by the script first, a strip not known, members
	// named, a program of its own decompressing, a destination not read
	for _, src := range []string{"cp /dev/null a.tar; tar xf a.tar", "tar xf a.tar --strip-components $N", "unzip a.zip README.md",
		"tar -I cat -xf a.tar", "tar --use-compress-program=cat -xf a.tar", "unzip -od out a.zip"} {
		f := a.Analyze(src, opts)
		for _, p := range f.Paths {
			if p.Access == "write" && (filepath.Base(p.Real) == "pre-commit" || filepath.Base(p.Real) == "settings.json") {
				t.Errorf("%s: members read from an archive it should not trust: %+v", src, p)
			}
		}
		opaque := false
		for _, d := range f.Dynamic {
			opaque = opaque || d.Kind == "opaque_writes"
		}
		if !opaque {
			t.Errorf("%s: no opaque_writes fact: %+v", src, f.Dynamic)
		}
	}
}

// TestParsePatch: the names of unified, context and git diffs, renames,
// and the links a git diff creates.
func TestParsePatch(t *testing.T) {
	pn := parsePatch("diff --git a/x b/.git/hooks/pre-commit\nnew file mode 120000\n--- /dev/null\n+++ b/.git/hooks/pre-commit\t2024\n@@ -0,0 +1 @@\n+../../home\nIndex: c/d\n*** e/f\nrename to g/h\n")
	want := map[string]bool{"a/x": true, "b/.git/hooks/pre-commit": true, "c/d": true, "e/f": true, "g/h": true}
	for _, n := range pn.files {
		delete(want, n)
	}
	if len(want) != 0 {
		t.Errorf("names missing: %v (got %q)", want, pn.files)
	}
	if pn.links["b/.git/hooks/pre-commit"] != "../../home" {
		t.Errorf("link: %v", pn.links)
	}
	if s, ok := stripName("a/b/c", 1); !ok || s != "b/c" {
		t.Errorf("strip: %q %v", s, ok)
	}
	if _, ok := stripName("c", 1); ok {
		t.Error("strip past the name")
	}
}
