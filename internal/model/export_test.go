package model

import (
	"fmt"
	"strconv"
	"strings"
)

// CheckInvariants exposes checkInvariants to the external tests.
var CheckInvariants = checkInvariants

// Loc is where a table and one of its fields sit in a flatbuffer.
type Loc struct {
	Table  int // table start (its soffset to the vtable)
	VTable int // vtable start
	Field  int // absolute position of the field, 0 when absent
	Target int // for an offset field, the position it points to
}

// Locate walks a flatbuffer for tests that corrupt a precise byte. Each step
// but the last is "SLOT[I]": element I of the vector of tables in field
// SLOT; the last step is the field slot to locate (a plain number) in the
// table reached. Locate("2[0]", "0[1]", "2") is the buffer field of tensor
// 1 of subgraph 0. It panics when the path does not exist.
func Locate(data []byte, steps ...string) Loc {
	f := &fbuf{b: data}
	t, err := f.root()
	if err != nil {
		panic(err)
	}
	for _, s := range steps[:len(steps)-1] {
		slot, idx, ok := strings.Cut(strings.TrimSuffix(s, "]"), "[")
		if !ok {
			panic("bad step " + s)
		}
		tts, err := t.tables(atoi(slot), s, maxVectorElems)
		if err != nil {
			panic(err)
		}
		t = tts[atoi(idx)]
	}
	slot := atoi(steps[len(steps)-1])
	l := Loc{Table: t.pos, VTable: t.pos - int(int32(f.u32(t.pos)))}
	p, err := t.field(slot, 1)
	if err != nil {
		panic(err)
	}
	l.Field = p
	if p != 0 && p+4 <= len(data) {
		l.Target = p + int(f.u32(p))
	}
	return l
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("bad number %q", s))
	}
	return n
}
