package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/postflight"
	"github.com/mastermind-controller/mastermind/internal/render"
	"github.com/mastermind-controller/mastermind/internal/textsafe"
	"github.com/spf13/cobra"
)

// ciWithoutBase is the warning of a gate without --base in CI (CI=true): there the branch's task
// records are all the executor's to write (trust-model.md I6).
const ciWithoutBase = "mastermind: warning: CI=true but no --base: this gate trusts the task records on the branch itself; gate against the protected base instead (mastermind gate --base origin/main)"

// checkGateBaseFlags applies the flag rules of --base and --head (usage errors).
func checkGateBaseFlags(cmd *cobra.Command, opts *GateOptions) error {
	f := cmd.Flags()
	switch {
	case f.Changed("base") && opts.Base == "":
		return usageErrorf("--base needs a revision")
	case f.Changed("head") && !f.Changed("base"):
		return usageErrorf("--head needs --base")
	case f.Changed("head") && opts.Head == "":
		return usageErrorf("--head needs a revision")
	case opts.Base != "" && f.Changed("since"):
		return usageErrorf("--base and --since cannot be used together (--base gates the whole range since the merge base)")
	case opts.Base != "" && opts.Record:
		return usageErrorf("--base and --record cannot be used together: the gate against a base reads commits and writes nothing")
	}
	return nil
}

// runGateBase resolves --base and --head (HEAD by default) and runs the gate against the base.
func runGateBase(ctx context.Context, opts *GateOptions, repo *gitscope.Repo) error {
	base, err := resolveGateRev(ctx, repo, "--base", opts.Base)
	if err != nil {
		return revError(opts, err)
	}
	head := ""
	if opts.Head != "" {
		if head, err = resolveGateRev(ctx, repo, "--head", opts.Head); err != nil {
			return revError(opts, err)
		}
	} else {
		oid, unborn, err := repo.Head(ctx)
		if err == nil && unborn {
			err = errors.New("HEAD has no commit yet; commit the work, or give --head")
		}
		if err != nil {
			return gateError(opts, "", fmt.Errorf("HEAD: %w", err))
		}
		head = oid
	}
	// In CI the checkout and its .git are the runner's, never the executor's: a work tree that
	// holds exactly the head commit may be audited in place.
	inPlace := os.Getenv("CI") == "true"
	res, err := postflight.GateBase(ctx, postflight.BaseGateOptions{Git: repo, Base: base, Head: head, InPlace: inPlace,
		FailOnDrift: opts.FailOn == "drift"})
	if err != nil {
		return gateError(opts, "", err)
	}
	return finishGate(opts, res, "")
}

// revError returns a usage error as it is and reports any other as the gate's operational error,
// with the JSON envelope under --format json.
func revError(opts *GateOptions, err error) error {
	var ue *UsageError
	if errors.As(err, &ue) {
		return err
	}
	return gateError(opts, "", err)
}

// resolveGateRev resolves a user revision to a full commit OID: a malformed one is a usage error
// (exit 2), one that names no commit operational (exit 3).
func resolveGateRev(ctx context.Context, repo *gitscope.Repo, flag, rev string) (string, error) {
	oid, err := repo.ResolveRevision(ctx, rev)
	if errors.Is(err, gitscope.ErrInvalidRevision) {
		return "", usageErrorf("%s: %s", flag, textsafe.Escape(err.Error()))
	}
	if err != nil {
		return "", fmt.Errorf("%s %s", flag, textsafe.Escape(err.Error()))
	}
	return oid, nil
}

// baseSummary is the summary line of gate --base:
// "gate --base <B>..<H>: <word> — <N> task(s) re-audited: <counts>; <M> range finding(s)".
func baseSummary(res *postflight.GateResult, opts *GateOptions, word string) string {
	r := res.Range
	head := fmt.Sprintf("gate --base %s..%s: %s", postflight.ShortOID(r.MergeBase), postflight.ShortOID(r.Head), word)
	verb := "re-audited"
	if r.Upstream != "" {
		// The local gate of a branch: "gate origin/main..HEAD + work tree (merge base <B>): ...".
		head = fmt.Sprintf("gate %s..HEAD + work tree (merge base %s): %s", textsafe.Escape(r.Upstream), postflight.ShortOID(r.MergeBase), word)
		verb = "gated"
	}
	var parts []string
	for _, s := range postflight.GateStatuses {
		if n := res.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, statusWord(s)))
		}
	}
	s := fmt.Sprintf("%s — %d path(s) changed, %d task(s) %s", head, r.Changed, len(res.Tasks), verb)
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	if n := len(res.Findings); n > 0 {
		s += fmt.Sprintf("; %d range finding(s)", n)
	}
	if opts.FailOn == "drift" {
		s += "; --fail-on drift"
	}
	return s
}

// contractLines are the text notes of a gate --base whose range adds tasks or rewrites specs:
// those contracts come from the branch itself, and a reviewer approves them.
func contractLines(r *postflight.RangeInfo) []string {
	var out []string
	if len(r.AddedTasks) > 0 {
		out = append(out, fmt.Sprintf("note: %d task(s) added on this branch bring their own spec; review them: %s", len(r.AddedTasks), strings.Join(r.AddedTasks, ", ")))
	}
	if len(r.ChangedSpecs) > 0 {
		out = append(out, fmt.Sprintf("note: %d spec(s) the base holds were rewritten on this branch; review them: %s", len(r.ChangedSpecs), strings.Join(r.ChangedSpecs, ", ")))
	}
	if len(r.TouchedTasks) > 0 {
		out = append(out, fmt.Sprintf("note: %d task folder(s) changed on this branch; review their records: %s", len(r.TouchedTasks), strings.Join(r.TouchedTasks, ", ")))
	}
	if len(r.ControllerFiles) > 0 {
		out = append(out, fmt.Sprintf("note: %d controller file(s) outside the task folders changed on this branch, not audited; review them: %s", len(r.ControllerFiles), strings.Join(escapeAll(r.ControllerFiles), ", ")))
	}
	if len(r.Accepted) > 0 {
		out = append(out, fmt.Sprintf("note: %d drift(s) accepted on this branch; review the decisions: %s", len(r.Accepted), strings.Join(acceptedList(r.Accepted, strconv.Quote), ", ")))
	}
	return out
}

// escapeAll is ps with control characters escaped (textsafe.Escape), for a text line.
func escapeAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = textsafe.Escape(p)
	}
	return out
}

// acceptedList renders each accepted task as "<task> (<reason>)", the reason through quote.
func acceptedList(as []postflight.AcceptedTask, quote func(string) string) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Task + " (" + quote(a.Reason) + ")"
	}
	return out
}

// rangeLine is the text line of a range finding: "❌ <kind>: <message>".
func rangeLine(f finding.Finding) string {
	return "❌ " + f.Rule + ": " + textsafe.Escape(f.Text())
}

// rangeFile is where a range finding is shown: its path, or the task folder's spec.md.
func rangeFile(f finding.Finding) string {
	if p := f.FieldString("file"); p != "" {
		return p
	}
	if t := f.FieldString("task"); t != "" {
		return postflight.TasksDir + "/" + t + "/spec.md"
	}
	return ""
}

// gateRangeJSON is the "range" object of the gate --base envelope.
type gateRangeJSON struct {
	Base      string `json:"base"`
	Head      string `json:"head"`
	MergeBase string `json:"merge_base"`
	Changed   int    `json:"changed_paths"`
	// AddedTasks are the task folders the range adds (their specs come with the branch).
	AddedTasks []string `json:"added_tasks"`
	// ChangedSpecs are the task folders whose spec.md the range rewrites.
	ChangedSpecs []string `json:"changed_specs"`
	// TouchedTasks are every task folder with a changed path in the range.
	TouchedTasks []string `json:"touched_tasks"`
	// ControllerFiles are the controller's files outside the task folders the range changes.
	ControllerFiles []string `json:"controller_files"`
	// Accepted are the tasks that passed as accepted drifts, with the planner's reason.
	Accepted []gateAcceptedJSON `json:"accepted"`
	// InPlace: the work tree held exactly the head commit and was audited in place.
	InPlace bool `json:"in_place"`
	// Upstream names the upstream of the local gate of a branch, null for gate --base; WorkTree
	// says the work tree was part of the range.
	Upstream *string `json:"upstream"`
	WorkTree bool    `json:"work_tree"`
}

// gateAcceptedJSON is one accepted drift of the range.
type gateAcceptedJSON struct {
	Task   string `json:"task"`
	Reason string `json:"reason"`
}

func rangeJSON(res *postflight.GateResult) (*gateRangeJSON, *render.Array) {
	if res.Range == nil {
		if len(res.Findings) == 0 {
			return nil, nil
		}
		// The local gate without a range: a task recorded open whose folder is gone.
		fs := auditArray(res.Findings)
		return nil, &fs
	}
	r := res.Range
	fs := auditArray(res.Findings)
	acc := []gateAcceptedJSON{}
	for _, a := range r.Accepted {
		acc = append(acc, gateAcceptedJSON{Task: a.Task, Reason: a.Reason})
	}
	return &gateRangeJSON{Base: r.Base, Head: r.Head, MergeBase: r.MergeBase, Changed: r.Changed,
		AddedTasks: append([]string{}, r.AddedTasks...), ChangedSpecs: append([]string{}, r.ChangedSpecs...),
		TouchedTasks: append([]string{}, r.TouchedTasks...), ControllerFiles: append([]string{}, r.ControllerFiles...), Accepted: acc, InPlace: r.InPlace,
		Upstream: strOrNull(r.Upstream), WorkTree: r.WorkTree}, &fs
}

// auditArray is fs in their audit shape (spec-and-lifecycle.md §7.2), converted one at a time as
// the envelope is written.
func auditArray(fs []finding.Finding) render.Array {
	return render.ArrayOf(fs, func(f finding.Finding) finding.Audit { return finding.Audit(f) })
}

// WriteMarkdown is the gate's job summary, rendered from the gate's own result. A gate that is not
// over a range reports false, so its summary is the finding sets', as for run-task.
func (v gateView) WriteMarkdown(m *render.Markdown) bool {
	if v.err != "" {
		m.Gate(render.GateSummary{Err: v.err})
		return true
	}
	if v.res == nil || v.res.Range == nil {
		return false
	}
	r := v.res.Range
	s := render.GateSummary{Outcome: gateWord(v.exit), Summary: v.summary, Upstream: r.Upstream,
		Base: postflight.ShortOID(r.Base), Head: postflight.ShortOID(r.Head), MergeBase: postflight.ShortOID(r.MergeBase), Changed: r.Changed,
		AddedTasks: r.AddedTasks, ChangedSpecs: r.ChangedSpecs, TouchedTasks: r.TouchedTasks, ControllerFiles: r.ControllerFiles, Findings: v.Findings()}
	for _, a := range r.Accepted {
		s.Accepted = append(s.Accepted, render.GateAccepted{Task: a.Task, Reason: a.Reason})
	}
	for _, task := range v.res.Tasks {
		row := render.GateRow{Task: task.Task.Name, Status: statusWord(task.Status), Tone: gateTone(task), Reason: gateReason(task)}
		if task.Counts != nil {
			row.Errors, row.Warnings = task.Counts.Errors, task.Counts.Warnings
		}
		s.Tasks = append(s.Tasks, row)
	}
	m.Gate(s)
	return true
}
