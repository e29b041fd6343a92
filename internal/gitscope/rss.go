package gitscope

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// DebugRSSEnv is the variable that turns on the peak-RSS report (gitscope.md §8.2 item 5).
const DebugRSSEnv = "MASTERMIND_DEBUG_RSS"

// ReportPeakRSS writes "mastermind: VmHWM: <value>", the process's peak resident set size from
// /proc/self/status, to w when MASTERMIND_DEBUG_RSS=1 and /proc exists. Call it just before the
// process exits; git child processes are not counted.
func ReportPeakRSS(w io.Writer) {
	if os.Getenv(DebugRSSEnv) != "1" {
		return
	}
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			fmt.Fprintf(w, "mastermind: VmHWM: %s\n", bytes.TrimSpace(v))
			return
		}
	}
}
