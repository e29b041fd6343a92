package claims

import (
	"context"
	"testing"
)

// fuzzClaims exercises every check step over one arbitrary file.
func fuzzClaims(t *testing.T, file string, src []byte) {
	m := &memSource{cur: map[string]string{file: string(src), "go.mod": "module m\n"},
		base: map[string]string{file: string(src[:len(src)/2])}}
	changed := []ChangedFile{{file, StatusModified}}
	claims := []Claim{fa("F"), fa("T.M", "signature=func (T) M()"), fa("(*T).M"), fa("p.F"),
		ig("F", "G"), ig("T.M", "F", "to_file="+file), ig("main", "x.Y", "from_file="+file)}
	for i := range claims {
		claims[i].Index = i
	}
	out := verifyAll(t, context.Background(), claims, changed, m, "b0")
	if len(out) != len(claims) {
		t.Fatalf("%d checks for %d claims", len(out), len(claims))
	}
	for i, c := range out {
		checkShape(t, c)
		if c.ClaimIndex != i {
			t.Fatalf("check %d has index %d", i, c.ClaimIndex)
		}
	}
}

func FuzzGoDecls(f *testing.F) {
	f.Add([]byte(goClientCur))
	f.Add([]byte("package p\n\nfunc F() { G(); x.Y(); func() { F() }() }\n\nfunc G() {}\n\nfunc (T) M() { F[int]() }\n"))
	f.Add([]byte("package p\nimport x \"m/x\"\nfunc main() { x.Y(nil) }\n"))
	f.Add([]byte("package p\nfunc (*T[K, V]) M(a,\n b int,\n) (c error)\n"))
	f.Add([]byte("package p\nfunc F("))
	f.Fuzz(func(t *testing.T, src []byte) {
		if u, err := parseGo("p/p.go", src); err == nil {
			for _, d := range u.decls {
				if d.callable() && d.signature() == "" {
					t.Errorf("callable %s.%s has no signature", d.container, d.name)
				}
				_ = matchSymbol(u, d, "("+d.container+")."+d.name)
			}
		}
		fuzzClaims(t, "p/p.go", src)
	})
}
