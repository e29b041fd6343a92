package yamlstrict

import (
	"math"
	"testing"
)

// TestResolvePlainCore covers every row of executor-report-v1.md §2.3.
func TestResolvePlainCore(t *testing.T) {
	tests := []struct {
		in   string
		want any
		kind Kind
		rule string
	}{
		{"", nil, KindNull, RuleNull},
		{"~", nil, KindNull, RuleNull},
		{"null", nil, KindNull, RuleNull},
		{"Null", nil, KindNull, RuleNull},
		{"NULL", nil, KindNull, RuleNull},
		{"nULL", "nULL", KindString, ""},
		{"true", true, KindBool, ""},
		{"True", true, KindBool, ""},
		{"TRUE", true, KindBool, ""},
		{"false", false, KindBool, ""},
		{"False", false, KindBool, ""},
		{"FALSE", false, KindBool, ""},
		{"tRUE", "tRUE", KindString, ""},
		{"0", int64(0), KindInt, ""},
		{"-0", int64(0), KindInt, ""},
		{"+12", int64(12), KindInt, ""},
		{"-12", int64(-12), KindInt, ""},
		{"9223372036854775807", int64(math.MaxInt64), KindInt, ""},
		{"-9223372036854775808", int64(math.MinInt64), KindInt, ""},
		{"9223372036854775808", nil, KindInt, RuleIntRange},
		{"-9223372036854775809", nil, KindInt, RuleIntRange},
		{"0o17", int64(15), KindInt, ""},
		{"0o777777777777777777777", int64(0o777777777777777777777), KindInt, ""},
		{"0o1777777777777777777777", nil, KindInt, RuleIntRange},
		{"0o8", "0o8", KindString, ""},
		{"0o", "0o", KindString, ""},
		{"-0o17", "-0o17", KindString, ""},
		{"0x1F", int64(31), KindInt, ""},
		{"0x1f", int64(31), KindInt, ""},
		{"0x7FFFFFFFFFFFFFFF", int64(math.MaxInt64), KindInt, ""},
		{"0x8000000000000000", nil, KindInt, RuleIntRange},
		{"0X1F", "0X1F", KindString, ""},
		{"0x", "0x", KindString, ""},
		{"0xG", "0xG", KindString, ""},
		{"1.5", 1.5, KindFloat, ""},
		{"-1.5", -1.5, KindFloat, ""},
		{"1.", 1.0, KindFloat, ""},
		{".5", 0.5, KindFloat, ""},
		{"+.5", 0.5, KindFloat, ""},
		{"1e3", 1000.0, KindFloat, ""},
		{"1E-2", 0.01, KindFloat, ""},
		{"1.5e+2", 150.0, KindFloat, ""},
		{"0.0", 0.0, KindFloat, ""},
		{"1e999", nil, KindFloat, RuleNonFinite},
		{".", ".", KindString, ""},
		{"1e", "1e", KindString, ""},
		{"e3", "e3", KindString, ""},
		{"1.2.3", "1.2.3", KindString, ""},
		{".inf", nil, KindFloat, RuleNonFinite},
		{".Inf", nil, KindFloat, RuleNonFinite},
		{".INF", nil, KindFloat, RuleNonFinite},
		{"+.inf", nil, KindFloat, RuleNonFinite},
		{"-.Inf", nil, KindFloat, RuleNonFinite},
		{".nan", nil, KindFloat, RuleNonFinite},
		{".NaN", nil, KindFloat, RuleNonFinite},
		{".NAN", nil, KindFloat, RuleNonFinite},
		{"-.nan", "-.nan", KindString, ""},
		{".iNF", ".iNF", KindString, ""},
		{"inf", "inf", KindString, ""},
		{"NaN", "NaN", KindString, ""},
		// The §2.3 consequences table: each differs from yaml.v3's own resolution.
		{"010", int64(10), KindInt, ""},
		{"0011", int64(11), KindInt, ""},
		{"08", int64(8), KindInt, ""},
		{"1_000", "1_000", KindString, ""},
		{"0b101", "0b101", KindString, ""},
		{"yes", "yes", KindString, ""},
		{"no", "no", KindString, ""},
		{"on", "on", KindString, ""},
		{"off", "off", KindString, ""},
		{"y", "y", KindString, ""},
		{"n", "n", KindString, ""},
		{"2024-01-15", "2024-01-15", KindString, ""},
		{"1.1", 1.1, KindFloat, ""},
		{"1e3", 1000.0, KindFloat, ""},
		{"<<", "<<", KindString, ""},
	}
	for _, tt := range tests {
		v, k, rule := resolvePlain(tt.in)
		if v != tt.want || k != tt.kind || rule != tt.rule {
			t.Errorf("resolvePlain(%q) = %#v, %v, %q; want %#v, %v, %q", tt.in, v, k, rule, tt.want, tt.kind, tt.rule)
		}
	}
}

func TestKindString(t *testing.T) {
	want := map[Kind]string{KindNull: "null", KindBool: "bool", KindInt: "int", KindFloat: "float",
		KindString: "string", KindList: "list", KindMap: "mapping"}
	for k, s := range want {
		if k.String() != s {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), s)
		}
	}
}

func TestFieldName(t *testing.T) {
	for _, tt := range []struct{ ptr, want string }{
		{"", "the report"},
		{"/phases/0/id", "phases[0].id"},
		{"/status", "status"},
		{"/verifications/12/observed/exit_code", "verifications[12].observed.exit_code"},
		{"/a~1b/c~0d", "a/b.c~d"},
		{"/a/0/1", "a[0][1]"},
		{"/7", "7"},
	} {
		if got := FieldName(tt.ptr); got != tt.want {
			t.Errorf("FieldName(%q) = %q, want %q", tt.ptr, got, tt.want)
		}
	}
}
