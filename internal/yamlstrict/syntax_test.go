package yamlstrict

import "testing"

// TestDecodeStricterThanYAMLv3 covers the source checks that reject input
// yaml.v3 accepts although YAML 1.2 does not (suite cases 9C9N, DK95-01,
// HRE5, SU5Z and variants), and valid look-alikes that must stay accepted.
func TestDecodeStricterThanYAMLv3(t *testing.T) {
	runDecodeCases(t, Decode, []decodeCase{
		{"9C9N flow not indented", "---\nflow: [a,\nb,\nc]\n", "-", []want{"decode.syntax  3:1", "decode.syntax  4:1"}},
		{"closing bracket not indented", "a: [x,\n]\n", "-", []want{"decode.syntax  2:1"}},
		{"flow mapping not indented", "a: {b: 1,\nc: 2}\n", "-", []want{"decode.syntax  2:1"}},
		{"DK95-01 tab as indentation in quoted", "foo: \"bar\n\tbaz\"\n", "-", []want{"decode.syntax  2:1"}},
		{"single quoted not indented", "a:\n  b: 'x\n  y'\n", "-", []want{"decode.syntax  3:3"}},
		{"compact mapping in list", "- a: \"x\n  y\"\n", "-", []want{"decode.syntax  2:3"}},
		{"HRE5 escaped single quote", "---\ndouble: \"quoted \\' scalar\"\n", "-", []want{"decode.syntax  2:17"}},
		{"invalid escape in flow", "a: [\"\\'\"]\n", "-", []want{"decode.syntax  1:6"}},
		{"escape yaml.v3 rejects itself", "a: \"\\q\"\n", "-", []want{"decode.syntax  0:0"}},
		// yaml.v3 rejects the valid YAML 1.2 escape \/ (executor-report-v1.md §1.5: JSON needs its own decoder).
		{"escaped slash (decoder limitation)", "a: \"\\/\"\n", "-", []want{"decode.syntax  0:0"}},
		{"SU5Z comment without space", "key: \"value\"# invalid comment\n", "-", []want{"decode.syntax  1:13"}},
		{"comment without space single", "key: 'value'#x\n", "-", []want{"decode.syntax  1:13"}},
		// Valid look-alikes.
		{"indented flow", "flow: [a,\n  b,\n  c]\n", `{"flow":["a","b","c"]}`, nil},
		{"indented by one", "flow: [a,\n b]\n", `{"flow":["a","b"]}`, nil},
		{"comment lines in flow", "flow: [a, # one\n# two\n  b]\n", `{"flow":["a","b"]}`, nil},
		{"blank lines in flow", "flow: [a,\n\n  b]\n", `{"flow":["a","b"]}`, nil},
		{"root flow mapping", "{a: 1,\nb: [2,\n3]}\n", `{"a":1,"b":[2,3]}`, nil},
		{"quoted continuation indented", "a:\n  b: \"x\n    y\"\n  c: 'p\n\n   q'\n", `{"a":{"b":"x y","c":"p\nq"}}`, nil},
		{"quoted continuation with tab after spaces", "foo: \"bar\n \tbaz\"\n", `{"foo":"bar baz"}`, nil},
		{"escapes", "a: \"\\x41 \\u00e9 \\t \\\\ \\\" \\0 \\e \\N \\_ \\L \\P \\\n  end\"\n", "", nil},
		{"doubled single quote", "a: 'it''s # not a comment'\n", `{"a":"it's # not a comment"}`, nil},
		{"hash inside quotes", "a: \"x#y\"\nb: \"x\" # comment\n", `{"a":"x#y","b":"x"}`, nil},
		{"brackets inside quotes in flow", "a: [\"]\", '[', \"}{\",\n  '#']\n", `{"a":["]","[","}{","#"]}`, nil},
		{"quote inside plain in flow", "a: [x'y, p\"q]\n", `{"a":["x'y","p\"q"]}`, nil},
		{"hash inside plain in flow", "a: [x#y,\n  z]\n", `{"a":["x#y","z"]}`, nil},
		{"multi-line plain in flow", "a: [x\n  y, z]\n", `{"a":["x y","z"]}`, nil},
		{"flow in nested list", "a:\n  - [1,\n     2]\n  - {b: \"c\n      d\"}\n", `{"a":[[1,2],{"b":"c d"}]}`, nil},
		{"list at key indentation", "a:\n- [1,\n  2]\n", `{"a":[[1,2]]}`, nil},
		{"tagged quoted with invalid escape", "a: !!str \"x\\'\"\n", "-", []want{"decode.syntax  1:12"}},
		{"tagged quoted in flow", "a: [!!str \"]\", &x '[',\n  1]\n", `{"a":[null,null,1]}`, []want{"value.tag /a/0 1:5", "value.anchor /a/1 1:16"}},
		{"anchored flow", "a: &x [1,\n  \"]\"]\n", `{"a":null}`, []want{"value.anchor /a 1:4"}},
	})
}
