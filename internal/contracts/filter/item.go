package filter

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/textsafe"
)

// Presence values of an Item (agent-contracts.md §2.7 item form).
const (
	Required   = "required"
	Optional   = "optional"
	NotAllowed = "not allowed"
)

// Rule ids (agent-contracts.md §2.10). Variant-B rules are RuleNeedsInputPrefix + field name.
const (
	RuleNoBlock           = "filter.no_block"
	RuleMalformed         = "filter.malformed"
	RuleNotObject         = "filter.not_object"
	RuleNotUTF8           = "filter.not_utf8"
	RuleAbsent            = "filter.absent"
	RuleNull              = "filter.null"
	RuleType              = "filter.type"
	RuleEnum              = "filter.enum"
	RuleFormat            = "filter.format"
	RuleUnknownField      = "filter.unknown_field"
	RuleDiscriminator     = "filter.discriminator"
	RuleNeedsInputPrefix  = "filter.needs_input."
	RuleHeadingMissing    = "filter.heading_missing"
	RuleHeadingEmpty      = "filter.heading_empty"
	RuleRepoPathMissing   = "filter.repo.path_missing"
	RuleRepoLineRange     = "filter.repo.line_range"
	RuleRepoSHAUnresolved = "filter.repo.sha_unresolved"
	RuleRepoSHAAmbiguous  = "filter.repo.sha_ambiguous"
	RuleRepoSubject       = "filter.repo.subject_mismatch"
	RuleSchemaOther       = "filter.schema_other"
)

// Text of the contract blocks, verbatim (agent-contracts.md §2.7, §2.9).
const (
	RejectFirstLine = "REJECT: report did not conform to declared OUTPUT schema."
	RedispatchLine  = "Redispatch with corrected output. Do not re-run the work; only re-format."
	ListHeader      = "Missing/invalid:"
)

// Item is one line of the Missing/invalid list, `<Path> (<Presence>, <Type>) — <Reason>`. Path is
// the dotted display path such as "entry_points[0].file", and Pointer the JSON pointer of the
// value, "" for the whole return and for headings.
type Item struct {
	Path     string `json:"path"`
	Presence string `json:"-"`
	Required bool   `json:"required"`
	Type     string `json:"type"`
	Reason   string `json:"reason"`
	Rule     string `json:"rule"`
	Pointer  string `json:"pointer"`

	sortKey []int
}

// String renders the item line without its "  - " bullet. Control and bidi characters are
// escaped (textsafe) so a hostile return cannot rewrite the terminal.
func (it Item) String() string {
	return textsafe.Escape(it.Path) + " (" + it.Presence + ", " + textsafe.Escape(it.Type) + ") — " + textsafe.Escape(it.Reason)
}

func newItem(path, presence, typ, reason, rule, pointer string, key []int) Item {
	return Item{Path: path, Presence: presence, Required: presence == Required, Type: typ,
		Reason: reason, Rule: rule, Pointer: pointer, sortKey: key}
}

// RejectText renders the REJECT block of agent-contracts.md §2.7 with "\n" line endings.
func RejectText(items []Item) string {
	var b strings.Builder
	b.WriteString(RejectFirstLine + "\n" + ListHeader + "\n")
	for _, it := range items {
		b.WriteString("  - " + it.String() + "\n")
	}
	b.WriteString(RedispatchLine + "\n")
	return b.String()
}

// EscalateText renders the ESCALATE block of agent-contracts.md §2.9: the redispatch line is
// deliberately absent. n is the number of consecutive rejections.
func EscalateText(id string, n int, items []Item) string {
	var b strings.Builder
	b.WriteString("ESCALATE: dispatch " + id + " was rejected " + strconv.Itoa(n) + " times in a row; stop redispatching and ask the user.\n")
	b.WriteString(ListHeader + "\n")
	for _, it := range items {
		b.WriteString("  - " + it.String() + "\n")
	}
	return b.String()
}

// sortItems orders items by their sort keys (§2.7 "Item order"): lexicographic on the key, a
// parent before its children; equal keys keep their order, then by reason for determinism.
func sortItems(items []Item) {
	slices.SortStableFunc(items, func(a, b Item) int {
		return cmp.Or(slices.Compare(a.sortKey, b.sortKey), strings.Compare(a.Reason, b.Reason))
	})
}

// dedupe drops repeated identical items, since one leaf can be reached twice through $ref.
func dedupe(items []Item) []Item {
	seen := map[string]bool{}
	out := items[:0]
	for _, it := range items {
		k := it.Pointer + "\x00" + it.String() + "\x00" + it.Rule
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	return out
}
