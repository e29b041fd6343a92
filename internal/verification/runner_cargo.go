package verification

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

func init() {
	grammars[RunnerCargo] = grammar{
		switches: []string{"--lib", "--bins", "--tests", "--doc", "--workspace", "--all", "--all-features",
			"--no-default-features", "--release", "-r", "--locked", "--offline", "--frozen", "--quiet", "-q",
			"--verbose", "-v", "-vv", "--no-fail-fast"},
		valued: []string{"--manifest-path", "--package", "-p", "--exclude", "--test", "--bin", "--features",
			"-F", "--target", "--profile", "--target-dir"},
		positionals: true, // test-name filters
	}
}

// cargoScope resolves §10.5.4 for cargo test: the crate directory is the repository root, or the
// directory of --manifest-path <…/Cargo.toml> (a regular file inside the repository). Its src/
// and tests/ are scanned recursively, or the crate directory itself if neither exists.
// --workspace, --all, --doc, -p/--package or --exclude make the scope unknown.
func cargoScope(root string, inv *invocation) (scanPlan, bool) {
	p := scanPlan{runner: RunnerCargo, recursive: true}
	if inv.has("--workspace", "--all", "--doc", "-p", "--package", "--exclude") {
		return p, false
	}
	crate := ""
	if mp := inv.valued["--manifest-path"]; len(mp) > 0 {
		if len(mp) > 1 {
			return p, false
		}
		rel, ok := resolveDir(mp[0])
		if !ok || rel == "" || path.Base(rel) != "Cargo.toml" {
			return p, false
		}
		mode, ok := statInRoot(root, rel)
		if !ok || !mode.IsRegular() {
			return p, false
		}
		crate = path.Dir(rel)
		if crate == "." {
			crate = ""
		}
	}
	join := func(d string) string {
		if crate == "" {
			return d
		}
		return crate + "/" + d
	}
	var names []string
	for _, d := range []string{"src", "tests"} {
		mode, ok := statInRoot(root, join(d))
		if ok && mode.IsDir() {
			p.dirs = append(p.dirs, join(d))
			names = append(names, d+"/")
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(join(d)))); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return p, false // present but a symlink, a file or unreadable
		}
	}
	of := crate
	if crate == "" {
		of = "the repository root"
	}
	const attrs = "no Rust test attributes (#[test], ::test], #[rstest) found"
	if len(p.dirs) == 0 {
		p.dirs = []string{crate}
		if crate == "" {
			p.reason = attrs + " in the repository"
		} else {
			p.reason = attrs + " under " + crate
		}
		return p, true
	}
	p.reason = attrs + " under " + strings.Join(names, " and ") + " of " + of
	return p, true
}
