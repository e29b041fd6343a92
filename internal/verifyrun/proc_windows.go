//go:build windows

package verifyrun

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// shellCommand returns the command that runs line through cmd.exe. The command line is passed
// verbatim (cmd /d /s /c "<line>"), since cmd.exe does not follow the C runtime's quoting rules.
func shellCommand(line string) *exec.Cmd {
	c := exec.Command("cmd.exe")
	c.SysProcAttr = &syscall.SysProcAttr{
		CmdLine:       `cmd.exe /d /s /c "` + line + `"`,
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP,
	}
	return c
}

// group is a job object holding the started command and every process it creates.
type group struct{ job windows.Handle }

// startGroup puts the started command into a new job object that kills its processes when the
// job is closed. A child created before the assignment escapes it; cmd.exe starts nothing
// before it has parsed its command line, which leaves that window narrow.
func startGroup(c *exec.Cmd) (*group, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(c.Process.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	return &group{job: job}, nil
}

// kill terminates every process of the job.
func (g *group) kill() error { return windows.TerminateJobObject(g.job, 1) }

// close releases the job object, which kills whatever is left in it.
func (g *group) close() { windows.CloseHandle(g.job) }

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which x/sys/windows does not define.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// alive reports whether the job still holds a process.
func (g *group) alive() bool {
	var info basicAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err == nil && info.ActiveProcesses > 0
}

// endSignal is always "" on Windows, which has no signals.
func endSignal(*os.ProcessState) string { return "" }
