// Command probe prints buildinfo.Get() as JSON, for buildinfo's tests of real builds.
package main

import (
	"encoding/json"
	"os"

	"github.com/mastermind-controller/mastermind/internal/buildinfo"
)

func main() {
	_ = json.NewEncoder(os.Stdout).Encode(buildinfo.Get())
}
