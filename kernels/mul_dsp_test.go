package kernels

import (
	"math/rand"
	"slices"
	"testing"
)

// TestMulDSPInt8 compares mulDSPInt8 (its Go loop here; TestDSPOnBoard
// compares the Thumb-2 one with it) with mulInt8 on random layers: the
// same shape, a row broadcast along the rows (per channel), each row's
// element broadcast along it (and a scalar), both operands' offsets at
// the ends of their range, with and without an activation clamp. Shifts
// outside 1 to 21 must be declined.
func TestMulDSPInt8(t *testing.T) {
	r := rand.New(rand.NewSource(59))
	declined := 0
	for i := 0; i < 400; i++ {
		inner, n1 := 1+r.Intn(40), 1+r.Intn(6)
		bc := &ewBcast{inner: inner, aInner: 1, bInner: 1, n1: n1, n2: 1 + r.Intn(3), n3: 1, n4: 1, n5: 1}
		na, nb := inner*n1*bc.n2, inner*n1*bc.n2
		bc.a1, bc.b1, bc.a2, bc.b2 = inner, inner, inner*n1, inner*n1
		switch i % 4 {
		case 1: // b per channel: one row, broadcast along the rows
			bc.b1, bc.b2, nb = 0, 0, inner
		case 2: // b one value per row
			bc.bInner, bc.b1, bc.b2, nb = 0, 1, n1, n1*bc.n2
		case 3: // a one value per row
			bc.aInner, bc.a1, bc.a2, na = 0, 1, n1, n1*bc.n2
		}
		p := &mulQuantParams{in1Off: int32(r.Intn(256) - 127), in2Off: int32(r.Intn(256) - 127), outOff: int32(r.Intn(256) - 128),
			mult: int32(1<<30 + r.Intn(1<<30)), shift: -1 - r.Intn(21), actMin: -128, actMax: 127}
		if i%5 == 0 {
			p.in1Off, p.in2Off = 128, -127
		}
		if i%3 == 1 {
			p.actMin, p.actMax = max(p.outOff, -128), min(p.outOff+int32(r.Intn(120)), 127)
		}
		if i%17 == 0 {
			p.shift = r.Intn(3)
		}
		k, ok := dspMulPlan(bc, p)
		if !ok {
			if p.shift < 0 {
				t.Fatalf("case %d: declined %+v %+v", i, *bc, *p)
			}
			declined++
			continue
		}
		a, b := make([]int8, na), make([]int8, nb)
		for j := range a {
			a[j] = int8(r.Intn(256) - 128)
		}
		for j := range b {
			b[j] = int8(r.Intn(256) - 128)
		}
		want, got := make([]int8, inner*n1*bc.n2), make([]int8, inner*n1*bc.n2)
		mulInt8(p, bc, a, b, want)
		mulDSPInt8(string(k), bc, a, b, got)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d %+v %+v:\n got %v\nwant %v", i, *bc, *p, got, want)
		}
	}
	if declined == 0 {
		t.Fatal("no layer declined")
	}
}
