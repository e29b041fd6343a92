package claims

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchRepo builds 50 changed Go files of 40 functions each (half modified with a baseline, half
// added), plus 100 claims: 50 function_added and 50 integration claims across packages.
func benchRepo() (*memSource, []ChangedFile, []Claim) {
	cur, base := map[string]string{"go.mod": "module example.com/b\n"}, map[string]string{}
	var changed []ChangedFile
	for i := range 50 {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%02d\n\nimport \"example.com/b/p%02d\"\n\ntype T struct{ n int }\n\n", i, (i+1)%50)
		for j := range 40 {
			fmt.Fprintf(&b, "// F%02d_%02d does work.\nfunc F%02d_%02d(ctx context.Context, n int) (int, error) {\n\tfor k := 0; k < n; k++ {\n\t\tn += k\n\t}\n\treturn p%02d.F%02d_%02d(ctx, n)\n}\n\n",
				i, j, i, j, (i+1)%50, (i+1)%50, j)
			fmt.Fprintf(&b, "func (t *T) M%02d_%02d() int { return t.n }\n\n", i, j)
		}
		p := fmt.Sprintf("p%02d/f.go", i)
		cur[p] = b.String()
		if i%2 == 0 {
			base[p] = strings.Replace(b.String(), "func F", "func G", 1)
			changed = append(changed, ChangedFile{p, StatusModified})
		} else {
			changed = append(changed, ChangedFile{p, StatusAdded})
		}
	}
	var claims []Claim
	for i := range 50 {
		claims = append(claims, fa(fmt.Sprintf("F%02d_%02d", i, i%40)))
		claims = append(claims, ig(fmt.Sprintf("F%02d_%02d", i, 1), fmt.Sprintf("p%02d.F%02d_%02d", (i+1)%50, (i+1)%50, 1)))
	}
	for i := range claims {
		claims[i].Index = i
	}
	return &memSource{cur: cur, base: base}, changed, claims
}

func TestBenchRepoOutcomes(t *testing.T) {
	src, changed, claims := benchRepo()
	out := verifyAll(t, context.Background(), claims, changed, src, "b0")
	counts := map[string]int{}
	for _, c := range out {
		rule := ""
		if c.Finding != nil {
			rule = c.Finding.Rule
		}
		counts[string(c.Status)+" "+rule]++
	}
	// Odd files are added (25 verified). Even files are modified and only their first function
	// was G<i>_00 at the baseline, so F<i>_<i%40> is new only for i = 0 and 40. All 50 calls
	// resolve through go.mod imports.
	if counts["verified "] != 25+2+50 || counts["failed claimed_symbol_not_added"] != 23 || len(counts) != 2 {
		t.Errorf("outcomes %v", counts)
	}
}

func BenchmarkVerify100Claims50Files(b *testing.B) {
	src, changed, claims := benchRepo()
	b.ResetTimer()
	for range b.N {
		verifyAll(b, context.Background(), claims, changed, src, "b0")
	}
}

func BenchmarkParse50Files(b *testing.B) {
	src, changed, _ := benchRepo()
	b.ResetTimer()
	for range b.N {
		for _, c := range changed {
			if _, err := parseGo(c.Path, []byte(src.cur[c.Path])); err != nil {
				b.Fatal(err)
			}
		}
	}
}
