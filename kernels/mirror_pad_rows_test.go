package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMirrorPadRowsBands: mirrorPadRows cut into bands of output rows,
// each band given only the input rows it reflects (row0, in0), writes what
// the whole call writes (gen/lower's TestMirrorPadRowsMatchesMoves checks
// the whole call against the strided copies checked against TFLM).
func TestMirrorPadRowsBands(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	for range 300 {
		h, w, pix := 1+r.IntN(6), 1+r.IntN(6), 1+r.IntN(6)
		offset := r.IntN(2)
		pad := func(n int) (int, int) {
			if n-offset < 0 {
				return 0, 0
			}
			l, rt := r.IntN(n-offset+1), r.IntN(n-offset+1)
			if r.IntN(5) == 0 {
				rt = n + r.IntN(3)
			}
			return l, rt
		}
		top, bottom := pad(h)
		left, right := pad(w)
		name := fmt.Sprintf("%dx%dx%d offset %d pads (%d, %d) (%d, %d)", h, w, pix, offset, top, bottom, left, right)
		oh, rowIn, rowOut := h+top+bottom, w*pix, (w+left+right)*pix
		src := make([]byte, h*rowIn)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		p := mirrorPadRowsParams{inH: h, outH: oh, imgH: h, top: top, offset: offset, inW: w, left: left, right: right, pix: pix}
		want := make([]byte, oh*rowOut)
		mirrorPadRows(&p, want, src)
		// Every output byte is a byte of its mirrored input pixel.
		for y := range oh {
			for x := range w + left + right {
				i, j := mirrorIndex(y, h, top, offset), mirrorIndex(x, w, left, offset)
				if i < 0 || i >= h || j < 0 || j >= w {
					t.Fatalf("%s: output (%d, %d) mirrors (%d, %d), outside the input", name, y, x, i, j)
				}
				if !slices.Equal(want[y*rowOut+x*pix:y*rowOut+x*pix+pix], src[i*rowIn+j*pix:i*rowIn+j*pix+pix]) {
					t.Fatalf("%s: output (%d, %d) is not input (%d, %d)", name, y, x, i, j)
				}
			}
		}
		for _, band := range []int{1, 2, 3} {
			got := make([]byte, len(want))
			for r0 := 0; r0 < oh; r0 += band {
				r1 := min(r0+band, oh)
				lo, hi := h, 0
				for y := r0; y < r1; y++ {
					i := mirrorIndex(y, h, top, offset)
					lo, hi = min(lo, i), max(hi, i+1)
				}
				q := p
				q.inH, q.outH, q.row0, q.in0 = hi-lo, r1-r0, r0, lo
				mirrorPadRows(&q, got[r0*rowOut:r1*rowOut], slices.Clone(src[lo*rowIn:hi*rowIn]))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: bands of %d rows differ from the whole call", name, band)
			}
		}
	}
}
