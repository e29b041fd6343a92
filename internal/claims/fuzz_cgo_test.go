//go:build cgo

package claims

import "testing"

// FuzzTreeSitterDecls feeds arbitrary bytes to every tree-sitter backend through Verify.
func FuzzTreeSitterDecls(f *testing.F) {
	f.Add(uint8(0), []byte(pyCur))
	f.Add(uint8(1), []byte(jsCur))
	f.Add(uint8(2), []byte(tsCur))
	f.Add(uint8(3), []byte(tsxCur))
	f.Add(uint8(4), []byte(rsCur))
	f.Add(uint8(5), []byte(javaClientCur))
	f.Add(uint8(5), []byte("class T { T() { this(1); } void M() { F(); new T(); T::M; } static void F() {} void F(int x) {} }\n"))
	f.Add(uint8(5), []byte("import static p.T.*; enum E { A { void M() {} }; void M() {} } record R(int x) { R { } }\n"))
	files := []string{"a/m.py", "a/m.js", "a/m.ts", "a/m.tsx", "a/lib.rs", "a/T.java"}
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		fuzzClaims(t, files[int(which)%len(files)], src)
	})
}
