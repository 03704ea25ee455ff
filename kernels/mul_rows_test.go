package kernels

import (
	"math/rand"
	"testing"
)

// TestMulInt8Rows: mulInt8Rows equals mulQuantOne (mulByQuantMul,
// TFLite's MultiplyByQuantizedMultiplier) on every element, for random
// zero points (offsets at the ends of their range among them),
// multipliers, exponents (inside and outside mulRun's range: the latter
// take mulInt8), clamps and broadcasts (contiguous rows, a row broadcast
// along the rows, a broadcast operand, strided steps).
func TestMulInt8Rows(t *testing.T) {
	r := rand.New(rand.NewSource(83))
	for i := range 1000 {
		p := &mulQuantParams{in1Off: int32(r.Intn(256) - 127), in2Off: int32(r.Intn(256) - 127), outOff: int32(r.Intn(256) - 128),
			mult: int32(1<<30 + r.Intn(1<<30)), shift: -1 - r.Intn(21), actMin: -128, actMax: 127}
		switch i % 7 {
		case 1:
			p.mult = 0x7FFFFFFF
		case 2:
			p.mult = int32(r.Intn(1 << 20))
		case 3:
			p.actMin, p.actMax = int32(r.Intn(128)-128), int32(r.Intn(128))
		case 4:
			p.actMin, p.actMax = max(p.outOff, -128), min(p.outOff+int32(r.Intn(120)), 127)
		case 5:
			p.shift = r.Intn(40) - 33
		case 6:
			p.in1Off, p.in2Off = 128, -127
		}
		n, rows := 1+r.Intn(40), 1+r.Intn(4)
		bc := &ewBcast{inner: n, aInner: 1, bInner: 1, n1: rows, a1: n, b1: n, n2: 1, n3: 1, n4: 1, n5: 1}
		na, nb := rows*n, rows*n
		switch i % 4 {
		case 1: // b broadcast along the row
			bc.bInner, bc.b1, nb = 0, 1, rows
		case 2: // a read every other element
			bc.aInner, bc.a1, na = 2, 2*n, 2*rows*n
		case 3: // b one row, broadcast along the rows
			bc.b1, nb = 0, n
		}
		a, b := make([]int8, na), make([]int8, nb)
		for j := range a {
			a[j] = int8(r.Intn(256) - 128)
		}
		for j := range b {
			b[j] = int8(r.Intn(256) - 128)
		}
		got := make([]int8, rows*n)
		mulInt8Rows(p, bc, a, b, got)
		for row := range rows {
			ai, bi := ewRowStart(bc, row)
			for k := range n {
				want := int8(mulQuantOne(p, int32(a[ai+k*bc.aInner]), int32(b[bi+k*bc.bInner])))
				if got[row*n+k] != want {
					t.Fatalf("case %d %+v: out[%d] = %d, mulQuantOne gives %d", i, *p, row*n+k, got[row*n+k], want)
				}
			}
		}
	}
}
