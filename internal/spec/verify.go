package spec

import (
	"fmt"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/markdown"
	"github.com/mastermind-controller/mastermind/internal/yamlstrict"
)

// verifyPrefixes are the body-line prefixes that declare a command (§1.5), case-sensitive.
var verifyPrefixes = []string{"**VERIFY**:", "**VERIFY:**", "VERIFY:"}

// readVerify collects the §1.5 command obligations, frontmatter items and then body VERIFY lines,
// trimmed and deduplicated, into VerifyDeclared. A frontmatter item repeating an earlier one with
// a different run or timeout is spec.frontmatter_invalid.
func (p *parser) readVerify() {
	seen := map[string]int{} // command -> index in VerifyCommands
	add := func(c string, d DeclaredCommand) (first int, dup bool) {
		c = strings.TrimSpace(c)
		if c == "" {
			return 0, false
		}
		if i, ok := seen[c]; ok {
			return i, true
		}
		seen[c] = len(p.spec.VerifyCommands)
		d.Cmd = c
		p.spec.VerifyCommands = append(p.spec.VerifyCommands, c)
		p.spec.VerifyDeclared = append(p.spec.VerifyDeclared, d)
		return 0, false
	}
	for _, c := range p.fmCmds {
		if strings.TrimSpace(c.value) == "" {
			p.add(RuleVerifyCommandEmpty, c.line, c.col, c.pointer,
				fmt.Sprintf("%s is blank; give the command to run, or remove the item", yamlstrict.FieldName(c.pointer)))
			continue
		}
		d := DeclaredCommand{Run: c.run, Witnessed: c.witnessed, Timeout: c.effectiveTimeout(), Line: c.line}
		if i, dup := add(c.value, d); dup {
			if prev := p.spec.VerifyDeclared[i]; prev.Run != d.Run || prev.Witnessed != d.Witnessed || prev.Timeout != d.Timeout {
				p.add(RuleFrontmatterInvalid, c.line, c.col, c.pointer, fmt.Sprintf(
					"%s repeats the command declared on line %d with a different run or timeout; declare each command once",
					yamlstrict.FieldName(c.pointer), prev.Line))
			}
		}
	}
	d := p.body
	classes := d.LineClasses()
	for n := 1; n <= d.LineCount(); n++ {
		if n < len(classes) && classes[n] != markdown.LineProse {
			continue
		}
		line := string(d.LineText(n))
		trimmed := strings.TrimLeft(line, " \t")
		prefix := ""
		for _, pf := range verifyPrefixes {
			if strings.HasPrefix(trimmed, pf) {
				prefix = pf
				break
			}
		}
		if prefix == "" {
			continue
		}
		col := len([]rune(line[:len(line)-len(trimmed)])) + 1
		sl, sc := p.bodyPos(n, col)
		cmd, ok := VerifyValue(trimmed[len(prefix):])
		if !ok {
			p.add(RuleVerifyUnterminated, sl, sc, "",
				fmt.Sprintf("%s line opens a command with backticks that are never closed on the same line; close it with the same number of backticks", prefix))
			continue
		}
		add(cmd, DeclaredCommand{Timeout: DefaultVerifyTimeout, Line: sl})
	}
	if p.modeKnown && p.spec.Frontmatter.Mode == ModeStrict && len(p.spec.VerifyCommands) == 0 {
		line, col := p.modeLine, p.modeCol
		p.add(RuleNoVerifyCommand, line, col, "/mode",
			"mode strict requires at least one verify command: add verify: [{cmd: \"…\"}] to the frontmatter or a VERIFY: `…` line to the body")
	}
}

// VerifyValue extracts the command from the text after a VERIFY prefix by the rules of §1.5.
// ok is false when an opening run of backticks has no closing run; an empty result declares
// nothing.
func VerifyValue(rest string) (cmd string, ok bool) {
	v := strings.TrimSpace(rest)
	n := 0
	for n < len(v) && v[n] == '`' {
		n++
	}
	if n == 0 {
		return v, true
	}
	for i := n; i < len(v); {
		if v[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(v) && v[j] == '`' {
			j++
		}
		if j-i == n {
			return strings.TrimSpace(v[n:i]), true
		}
		i = j
	}
	return "", false
}
