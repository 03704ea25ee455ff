package kernels

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPadRowsMatchesPadBytes: padRowsInt8 and padRowsInt16 write what
// padBytes (the PAD kernel checked against TFLM) writes for a height and
// width pad of a batch-1 NHWC image, whole and cut into bands of output
// rows, each band reading only the input rows it covers.
func TestPadRowsMatchesPadBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, tc := range []struct{ h, w, c, top, bottom, left, right int }{
		{1, 1, 1, 0, 0, 0, 0},
		{4, 4, 3, 1, 1, 1, 1},
		{5, 7, 8, 0, 1, 0, 1},
		{6, 3, 16, 2, 3, 1, 0},
		{3, 5, 2, 4, 4, 3, 3},
	} {
		for _, esz := range []int{1, 2} {
			t.Run(fmt.Sprintf("%dx%dx%d_pad%d,%d,%d,%d_esz%d", tc.h, tc.w, tc.c, tc.top, tc.bottom, tc.left, tc.right, esz), func(t *testing.T) {
				n := tc.h * tc.w * tc.c
				src := make([]byte, n*esz)
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				value := int64(r.IntN(256) - 128)
				if esz == 2 {
					value = int64(r.IntN(65536) - 32768)
				}
				oh, ow := tc.h+tc.top+tc.bottom, tc.w+tc.left+tc.right
				want := make([]byte, oh*ow*tc.c*esz)
				pp := padTestParams(esz, value&(1<<(8*esz)-1), []int{1, tc.h, tc.w, tc.c}, [][2]int{{0, 0}, {tc.top, tc.bottom}, {tc.left, tc.right}, {0, 0}})
				padBytes(&pp, want, src)
				rowIn, outRow := tc.w*tc.c, ow*tc.c
				// Bands of 1, 2 and all rows: band [r0, r1) reads input rows
				// [lo, hi), clipped, with the padding left at its edge.
				for _, band := range []int{1, 2, oh} {
					got := make([]byte, len(want))
					for r0 := 0; r0 < oh; r0 += band {
						r1 := min(r0+band, oh)
						lo := min(max(r0-tc.top, 0), tc.h)
						hi := max(min(r1-tc.top, tc.h), lo)
						p := padRowsParams{inH: hi - lo, outH: r1 - r0, padH: lo - (r0 - tc.top), rowLeft: tc.left * tc.c, rowIn: rowIn, rowRight: tc.right * tc.c, value: int32(value)}
						switch esz {
						case 1:
							dst := make([]int8, (r1-r0)*outRow)
							in := make([]int8, (hi-lo)*rowIn)
							for i := range in {
								in[i] = int8(src[lo*rowIn+i])
							}
							padRowsInt8(&p, dst, in)
							for i, v := range dst {
								got[r0*outRow+i] = byte(v)
							}
						case 2:
							dst := make([]int16, (r1-r0)*outRow)
							in := make([]int16, (hi-lo)*rowIn)
							for i := range in {
								in[i] = int16(binary.LittleEndian.Uint16(src[2*(lo*rowIn+i):]))
							}
							padRowsInt16(&p, dst, in)
							for i, v := range dst {
								binary.LittleEndian.PutUint16(got[2*(r0*outRow+i):], uint16(v))
							}
						}
					}
					if !slices.Equal(got, want) {
						t.Fatalf("bands of %d rows: padRows differs from padBytes", band)
					}
				}
			})
		}
	}
}
