package markdown

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark/util"
)

type cmExample struct {
	Example    int    `json:"example"`
	Section    string `json:"section"`
	Markdown   string `json:"markdown"`
	CodeBlocks []struct {
		Lang    *string `json:"lang"`
		Content string  `json:"content"`
	} `json:"expected_code_blocks"`
}

// loadCommonMark reads the CommonMark 0.31.2 fence and HTML examples copied from
// /work/shared/testdata/commonmark (see testdata/README.md).
func loadCommonMark(t testing.TB) []cmExample {
	t.Helper()
	data, err := os.ReadFile("testdata/commonmark-fences-and-html.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Examples []cmExample `json:"examples"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Examples) < 90 {
		t.Fatalf("only %d examples", len(f.Examples))
	}
	return f.Examples
}

// lang renders a fence's info string the way a CommonMark renderer does for class="language-…":
// the first word, with backslash escapes and entity references resolved.
func lang(info string) *string {
	if info == "" {
		return nil
	}
	w := strings.FieldsFunc(info, func(r rune) bool { return r == ' ' || r == '\t' })[0]
	b := util.UnescapePunctuations([]byte(w))
	b = util.ResolveNumericReferences(b)
	b = util.ResolveEntityNames(b)
	s := string(b)
	return &s
}

// TestCodeBlocksCommonMark checks that fenced-block extraction agrees with every CommonMark
// example's expected code blocks (language and content, in document order).
func TestCodeBlocksCommonMark(t *testing.T) {
	type block struct {
		Lang    *string
		Content string
	}
	for _, ex := range loadCommonMark(t) {
		var want, got []block
		for _, c := range ex.CodeBlocks {
			want = append(want, block{c.Lang, c.Content})
		}
		d := Parse([]byte(ex.Markdown))
		for _, f := range d.CodeBlocks() {
			got = append(got, block{lang(f.Info), string(f.Content)})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("example %d (%s) %q: code blocks differ (-want +got):\n%s", ex.Example, ex.Section, ex.Markdown, diff)
		}
	}
}

// TestFenceGeometry checks the opening and closing lines, indentation and the content-line
// mapping used for YAML positions (executor-report-v1.md §1.6).
func TestFenceGeometry(t *testing.T) {
	tests := []struct {
		src              string
		open, close, ind int
		char             byte
		length           int
		info             string
		content          string
		line2, col2      int // file position of content line 2, column 1
	}{
		{"```yaml\na: 1\nb: 2\n```\n", 1, 4, 0, '`', 3, "yaml", "a: 1\nb: 2\n", 3, 1},
		{"x\n\n  ~~~~ yaml \n  a: 1\n    b\n  ~~~~~\n", 3, 6, 2, '~', 4, "yaml", "a: 1\n  b\n", 5, 3},
		{"```yaml\r\na: 1\r\nb: 2\r\n", 1, 0, 0, '`', 3, "yaml", "a: 1\r\nb: 2\r\n", 3, 1},
		{"````\na\n```\n", 1, 0, 0, '`', 4, "", "a\n```\n", 3, 1},
	}
	for _, tt := range tests {
		d := Parse([]byte(tt.src))
		fs := d.CodeBlocks()
		if len(fs) != 1 {
			t.Fatalf("%q: %d code blocks", tt.src, len(fs))
		}
		f := fs[0]
		if f.OpenLine != tt.open || f.CloseLine != tt.close || f.Indent != tt.ind || f.Char != tt.char ||
			f.Length != tt.length || f.Info != tt.info || string(f.Content) != tt.content {
			t.Errorf("%q: got open %d close %d indent %d char %q len %d info %q content %q", tt.src,
				f.OpenLine, f.CloseLine, f.Indent, f.Char, f.Length, f.Info, f.Content)
		}
		if l, c := f.ContentPosition(2, 1); l != tt.line2 || c != tt.col2 {
			t.Errorf("%q: ContentPosition(2,1) = %d:%d, want %d:%d", tt.src, l, c, tt.line2, tt.col2)
		}
	}
}

func TestCheckSentinel(t *testing.T) {
	const begin = "<!-- mastermind:report-begin -->"
	tests := []struct{ src, want string }{
		{begin + "\n", ""},
		{begin + " \t\r\n", ""},
		{"  " + begin + "\n", "is indented by 2 spaces"},
		{begin + " x\n", "has text after -->"},
		{"<!--mastermind:report-begin-->\n", `is not spelled exactly "<!-- mastermind:report-begin -->"`},
		{"<!-- MASTERMIND:report-begin -->\n", `is not spelled exactly "<!-- mastermind:report-begin -->"`},
		{"<!-- mastermind:report-begin\n-->\n", "spans 2 lines"},
	}
	for _, tt := range tests {
		d := Parse([]byte(tt.src))
		top := d.TopLevel()
		if len(top) != 1 || !IsTopLevelComment(top[0]) {
			t.Fatalf("%q: not one top-level comment block", tt.src)
		}
		if got := d.CheckSentinel(top[0], begin); got != tt.want {
			t.Errorf("%q: CheckSentinel = %q, want %q", tt.src, got, tt.want)
		}
	}
	// Comments nested in containers are not top-level comments.
	for _, src := range []string{"> " + begin + "\n", "- " + begin + "\n"} {
		d := Parse([]byte(src))
		found := false
		for _, n := range d.TopLevel() {
			found = found || IsTopLevelComment(n)
		}
		if found {
			t.Errorf("%q: nested comment reported as top-level", src)
		}
	}
}

func TestNodeSpan(t *testing.T) {
	src := "para\nline\n\n> quote\n> more\n\n- a\n\n  b\n\n```\nx\n```\n"
	d := Parse([]byte(src))
	var got []Span
	var kinds []string
	for _, n := range d.TopLevel() {
		got = append(got, d.NodeSpan(n))
		kinds = append(kinds, KindName(n))
	}
	want := []Span{{1, 2}, {4, 5}, {7, 9}, {11, 13}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"paragraph", "block quote", "list", "fenced code block"}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}
