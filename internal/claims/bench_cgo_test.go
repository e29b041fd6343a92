//go:build cgo

package claims

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// tsBenchLangs are the tree-sitter languages of the benchmark: a file path pattern (%02d is the
// file number) and a generator for file i of n with 40 functions, each calling the same-numbered
// function of file i+1 through that language's module import.
var tsBenchLangs = []struct {
	name string
	path string
	gen  func(i, next int) string
}{
	{"python", "pkg/p%02d.py", func(i, next int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "import p%02d\n\n\nclass T%02d:\n    def m(self, n):\n        return n\n\n", next, i)
		for j := range 40 {
			fmt.Fprintf(&b, "\ndef f%02d_%02d(n):\n    for k in range(n):\n        n += k\n    return p%02d.f%02d_%02d(n)\n", i, j, next, next, j)
		}
		return b.String()
	}},
	{"javascript", "web/p%02d.js", func(i, next int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "import * as p%02d from \"./p%02d.js\";\n\nexport class T%02d { m(n) { return n; } }\n", next, next, i)
		for j := range 40 {
			fmt.Fprintf(&b, "\nexport function f%02d_%02d(n) {\n  for (let k = 0; k < n; k++) { n += k; }\n  return p%02d.f%02d_%02d(n);\n}\n", i, j, next, next, j)
		}
		return b.String()
	}},
	{"typescript", "web/p%02d.ts", func(i, next int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "import * as p%02d from \"./p%02d\";\n\nexport class T%02d { m(n: number): number { return n; } }\n", next, next, i)
		for j := range 40 {
			fmt.Fprintf(&b, "\nexport function f%02d_%02d(n: number): number {\n  for (let k = 0; k < n; k++) { n += k; }\n  return p%02d.f%02d_%02d(n);\n}\n", i, j, next, next, j)
		}
		return b.String()
	}},
	{"tsx", "ui/p%02d.tsx", func(i, next int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "import * as p%02d from \"./p%02d\";\n\nexport function View%02d(): JSX.Element { return <div className=\"v\">{f%02d_00(1)}</div>; }\n", next, next, i, i)
		for j := range 40 {
			fmt.Fprintf(&b, "\nexport function f%02d_%02d(n: number): number {\n  for (let k = 0; k < n; k++) { n += k; }\n  return p%02d.f%02d_%02d(n);\n}\n", i, j, next, next, j)
		}
		return b.String()
	}},
	{"rust", "src/p%02d.rs", func(i, next int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "use crate::p%02d;\n\npub struct T%02d;\n\nimpl T%02d {\n    pub fn m(&self, n: u32) -> u32 { n }\n}\n", next, i, i)
		for j := range 40 {
			fmt.Fprintf(&b, "\npub fn f%02d_%02d(n: u32) -> u32 {\n    let mut n = n;\n    for k in 0..n { n += k; }\n    p%02d::f%02d_%02d(n)\n}\n", i, j, next, next, j)
		}
		return b.String()
	}},
	{"java", "src/p%02d/C.java", func(i, next int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%02d;\n\npublic class C {\n", i)
		for j := range 40 {
			fmt.Fprintf(&b, "    @Deprecated\n    public static int f%02d_%02d(int n) {\n        for (int k = 0; k < n; k++) { n += k; }\n        return p%02d.C.f%02d_%02d(n);\n    }\n\n", i, j, next, next, j)
		}
		b.WriteString("}\n")
		return b.String()
	}},
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
		cur[p] = l.gen(i, (i+1)%tsBenchFiles)
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
