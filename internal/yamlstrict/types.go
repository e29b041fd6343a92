package yamlstrict

// Kind is the kind of a node as resolved from the source: by the YAML 1.2
// core schema for plain scalars, by the literal form for JSON.
type Kind uint8

// Node kinds.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindString
	KindList
	KindMap
)

// String returns the kind's name as used in messages: "null", "bool", "int",
// "float", "string", "list" or "mapping".
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindString:
		return "string"
	case KindList:
		return "list"
	case KindMap:
		return "mapping"
	}
	return "unknown"
}

// Pos is a position in the decoded text: 1-based line, 1-based column counted
// in code points, a tab as one. The zero Pos means no position.
type Pos struct{ Line, Column int }

// IsZero reports whether p carries no position.
func (p Pos) IsZero() bool { return p.Line == 0 && p.Column == 0 }

// Node describes one node of the decoded value, keyed by JSON pointer in
// Doc.Nodes.
type Node struct {
	// Pos is the value's position. An empty value (`key:`) is positioned
	// right after the colon.
	Pos Pos
	// KeyPos is the position of the node's mapping key; zero for list items
	// and the root.
	KeyPos Pos
	// Kind is the kind resolved from the source, even when a value rule
	// replaced the value with nil.
	Kind Kind
	// Literal is the scalar's text without quotes, the decoded string for a
	// quoted scalar; "" for collections.
	Literal string
	// Plain reports a plain scalar (not quoted, not literal/folded). JSON
	// numbers, true and false count as plain; JSON strings do not.
	Plain bool
	// Keys holds a mapping's accepted keys in source order.
	Keys []string
	// Len is a list's number of items.
	Len int
}

// Issue is one violation of a decode.* or value.* rule.
type Issue struct {
	// Rule is the rule id: "decode.syntax", "decode.multi_document",
	// "decode.not_mapping", "value.null", "value.tag", "value.anchor",
	// "value.merge_key", "value.key_not_string", "value.duplicate_key",
	// "value.depth", "value.non_finite" or "value.int_range".
	Rule string
	// Pointer is the RFC 6901 JSON pointer of the concerned node, "" for the
	// root and for decode.* issues.
	Pointer string
	// Pos is the position of the concerned node (see executor-report-v1.md
	// §1.6); zero when the decoder gave none.
	Pos Pos
	// Message is the executor-report-v1.md §5.2 template text, naming the
	// field in dotted form (phases[0].id).
	Message string
}

// Doc is a decoded document.
type Doc struct {
	// Value is the root value: map[string]any, []any, string, int64,
	// float64 or bool; nil where a value rule rejected the node.
	Value any
	// Nodes holds every node by JSON pointer; "" is the root. Entries
	// removed by a value rule (bad key, duplicate) have no node.
	Nodes map[string]*Node
}

// Rule ids produced by this package (executor-report-v1.md §2.1, §2.2, §5.2).
const (
	RuleSyntax        = "decode.syntax"
	RuleMultiDocument = "decode.multi_document"
	RuleNotMapping    = "decode.not_mapping"
	RuleNull          = "value.null"
	RuleTag           = "value.tag"
	RuleAnchor        = "value.anchor"
	RuleMergeKey      = "value.merge_key"
	RuleKeyNotString  = "value.key_not_string"
	RuleDuplicateKey  = "value.duplicate_key"
	RuleDepth         = "value.depth"
	RuleNonFinite     = "value.non_finite"
	RuleIntRange      = "value.int_range"
)

// MaxDepth is the deepest allowed nesting; the root mapping is depth 1
// (executor-report-v1.md §2.2).
const MaxDepth = 64
