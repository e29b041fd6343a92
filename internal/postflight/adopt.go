package postflight

import (
	"context"
	"fmt"

	"github.com/mastermind-controller/mastermind/internal/finding"
	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/gitscope"
	"github.com/mastermind-controller/mastermind/internal/spec"
)

// adopt runs the first pre-flight of a task whose folder has a state.json but whose controller
// store has no record (run-task --pre-only --adopt, trust-model.md §3): the mirror's baseline is
// kept only when the approved spec is byte-for-byte the one the mirror names (spec_hash) and the
// baseline commit is an ancestor of HEAD, so that a forged or foreign state.json cannot move the
// baseline past the executor's work. Nothing else of the mirror is adopted: iteration, streak and
// status start afresh. A refused adoption changes nothing (exit 1).
func (c *controller) adopt(ctx context.Context, mirror *State) (*Outcome, error) {
	refuse := func(why string) (*Outcome, error) {
		return c.refuseAdopt(fmt.Sprintf("cannot adopt the baseline of %s: %s; run --pre-only without --adopt for a new baseline at HEAD", c.task.StateRel(), why)), nil
	}
	raw, err := c.files.readFile("spec.md", spec.MaxBytes)
	if err != nil {
		return refuse("the spec cannot be read (" + err.Error() + ")")
	}
	if fsx.SHA256Hex(raw) != mirror.SpecHash {
		return refuse("its spec_hash is not the hash of the current " + c.task.Spec)
	}
	head, unborn, err := c.git.Head(ctx)
	if err != nil {
		return c.res, err
	}
	if unborn {
		if mirror.BaselineRef != gitscope.EmptyTreeOID {
			return refuse("HEAD has no commits, so baseline " + mirror.BaselineRef + " cannot be its ancestor")
		}
	} else {
		ok, err := c.git.IsAncestor(ctx, mirror.BaselineRef, head)
		if err != nil {
			return refuse(fmt.Sprintf("baseline %s is not a commit of this repository (%v)", mirror.BaselineRef, err))
		}
		if !ok {
			return refuse(fmt.Sprintf("baseline %s is not an ancestor of HEAD %s", mirror.BaselineRef, head))
		}
	}
	c.adoptBaseline = mirror.BaselineRef
	res, err := c.preflight(ctx, nil)
	if err == nil && res.Outcome == OutcomePreReady {
		res.Adopted = mirror.BaselineRef
		res.Message += "; adopted baseline " + mirror.BaselineRef + " from " + c.task.StateRel()
	}
	return res, err
}

// RuleAdoptRefused is the pre-flight finding of an --adopt that cannot adopt (exit 1).
const RuleAdoptRefused = "preflight.adopt_refused"

// refuseAdopt ends an --adopt pre-flight with one error finding and msg, changing nothing.
func (c *controller) refuseAdopt(msg string) *Outcome {
	c.res.Findings = []finding.Finding{{Rule: RuleAdoptRefused, Class: finding.ClassError, File: c.task.StateRel(), Message: msg}}
	return c.refuse(PhasePreflight, OutcomePreRefused, msg)
}
