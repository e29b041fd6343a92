//go:build !windows

package verifyrun

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// shellCommand returns the command that runs line through sh -c, in a new process group whose
// id is the shell's pid.
func shellCommand(line string) *exec.Cmd {
	c := exec.Command("/bin/sh", "-c", line)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// group is the process group of a started command.
type group struct{ pgid int }

// startGroup records the process group of c after Start.
func startGroup(c *exec.Cmd) (*group, error) {
	return &group{pgid: c.Process.Pid}, nil
}

// kill sends SIGKILL to every process of the group. A group that is already gone is not an error.
func (g *group) kill() error {
	err := unix.Kill(-g.pgid, unix.SIGKILL)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// close releases the group's resources (nothing on Unix).
func (g *group) close() {}

// alive reports whether a process of the group still exists and is not a zombie: the signal 0
// probe, then (where the platform lists processes) whether any member is more than a zombie
// waiting for its new parent to reap it.
func (g *group) alive() bool {
	err := unix.Kill(-g.pgid, 0)
	if err != nil && !errors.Is(err, unix.EPERM) {
		return false
	}
	return liveMember(g.pgid)
}

// endSignal returns the name of the signal that ended the process ("SIGKILL"), or "".
func endSignal(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	if name := unix.SignalName(ws.Signal()); name != "" {
		return name
	}
	return ws.Signal().String()
}
