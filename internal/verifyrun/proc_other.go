//go:build !linux && !windows

package verifyrun

// liveMember is true where the platform's process list is not read: the signal 0 probe alone
// decides, so a zombie member counts as live until it is reaped.
func liveMember(int) bool { return true }
