package verifyrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	"github.com/mastermind-controller/mastermind/internal/spec"
)

// RunAll runs the planned commands one at a time in plan order (verification-receipts.md §2),
// each with its own timeout, streaming each output to st.Output(n), and saves the set under fp.
// Without rerun, a set st holds for fp with the same commands is returned instead with reused
// true, and nothing runs; st may be nil. An error ends the set, and after ErrCanceled nothing is
// saved.
func RunAll(ctx context.Context, plan []spec.DeclaredCommand, fp string, rerun bool, st Store, opts Options) (rs []*Receipt, reused bool, err error) {
	if len(plan) == 0 {
		return nil, false, nil
	}
	if st != nil && !rerun {
		saved, ok, err := st.Load(fp)
		if err != nil {
			return nil, false, err
		}
		if ok && samePlan(saved, plan) {
			return saved, true, nil
		}
	}
	for i, d := range plan {
		o := opts
		o.InputsFingerprint = fp
		var w io.WriteCloser
		if st != nil {
			if w, err = st.Output(i + 1); err != nil {
				return nil, false, fmt.Errorf("store the output of %q: %w", d.Cmd, err)
			}
			o.Output = w
		}
		r, err := Run(ctx, d, o)
		if w != nil {
			if cerr := w.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("store the output of %q: %w", d.Cmd, cerr)
			}
		}
		if err != nil {
			return nil, false, err
		}
		rs = append(rs, r)
	}
	if st != nil {
		if err := st.Save(fp, rs); err != nil {
			return nil, false, fmt.Errorf("store the receipts: %w", err)
		}
	}
	return rs, false, nil
}

func samePlan(rs []*Receipt, plan []spec.DeclaredCommand) bool {
	if len(rs) != len(plan) {
		return false
	}
	for i, r := range rs {
		if r.Cmd != plan[i].Cmd || r.TimeoutMS != effectiveTimeout(plan[i]).Milliseconds() {
			return false
		}
	}
	return true
}

// PathState is one changed path with its status and content id, for Fingerprint and
// ModifiedPaths.
type PathState struct {
	Path    string
	Status  string
	Content string // a content id such as WorktreeContent returns
}

// Fingerprint is the receipts' inputs fingerprint of verification-receipts.md §4: the SHA-256 of
// the spec hash, the baseline, the changed set and the planned commands with their timeouts. Two
// post-flights with the same one run the same commands on the same content, so the second reuses
// the first one's receipts.
func Fingerprint(specHash, baseline string, changed []PathState, plan []spec.DeclaredCommand) string {
	h := sha256.New()
	field := func(s string) {
		io.WriteString(h, strconv.Itoa(len(s)))
		io.WriteString(h, ":")
		io.WriteString(h, s)
	}
	field("mastermind verification receipts v1")
	field(specHash)
	field(baseline)
	field(strconv.Itoa(len(changed)))
	for _, p := range changed {
		field(p.Path)
		field(p.Status)
		field(p.Content)
	}
	field(strconv.Itoa(len(plan)))
	for _, d := range plan {
		field(d.Cmd)
		field(effectiveTimeout(d).String())
	}
	return hex.EncodeToString(h.Sum(nil))
}
