//go:build cgo

package claims

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// tsBenchLangs are the tree-sitter languages of the benchmark: a file path pattern (%02d is the
// file number) and the text of file i of n: head, then 40 functions (fn for j = 0..39), then
// tail. Each function calls the same-numbered function of file i+1 through that language's
// module import. In head and fn, %02[1]d is i, %02[2]d is i+1 and, in fn, %02[3]d is j.
var tsBenchLangs = []struct {
	name, path     string
	head, fn, tail string
}{
	{"python", "pkg/p%02d.py",
		"import p%02[2]d\n\n\nclass T%02[1]d:\n    def m(self, n):\n        return n\n\n",
		"\ndef f%02[1]d_%02[3]d(n):\n    for k in range(n):\n        n += k\n    return p%02[2]d.f%02[2]d_%02[3]d(n)\n", ""},
	{"javascript", "web/p%02d.js",
		"import * as p%02[2]d from \"./p%02[2]d.js\";\n\nexport class T%02[1]d { m(n) { return n; } }\n",
		"\nexport function f%02[1]d_%02[3]d(n) {\n  for (let k = 0; k < n; k++) { n += k; }\n  return p%02[2]d.f%02[2]d_%02[3]d(n);\n}\n", ""},
	{"typescript", "web/p%02d.ts",
		"import * as p%02[2]d from \"./p%02[2]d\";\n\nexport class T%02[1]d { m(n: number): number { return n; } }\n",
		"\nexport function f%02[1]d_%02[3]d(n: number): number {\n  for (let k = 0; k < n; k++) { n += k; }\n  return p%02[2]d.f%02[2]d_%02[3]d(n);\n}\n", ""},
	{"tsx", "ui/p%02d.tsx",
		"import * as p%02[2]d from \"./p%02[2]d\";\n\nexport function View%02[1]d(): JSX.Element { return <div className=\"v\">{f%02[1]d_00(1)}</div>; }\n",
		"\nexport function f%02[1]d_%02[3]d(n: number): number {\n  for (let k = 0; k < n; k++) { n += k; }\n  return p%02[2]d.f%02[2]d_%02[3]d(n);\n}\n", ""},
	{"rust", "src/p%02d.rs",
		"use crate::p%02[2]d;\n\npub struct T%02[1]d;\n\nimpl T%02[1]d {\n    pub fn m(&self, n: u32) -> u32 { n }\n}\n",
		"\npub fn f%02[1]d_%02[3]d(n: u32) -> u32 {\n    let mut n = n;\n    for k in 0..n { n += k; }\n    p%02[2]d::f%02[2]d_%02[3]d(n)\n}\n", ""},
	{"java", "src/p%02d/C.java",
		"package p%02[1]d;\n\npublic class C {\n",
		"    @Deprecated\n    public static int f%02[1]d_%02[3]d(int n) {\n        for (int k = 0; k < n; k++) { n += k; }\n        return p%02[2]d.C.f%02[2]d_%02[3]d(n);\n    }\n\n", "}\n"},
}

// tsBenchFile is the text of file i of language l; next is the file its functions call.
func tsBenchFile(l, i, next int) string {
	lang := tsBenchLangs[l]
	var b strings.Builder
	fmt.Fprintf(&b, lang.head, i, next)
	for j := range 40 {
		fmt.Fprintf(&b, lang.fn, i, next, j)
	}
	b.WriteString(lang.tail)
	return b.String()
}

const tsBenchFiles = 20

// tsBenchRepo builds 20 added files of 40 functions in one tree-sitter language, and 40 claims:
// 20 function_added and 20 integration claims (every one verifiable).
func tsBenchRepo(lang int) (*memSource, []ChangedFile, []Claim) {
	l := tsBenchLangs[lang]
	cur := map[string]string{}
	var changed []ChangedFile
	for i := range tsBenchFiles {
		p := fmt.Sprintf(l.path, i)
		cur[p] = tsBenchFile(lang, i, (i+1)%tsBenchFiles)
		changed = append(changed, ChangedFile{p, StatusAdded})
	}
	var claims []Claim
	for i := range tsBenchFiles {
		next := (i + 1) % tsBenchFiles
		claims = append(claims, fa(fmt.Sprintf("f%02d_%02d", i, i%40)))
		claims = append(claims, ig(fmt.Sprintf("f%02d_%02d", i, 1), fmt.Sprintf("f%02d_%02d", next, 1)))
	}
	for i := range claims {
		claims[i].Index = i
	}
	return &memSource{cur: cur, base: map[string]string{}}, changed, claims
}

// Every benchmark claim holds, so the benchmark measures real parsing and call search.
func TestTreeSitterBenchOutcomes(t *testing.T) {
	for i, l := range tsBenchLangs {
		src, changed, claims := tsBenchRepo(i)
		for _, c := range verifyAll(t, context.Background(), claims, changed, src, "b0") {
			if c.Status != Verified {
				t.Errorf("%s claim %d: %s", l.name, c.ClaimIndex, outcome(c))
			}
		}
	}
}

func BenchmarkVerifyTreeSitter(b *testing.B) {
	for i, l := range tsBenchLangs {
		b.Run(l.name, func(b *testing.B) {
			src, changed, claims := tsBenchRepo(i)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				verifyAll(b, context.Background(), claims, changed, src, "b0")
			}
		})
	}
}
