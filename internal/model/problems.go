package model

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A model an NPU compiler wrote can have dozens of operators with the same
// problem (an Ethos-U model: 73 problems, an 18 KB line). The error stays
// one line: problems that differ only in the operator are one entry
// ("operators 3, 7 and 12 (CUSTOM \"ethos-u\"): ..."), and past
// maxShownProblems entries the rest are counted.

// maxShownProblems bounds the entries UnsupportedError's message lists.
const maxShownProblems = 8

// maxShownOperators bounds the operator indices one entry lists.
const maxShownOperators = 6

// opProblem splits "subgraph 2: operator 12 (CUSTOM "x"): message" into
// the subgraph prefix, the index, the operator and the message.
var opProblem = regexp.MustCompile(`^((?:subgraph \d+: )?)operator (\d+) (\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)): (.*)$`)

// signature is the operator's tensors that lowering messages end with,
// different for each operator of a group.
var signature = regexp.MustCompile(` \((?:inputs|outputs) [^()]*\)$`)

// summarize renders the problems as one line, grouped and capped.
func summarize(problems []string) string {
	type group struct {
		text string // the problem as reported, for a group of one
		head string // subgraph prefix
		op   string // "(CUSTOM "ethos-u")"
		msg  string // the message without the operator's signature
		ops  []int
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, p := range problems {
		m := opProblem.FindStringSubmatch(p)
		if m == nil {
			groups = append(groups, &group{text: p})
			continue
		}
		idx, err := strconv.Atoi(m[2])
		if err != nil {
			groups = append(groups, &group{text: p})
			continue
		}
		msg := signature.ReplaceAllString(m[4], "")
		key := m[1] + "\x00" + m[3] + "\x00" + msg
		if g, ok := byKey[key]; ok {
			g.ops = append(g.ops, idx)
			continue
		}
		g := &group{text: p, head: m[1], op: m[3], msg: msg, ops: []int{idx}}
		byKey[key] = g
		groups = append(groups, g)
	}
	var parts []string
	for _, g := range groups[:min(len(groups), maxShownProblems)] {
		if len(g.ops) < 2 {
			parts = append(parts, g.text)
			continue
		}
		var ids []string
		for _, i := range g.ops[:min(len(g.ops), maxShownOperators)] {
			ids = append(ids, strconv.Itoa(i))
		}
		list := strings.Join(ids, ", ")
		if n := len(g.ops) - maxShownOperators; n > 0 {
			list += fmt.Sprintf(" and %d more", n)
		}
		parts = append(parts, fmt.Sprintf("%s%d operators %s %s: %s", g.head, len(g.ops), list, g.op, g.msg))
	}
	if n := len(groups) - maxShownProblems; n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(parts, "; ")
}
