package verification

// Recognize reports whether cmd is a recognised test-runner invocation under the grammar of
// §10.5.3, and which runner.
func Recognize(cmd string) (Runner, bool) {
	return "", false
}
