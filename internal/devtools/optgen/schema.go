package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// schema is what options.fbs declares.
type schema struct {
	enums   map[string]*enum
	members []*member // the BuiltinOptions union, in file order
	tables  []*table  // in file order
}

// enum is a byte enum: its members' values by name.
type enum struct {
	name   string
	values map[string]int
}

// member is one member of the BuiltinOptions union.
type member struct {
	table string
	num   int      // its union type
	ops   []string // the operators (schema names) that carry it
	line  int
}

// table is an options table with all its fields.
type table struct {
	name   string
	doc    []string // the comment lines above it
	fields []*field // in slot order
	member *member
	line   int
}

// field is one field of a table; its slot is its index in table.fields.
type field struct {
	name       string // schema name, snake_case
	typ        string // int, bool, float, string, [int] or an enum's name
	def        string // the default as written, "" when none
	deprecated bool
	comment    string // the line's trailing comment
	line       int
}

// The lines of options.fbs, once trimmed; see its header.
var (
	commentLine = regexp.MustCompile(`^//(.*)$`)
	enumStart   = regexp.MustCompile(`^enum ([A-Za-z][A-Za-z0-9_]*) : byte \{$`)
	enumValue   = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)(?: = ([0-9]+))?,$`)
	unionStart  = regexp.MustCompile(`^union BuiltinOptions \{$`)
	unionMember = regexp.MustCompile(`^([A-Z][A-Za-z0-9]*) = ([0-9]+), +// ([A-Z][A-Z0-9_]*(?: [A-Z][A-Z0-9_]*)*)$`)
	tableStart  = regexp.MustCompile(`^table ([A-Z][A-Za-z0-9]*Options) \{$`)
	fieldLine   = regexp.MustCompile(`^([a-z][a-z0-9]*(?:_[a-z0-9]+)*):(\[int\]|[A-Za-z][A-Za-z0-9_]*)(?: = ([A-Za-z0-9_.+-]+))?( \(deprecated\))?;(?: +// (.+))?$`)
)

// scalarTypes are the field types besides enums.
var scalarTypes = map[string]bool{"int": true, "bool": true, "float": true, "string": true, "[int]": true}

// parseSchema parses and checks options.fbs; name prefixes its errors.
func parseSchema(name, text string) (*schema, error) {
	s := &schema{enums: map[string]*enum{}}
	var (
		doc     []string // comment lines since the last blank line or block
		inEnum  *enum
		next    int // the value of the enum's next member without one
		inUnion bool
		unions  int
		inTable *table
	)
	errf := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	names := map[string]int{} // enum and table names: their line
	declare := func(n string, line int) error {
		if l, ok := names[n]; ok {
			return errf(line, "%s is already declared on line %d", n, l)
		}
		names[n] = line
		return nil
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, raw := range lines {
		ln := i + 1
		l := strings.TrimSpace(raw)
		if m := commentLine.FindStringSubmatch(l); m != nil {
			if inEnum == nil && !inUnion && inTable == nil {
				doc = append(doc, strings.TrimPrefix(m[1], " "))
			}
			continue
		}
		if l == "" {
			doc = nil
			continue
		}
		switch {
		case inEnum != nil:
			if l == "}" {
				if len(inEnum.values) == 0 {
					return nil, errf(ln, "enum %s has no members", inEnum.name)
				}
				inEnum = nil
				continue
			}
			m := enumValue.FindStringSubmatch(l)
			if m == nil {
				return nil, errf(ln, "want an enum member (NAME, or NAME = value,) or }, have %q", l)
			}
			if m[2] != "" {
				v, err := strconv.Atoi(m[2])
				if err != nil || v < next {
					return nil, errf(ln, "enum member %s: value %s is not above the previous member's", m[1], m[2])
				}
				next = v
			}
			if next > math.MaxInt8 {
				return nil, errf(ln, "enum member %s: value %d does not fit a byte", m[1], next)
			}
			if _, dup := inEnum.values[m[1]]; dup {
				return nil, errf(ln, "enum %s: member %s appears twice", inEnum.name, m[1])
			}
			inEnum.values[m[1]] = next
			next++
		case inUnion:
			if l == "}" {
				inUnion = false
				continue
			}
			m := unionMember.FindStringSubmatch(l)
			if m == nil {
				return nil, errf(ln, "want a union member (TableName = number,  // OPERATOR ...) or }, have %q", l)
			}
			num, err := strconv.Atoi(m[2])
			if err != nil || num < 1 || num > math.MaxUint8 {
				return nil, errf(ln, "union member %s: type %s is not in [1, 255]", m[1], m[2])
			}
			s.members = append(s.members, &member{table: m[1], num: num, ops: strings.Fields(m[3]), line: ln})
		case inTable != nil:
			if l == "}" {
				inTable = nil
				continue
			}
			m := fieldLine.FindStringSubmatch(l)
			if m == nil {
				return nil, errf(ln, "want a field (name:type;, name:type = default; or name:type (deprecated);, optionally with a // comment) or }, have %q", l)
			}
			inTable.fields = append(inTable.fields, &field{name: m[1], typ: m[2], def: m[3], deprecated: m[4] != "", comment: m[5], line: ln})
		default:
			if m := enumStart.FindStringSubmatch(l); m != nil {
				if err := declare(m[1], ln); err != nil {
					return nil, err
				}
				inEnum, next = &enum{name: m[1], values: map[string]int{}}, 0
				s.enums[m[1]] = inEnum
			} else if unionStart.MatchString(l) {
				if unions++; unions > 1 {
					return nil, errf(ln, "a second union BuiltinOptions")
				}
				inUnion = true
			} else if m := tableStart.FindStringSubmatch(l); m != nil {
				if err := declare(m[1], ln); err != nil {
					return nil, err
				}
				inTable = &table{name: m[1], doc: doc, line: ln}
				s.tables = append(s.tables, inTable)
			} else {
				return nil, errf(ln, "want a comment, enum Name : byte {, union BuiltinOptions { or table NameOptions {, have %q", l)
			}
		}
		doc = nil
	}
	if inEnum != nil || inUnion || inTable != nil {
		return nil, errf(len(lines), "the file ends inside a block")
	}
	if unions == 0 {
		return nil, fmt.Errorf("%s: no union BuiltinOptions", name)
	}
	return s, s.check(errf)
}

// check validates what the file declares together: unique union members,
// numbers and operators; tables that are union members, with unique
// fields of known types and defaults those types can hold.
func (s *schema) check(errf func(int, string, ...any) error) error {
	byTable := map[string]*member{}
	byNum := map[int]*member{}
	byOp := map[string]*member{}
	for _, m := range s.members {
		if o, dup := byTable[m.table]; dup {
			return errf(m.line, "%s is already a member on line %d", m.table, o.line)
		}
		if o, dup := byNum[m.num]; dup {
			return errf(m.line, "%s: type %d is already %s's", m.table, m.num, o.table)
		}
		for _, op := range m.ops {
			if o, dup := byOp[op]; dup {
				return errf(m.line, "%s: operator %s already carries %s", m.table, op, o.table)
			}
			byOp[op] = m
		}
		byTable[m.table], byNum[m.num] = m, m
	}
	for _, t := range s.tables {
		if t.member = byTable[t.name]; t.member == nil {
			return errf(t.line, "table %s is no member of union BuiltinOptions (the reader checks only the members' types)", t.name)
		}
		if len(t.fields) == 0 {
			return errf(t.line, "table %s has no fields", t.name)
		}
		seen := map[string]bool{}
		for _, f := range t.fields {
			if seen[f.name] {
				return errf(f.line, "%s: field %s appears twice", t.name, f.name)
			}
			seen[f.name] = true
			if !scalarTypes[f.typ] && s.enums[f.typ] == nil {
				return errf(f.line, "%s.%s: unknown type %s (int, bool, float, string, [int] or an enum above)", t.name, f.name, f.typ)
			}
			if _, err := s.defaultOf(f); err != nil {
				return errf(f.line, "%s.%s: %v", t.name, f.name, err)
			}
		}
	}
	return nil
}

// defaultOf is a field's default as a Go constant of its type: "" for the
// zero value (no default, or one equal to zero) and for the types without
// defaults (string, [int]).
func (s *schema) defaultOf(f *field) (string, error) {
	if f.def == "" {
		return "", nil
	}
	switch f.typ {
	case "int":
		v, err := strconv.ParseInt(f.def, 10, 32)
		if err != nil {
			return "", fmt.Errorf("default %s is not an int", f.def)
		}
		if v == 0 {
			return "", nil
		}
		return strconv.FormatInt(v, 10), nil
	case "bool":
		switch f.def {
		case "false":
			return "", nil
		case "true":
			return "true", nil
		}
		return "", fmt.Errorf("default %s is not a bool", f.def)
	case "float":
		v, err := strconv.ParseFloat(f.def, 32)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return "", fmt.Errorf("default %s is not a finite float", f.def)
		}
		if v == 0 {
			return "", nil
		}
		return strconv.FormatFloat(v, 'g', -1, 32), nil
	case "string", "[int]":
		return "", fmt.Errorf("a %s field has no default", f.typ)
	}
	v, ok := s.enums[f.typ].values[f.def]
	if !ok {
		return "", fmt.Errorf("default %s is no member of enum %s", f.def, f.typ)
	}
	if v == 0 {
		return "", nil
	}
	return strconv.Itoa(v), nil
}

// opcode is an operator of opcodes.go: its Go constant and code.
type opcode struct {
	ident string
	code  int
}

// parseOpcodes reads opcodes.go's operator constants (OpAdd OpCode = 0)
// and opNames (0: "ADD") and returns the operators by schema name.
func parseOpcodes(src []byte) (map[string]opcode, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "opcodes.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	idents := map[int]string{}
	names := map[int]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
				continue
			}
			switch {
			case gd.Tok == token.CONST && isIdent(vs.Type, "OpCode"):
				code, err := intLit(vs.Values[0])
				if err != nil {
					return nil, fmt.Errorf("%s: %w", vs.Names[0].Name, err)
				}
				idents[code] = vs.Names[0].Name
			case gd.Tok == token.VAR && vs.Names[0].Name == "opNames":
				cl, ok := vs.Values[0].(*ast.CompositeLit)
				if !ok {
					return nil, fmt.Errorf("opNames is not a composite literal")
				}
				for _, e := range cl.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						return nil, fmt.Errorf("opNames: an element without an index")
					}
					code, err := intLit(kv.Key)
					if err != nil {
						return nil, fmt.Errorf("opNames: %w", err)
					}
					lit, ok := kv.Value.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return nil, fmt.Errorf("opNames[%d] is not a string", code)
					}
					if names[code], err = strconv.Unquote(lit.Value); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	ops := map[string]opcode{}
	for code, n := range names {
		id, ok := idents[code]
		if !ok {
			return nil, fmt.Errorf("operator %s (%d) has no OpCode constant", n, code)
		}
		ops[n] = opcode{id, code}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("no operators")
	}
	return ops, nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func intLit(e ast.Expr) (int, error) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, fmt.Errorf("not an integer literal")
	}
	v, err := strconv.ParseInt(lit.Value, 0, 32)
	return int(v), err
}

// goName is a snake_case schema name in Go's CamelCase: pot_scale_int16 is
// PotScaleInt16.
func goName(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// sortedOps lists the union's operators in operator code order, with their
// member.
func (s *schema) sortedOps(ops map[string]opcode) ([]opcode, []*member, error) {
	type entry struct {
		op opcode
		m  *member
	}
	var es []entry
	for _, m := range s.members {
		for _, n := range m.ops {
			op, ok := ops[n]
			if !ok {
				return nil, nil, fmt.Errorf("options.fbs:%d: %s: no operator %s in opcodes.go", m.line, m.table, n)
			}
			es = append(es, entry{op, m})
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return a.op.code - b.op.code })
	var codes []opcode
	var members []*member
	for _, e := range es {
		codes = append(codes, e.op)
		members = append(members, e.m)
	}
	return codes, members, nil
}
