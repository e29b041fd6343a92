// Package buildinfo reports mastermind's version: values set by -ldflags at release time, with a
// runtime/debug.ReadBuildInfo fallback (conventions.md practice 14).
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Set with -ldflags "-X github.com/mastermind-controller/mastermind/internal/buildinfo.version=…".
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

// Get returns the build information. A value that neither ldflags nor the build info supplies is
// "unknown"; builds with -buildvcs=false carry no vcs settings.
func Get() Info {
	info := Info{SchemaVersion: 1, Version: version, Commit: commit, Date: date, Go: runtime.Version(), CGO: cgoEnabled}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.time":
				if info.Date == "" {
					info.Date = s.Value
				}
			case "vcs.modified":
				if s.Value == "true" && info.Commit != "" && commit == "" {
					info.Commit += "-dirty"
				}
			}
		}
	}
	for _, p := range []*string{&info.Version, &info.Commit, &info.Date} {
		if *p == "" {
			*p = "unknown"
		}
	}
	return info
}
