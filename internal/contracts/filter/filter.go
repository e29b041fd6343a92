package filter

import (
	"bytes"
	"context"
	"unicode/utf8"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
)

// MaxRawBytes is the largest raw return the filter reads (agent-contracts.md §2.2: 4 MiB).
const MaxRawBytes = 4 << 20

// Outcomes of one filter run (the --json envelope's "outcome").
const (
	OutcomeAccepted = "accepted"
	OutcomeRejected = "rejected"
	OutcomeEscalate = "escalate"
)

// Result is the verdict on one raw return. An accepted one carries Output, the clean text for
// stdout, and in JSON mode Object; a rejected one carries Items in contract order.
type Result struct {
	Mode     Mode
	Accepted bool
	Variant  string // VariantComplete or VariantNeedsInput
	Output   []byte
	Object   *Value
	Items    []Item
	Notes    []string
}

// Check applies the report-filter contract of agent-contracts.md §2.4–§2.8 to raw; a non-nil repo
// enables the repository checks. Every problem with the return is an Item, and the error means
// a repository check could not run.
func Check(ctx context.Context, raw []byte, d *Declaration, repo Repo) (*Result, error) {
	res := &Result{Mode: d.Mode, Variant: VariantComplete, Notes: []string{}}
	src := bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(src) {
		res.Items = []Item{rootItem(reasonNotUTF8, RuleNotUTF8, "text")}
		return res, nil
	}
	if d.Mode == ModeHeadings {
		return checkHeadingsMode(src, d, res)
	}
	b := locateBlock(src)
	if b.fail != nil {
		res.Items = append(res.Items, *b.fail)
		if b.fail.Rule == RuleNoBlock {
			for i, k := range d.Schema.RequiredTopLevel() {
				t := d.Schema.label(d.Schema.nodesAt([]string{k}, []bool{false}))
				res.Items = append(res.Items, newItem(k, Required, t, "absent", RuleAbsent, jsonptr.Append("", k), []int{i}))
			}
		}
		return res, nil
	}
	obj := b.value
	if d.Union {
		variant, note, bad := route(obj)
		if bad != nil {
			res.Items = []Item{*bad}
			return res, nil
		}
		res.Variant = variant
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		if variant == VariantNeedsInput {
			res.Items = validateNeedsInput(obj)
			return finish(res, obj), nil
		}
	}
	res.Items = d.Schema.validateA(obj)
	if repo != nil {
		more, err := checkRepo(ctx, repo, d.Schema, obj)
		if err != nil {
			return nil, err
		}
		if len(more) > 0 {
			res.Items = dedupe(append(res.Items, more...))
			sortItems(res.Items)
		}
	}
	return finish(res, obj), nil
}

func finish(res *Result, obj *Value) *Result {
	if len(res.Items) == 0 {
		res.Accepted = true
		res.Object = obj
		// Keys in source order, numbers as their literals, no HTML escaping (agent-contracts.md
		// §2.7 "Accepted").
		res.Output = obj.Indent()
	}
	return res
}

// checkHeadingsMode validates a Markdown return. With the union on, a located JSON object whose
// top-level status is needs_input is routed to variant B, and any other status value than
// complete is a discriminator rejection; otherwise the headings apply.
func checkHeadingsMode(src []byte, d *Declaration, res *Result) (*Result, error) {
	if d.Union {
		if b := locateBlock(src); b.fail == nil {
			if _, has := b.value.Get("status"); has {
				variant, _, bad := route(b.value)
				if bad != nil {
					res.Items = []Item{*bad}
					return res, nil
				}
				if variant == VariantNeedsInput {
					res.Variant = variant
					res.Items = validateNeedsInput(b.value)
					return finish(res, b.value), nil
				}
			}
		}
	}
	out, items := checkHeadings(src, d.Headings)
	res.Items = items
	if len(items) == 0 {
		res.Accepted = true
		res.Output = out
	}
	return res, nil
}
