package finding

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestKindsMatchTheDesign: the kinds table has the rows of spec-and-lifecycle.md §9.1, in its
// order and with its classes; every identity and primary field is one of the kind's fields
// there, and every kind has help text.
func TestKindsMatchTheDesign(t *testing.T) {
	f, err := os.Open("../../docs/design/spec-and-lifecycle.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `([a-z_.]+)` \\| (error|warning) \\| (.*?) \\| (.*) \\|$")
	type docKind struct {
		id, class string
		fields    []string
		reserved  bool
	}
	var doc []docKind
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "### 9.1 "):
			in = true
		case strings.HasPrefix(line, "### ") && in:
			in = false
		}
		if m := row.FindStringSubmatch(line); in && m != nil {
			var fields []string
			for _, fl := range strings.Split(m[3], ",") {
				fl = strings.TrimSpace(fl)
				fl = strings.TrimSuffix(strings.Trim(strings.Fields(fl)[0], "`"), "?")
				fields = append(fields, strings.TrimSuffix(fl, "`?"))
			}
			doc = append(doc, docKind{m[1], m[2], fields, strings.HasPrefix(m[4], "reserved")})
		}
	}
	if len(doc) != len(Kinds) {
		t.Fatalf("the design lists %d kinds, the table %d", len(doc), len(Kinds))
	}
	for i, k := range Kinds {
		d := doc[i]
		if k.ID != d.id || string(k.Class) != d.class || k.Reserved != d.reserved {
			t.Errorf("row %d: table %s %s reserved=%v, design %s %s reserved=%v", i, k.ID, k.Class, k.Reserved, d.id, d.class, d.reserved)
		}
		for _, fl := range append(slices.Clone(k.Identity), k.Primary...) {
			if !slices.Contains(d.fields, fl) {
				t.Errorf("%s: field %q is not one of %v", k.ID, fl, d.fields)
			}
		}
		if k.Help == "" || !strings.HasSuffix(k.Help, ".") {
			t.Errorf("%s: help %q", k.ID, k.Help)
		}
		if KindRank(k.ID) != i || KindClass(k.ID) != k.Class {
			t.Errorf("%s: rank %d class %s", k.ID, KindRank(k.ID), KindClass(k.ID))
		}
	}
	if KindRank("no_such_kind") != len(Kinds) || KindClass("no_such_kind") != ClassError {
		t.Error("an unknown kind must sort last and count as an error")
	}
}
