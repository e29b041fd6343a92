package claims

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/fsx"
	"github.com/mastermind-controller/mastermind/internal/repopath"
)

// declKind separates callables from the other declarations a symbol may name.
type declKind uint8

const (
	declFunction declKind = iota // a free function
	declMethod                   // a method, constructor or associated function of a type
	declOther                    // a class, type, variable or constant (claim_kind_mismatch)
)

// decl is one declaration of a parsed file, identified by container, name and overload: the Go
// receiver base type or the tree-sitter enclosing chain joined by ".", and the Java
// parameter-type list. Its signature is rendered on first use by render, or set in sig.
type decl struct {
	container string
	name      string
	overload  string
	kind      declKind
	ctor      bool
	line      int
	sig       string
	render    func(*decl) string
	node      any // backend handle of the declaration, for the call search and rendering
}

func (d *decl) callable() bool { return d.kind != declOther }

// signature returns the actual signature, rendering it once.
func (d *decl) signature() string {
	if d.render != nil {
		d.sig, d.render = d.render(d), nil
	}
	return d.sig
}

// unit is one parsed file. module is the Go package name or the module name derived from the
// path; impl is the backend's parse result.
type unit struct {
	path   string
	lang   language
	module string
	decls  []*decl
	impl   any
}

// loaded is a cached load: a unit, the failure reason, or absence at the baseline. raw keeps the
// bytes of a current file that failed to parse, so a search can tell whether it could hold a
// claimed symbol.
type loaded struct {
	u      *unit
	reason string
	absent bool
	raw    []byte
}

// verifier holds the state shared across the claims of one Verify call: the parse caches and the
// deterministic work budget.
type verifier struct {
	src         Source
	changed     []ChangedFile
	status      map[string]string
	baselineOID string

	filesParsed int
	bytesRead   int64
	exhausted   bool

	current  map[string]*loaded
	baseline map[string]*loaded
	raw      map[string]*rawFile

	listed   []string
	listErr  error
	listDone bool

	// missing is set once a claim needs a language backend this build leaves out.
	missing *BackendUnavailableError
}

type rawFile struct {
	data []byte
	ok   bool
}

func newVerifier(changed []ChangedFile, src Source, baselineOID string) *verifier {
	v := &verifier{
		src: src, baselineOID: baselineOID, status: map[string]string{},
		current: map[string]*loaded{}, baseline: map[string]*loaded{}, raw: map[string]*rawFile{},
	}
	for _, c := range changed {
		p := repopath.Normalize(c.Path)
		v.changed = append(v.changed, ChangedFile{Path: p, Status: c.Status})
		v.status[p] = c.Status
	}
	slices.SortFunc(v.changed, func(a, b ChangedFile) int { return compareStrings(a.Path, b.Path) })
	return v
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// charge accounts n bytes read and reports whether the budget still holds.
func (v *verifier) charge(n int) bool {
	v.bytesRead += int64(n)
	if v.bytesRead > MaxBytesRead {
		v.exhausted = true
	}
	return !v.exhausted
}

// load reads and parses the current or the baseline version of a file in a supported language.
// Results and failures are cached per path and version, so a file is parsed at most once.
func (v *verifier) load(p string, baseline bool) *loaded {
	cache := v.current
	if baseline {
		cache = v.baseline
	}
	if l, ok := cache[p]; ok {
		return l
	}
	l := v.loadUncached(p, baseline)
	if l.reason != reasonBudget {
		cache[p] = l
	}
	return l
}

func (v *verifier) loadUncached(p string, baseline bool) *loaded {
	if v.exhausted || v.filesParsed >= MaxFilesParsed {
		v.exhausted = true
		return &loaded{reason: reasonBudget}
	}
	var data []byte
	if baseline {
		d, ok, err := v.src.Baseline(p)
		switch {
		case err != nil:
			return &loaded{reason: reasonBaselineUnavailable}
		case !ok:
			return &loaded{absent: true}
		case len(d) > MaxFileBytes:
			return &loaded{reason: reasonTooLarge}
		}
		data = d
	} else {
		d, err := v.src.Current(p)
		switch {
		case fsx.ReasonOf(err) == fsx.ReasonTooLarge:
			return &loaded{reason: reasonTooLarge}
		case err != nil:
			return &loaded{reason: reasonCurrentUnavailable}
		case len(d) > MaxFileBytes:
			return &loaded{reason: reasonTooLarge}
		}
		data = d
	}
	if !v.charge(len(data)) {
		return &loaded{reason: reasonBudget}
	}
	v.filesParsed++
	l, _, _, _ := langOf(p)
	b, ok := backends[l]
	if !ok {
		return &loaded{reason: v.languageReason(p)}
	}
	u, err := safeParse(b.parse, p, data)
	if err != nil {
		if baseline {
			return &loaded{reason: reasonBaselineParse}
		}
		return &loaded{reason: reasonCurrentParse, raw: data}
	}
	u.lang = l
	if t, ok := u.impl.(interface{ dropTree() }); ok && (baseline || v.status[p] == "") {
		// Baseline versions only need identities, and unchanged files come from the target
		// search; keep memory to their declarations.
		t.dropTree()
	}
	return &loaded{u: u}
}

// safeParse turns a parser panic into a parse failure, so no source input can crash post-flight.
func safeParse(parse parseFunc, p string, data []byte) (u *unit, err error) {
	defer func() {
		if r := recover(); r != nil {
			u, err = nil, fmt.Errorf("parse %s: internal parser failure: %v", p, r)
		}
	}()
	return parse(p, data)
}

// readRaw reads a small current file that is not parsed, such as go.mod. ok is false when it
// cannot be read; the bytes count against the budget.
func (v *verifier) readRaw(p string) ([]byte, bool) {
	if r, ok := v.raw[p]; ok {
		return r.data, r.ok
	}
	d, err := v.src.Current(p)
	r := &rawFile{data: d, ok: err == nil}
	if r.ok {
		v.charge(len(d))
	}
	v.raw[p] = r
	return r.data, r.ok
}

// listFiles returns the sorted listing of Source.ListFiles, fetched once.
func (v *verifier) listFiles() ([]string, error) {
	if !v.listDone {
		v.listDone = true
		v.listed, v.listErr = v.src.ListFiles()
		v.listed = slices.Clone(v.listed)
		slices.Sort(v.listed)
	}
	return v.listed, v.listErr
}

// match is one declaration that a symbol spelling names.
type match struct {
	u *unit
	d *decl
}

// searchResult is the outcome of looking a symbol up in candidate files. problem, the first
// failure among them, decides when nothing matched, since the symbol may sit in that file; hidden
// says a file that failed to parse mentions the name, so a unique match is not trustworthy.
type searchResult struct {
	matches []match
	problem string
	hidden  string
}

// decide turns a search result into the unresolved reason that decides the outcome, or "" when the
// matches decide it. A failure of the claim's own file always decides; unchecked, the candidates'
// language reason, decides only when nothing matched.
func (res searchResult) decide(explicit bool, unchecked string) string {
	switch {
	case explicit && res.problem != "":
		return res.problem
	case len(res.matches) == 0 && res.problem != "":
		return res.problem
	case len(res.matches) == 0 && unchecked != "":
		return unchecked
	case len(res.matches) == 1 && res.hidden != "":
		return res.hidden
	}
	return ""
}

// search looks sym up in the given sorted files, all in supported languages, keeping the
// declarations keep accepts. The order makes problem and hidden deterministic.
func (v *verifier) search(paths []string, sym string, keep func(*decl) bool) searchResult {
	var res searchResult
	name := []byte(symbolName(sym))
	for _, p := range paths {
		l := v.load(p, false)
		if v.exhausted {
			return res
		}
		if l.reason != "" {
			if res.problem == "" {
				res.problem = l.reason
			}
			if res.hidden == "" && l.reason == reasonCurrentParse && mentions(l.raw, name) {
				res.hidden = l.reason
			}
			continue
		}
		for _, d := range l.u.decls {
			if keep(d) && matchSymbol(l.u, d, sym) {
				res.matches = append(res.matches, match{l.u, d})
			}
		}
	}
	return res
}

// mentions reports whether src holds name as a whole identifier, or name is empty. It
// over-approximates "the file could declare name" for a file that failed to parse.
func mentions(src, name []byte) bool {
	if len(name) == 0 {
		return true
	}
	for off := 0; ; {
		i := bytes.Index(src[off:], name)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(name)
		if (start == 0 || !identByte(src[start-1])) && (end == len(src) || !identByte(src[end])) {
			return true
		}
		off = start + 1
	}
}

// identByte reports whether b can continue an identifier in the supported languages: ASCII letters,
// digits, '_', '$' and any byte of a multi-byte UTF-8 sequence.
func identByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 || (b >= '0' && b <= '9') || (b|0x20 >= 'a' && b|0x20 <= 'z')
}

// symbolName is the bare declaration name of a symbol spelling, the part after the last ".", ":"
// or "#": "(*T).Get" -> "Get".
func symbolName(sym string) string {
	sym = strings.TrimSpace(sym)
	if i := strings.LastIndexAny(sym, ".:#"); i >= 0 {
		sym = sym[i+1:]
	}
	return strings.TrimSpace(sym)
}

// candidates returns the paths of a supported language, and language_unsupported when, with
// anyLanguage, any is in otherSourceExts. A candidate whose backend this build leaves out is
// recorded as missing, because a build with the backend would search it.
func (v *verifier) candidates(paths []string, anyLanguage bool) (supported []string, unchecked string) {
	for _, p := range paths {
		l, sup, listed, other := langOf(p)
		switch {
		case sup:
			supported = append(supported, p)
		case listed:
			v.noBackend(l, p)
		case anyLanguage && other && unchecked == "":
			unchecked = reasonLanguageUnsupported
		}
	}
	return supported, unchecked
}

// languageReason is the unresolved reason for a file this build has no backend for:
// language_unsupported, or reasonNoBackend for a §10.6 language, which is recorded as missing
// and never stands.
func (v *verifier) languageReason(p string) string {
	if l, _, listed, _ := langOf(p); listed {
		v.noBackend(l, p)
		return reasonNoBackend
	}
	return reasonLanguageUnsupported
}

// noBackend records the first file a claim needs whose language has no backend in this build.
func (v *verifier) noBackend(l language, p string) {
	if v.missing == nil {
		v.missing = &BackendUnavailableError{Language: l.displayName(), File: p}
	}
}

// changedCandidates are the files of D that are not deleted, in path order.
func (v *verifier) changedCandidates() []string {
	var out []string
	for _, c := range v.changed {
		if c.Status != StatusDeleted {
			out = append(out, c.Path)
		}
	}
	return out
}

// inChanged reports whether p is a changed file of D that is not deleted: the only files whose
// current declarations this task can have added or changed.
func (v *verifier) inChanged(p string) bool {
	switch v.status[p] {
	case StatusAdded, StatusModified, StatusUntracked:
		return true
	}
	return false
}

// explicitFile checks a claim's file, from_file or to_file field and returns the normalised path
// or the unresolved reason. A path that does not normalise or is not a readable regular file is
// current_file_unavailable whatever its extension; only a readable one gets a language reason.
func (v *verifier) explicitFile(raw string) (string, string) {
	p, ok := claimPath(raw)
	if !ok {
		return "", reasonCurrentUnavailable
	}
	if _, sup, _, _ := langOf(p); !sup {
		if r := v.probe(p); r != "" {
			return "", r
		}
		return "", v.languageReason(p)
	}
	return p, ""
}

// probe returns "" when the current file p is a readable regular file of at most MaxFileBytes,
// otherwise the unresolved reason. A supported-language file is loaded and cached instead.
func (v *verifier) probe(p string) string {
	if _, sup, _, _ := langOf(p); sup {
		l := v.load(p, false)
		switch {
		case v.exhausted:
			return reasonBudget
		case l.reason == reasonCurrentUnavailable || l.reason == reasonTooLarge:
			return l.reason
		}
		return ""
	}
	if v.exhausted {
		return reasonBudget
	}
	d, err := v.src.Current(p)
	switch {
	case fsx.ReasonOf(err) == fsx.ReasonTooLarge:
		return reasonTooLarge
	case err != nil:
		return reasonCurrentUnavailable
	case len(d) > MaxFileBytes:
		return reasonTooLarge
	case !v.charge(len(d)):
		return reasonBudget
	}
	return ""
}

// claimPath normalises a claim's file field like files_modified (executor-report-v1.md §4.2).
func claimPath(p string) (string, bool) {
	n, err := repopath.Clean(p)
	return n, err == nil
}
