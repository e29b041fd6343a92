// Package buildinfo reports mastermind's version: values set by -ldflags at release time, else
// the module and VCS information Go stamps into the binary (conventions.md practice 14).
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Set with -ldflags "-X github.com/mastermind-controller/mastermind/internal/buildinfo.version=…"
// (and .commit, .date); the GitHub Action sets them from the action's ref.
var (
	version string
	commit  string
	date    string
)

// Info is the version record printed by `mastermind version --json`.
type Info struct {
	SchemaVersion int    `json:"schema_version"`
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	Date          string `json:"date"`
	Go            string `json:"go"`
	CGO           bool   `json:"cgo"`
}

// Get returns the build information of the running binary (resolve).
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	info := resolve(bi, version, commit, date)
	info.Go, info.CGO = runtime.Version(), cgoEnabled
	return info
}

// resolve derives the version record from the build info bi, which may be nil, and the -ldflags
// values, each of which wins when set. Without a module version it makes a pseudo-version from
// the VCS commit and time as Go does, else "unknown".
func resolve(bi *debug.BuildInfo, ldVersion, ldCommit, ldDate string) Info {
	info := Info{SchemaVersion: 1, Version: ldVersion, Commit: ldCommit, Date: ldDate}
	var rev, at string
	modified := false
	if bi != nil {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if info.Commit == "" && rev != "" {
		info.Commit = rev
		if modified {
			info.Commit += "-dirty"
		}
	}
	if info.Date == "" {
		info.Date = at
	}
	if info.Version == "" && info.Commit != "" {
		info.Version = pseudoVersion(strings.TrimSuffix(info.Commit, "-dirty"), info.Date, modified && ldCommit == "")
	}
	for _, p := range []*string{&info.Version, &info.Commit, &info.Date} {
		if *p == "" {
			*p = "unknown"
		}
	}
	return info
}

// pseudoVersion is a Go-style pseudo-version of commit rev made at (RFC 3339, "" when unknown).
func pseudoVersion(rev, at string, dirty bool) string {
	v := "v0.0.0-"
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		v += t.UTC().Format("20060102150405") + "-"
	}
	v += rev[:min(12, len(rev))]
	if dirty {
		v += "+dirty"
	}
	return v
}
