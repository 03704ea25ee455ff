package kernels

// RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR over NHWC tensors. Which
// input rows and columns each output row and column reads, and with what
// weights, depends only on the sizes and the options (align_corners,
// half_pixel_centers), so the generator computes them once, exactly as
// TFLite Micro's reference kernels do at every Invoke, and passes them as
// tables of little-endian int32 (and float32) values. The kernels only
// look them up. Every table entry was checked at generation time to lie
// inside the input, so no input can make a kernel read outside it.

// resizeNearestParams describes a nearest-neighbour resize as a byte copy:
// for each of batches images and each output pixel (y, x) of an outH x outW
// grid, run bytes (one pixel's channels) are copied from the input at
// b*inBatch + ys[y] + xs[x]. ys holds the byte offset of the chosen input
// row for each output row, xs that of the chosen input column.
type resizeNearestParams struct {
	batches, outH, outW int
	run                 int
	inBatch             int
}

// resizeNearest is RESIZE_NEAREST_NEIGHBOR for any element type (the copy
// is by bytes; float32 is moved bit for bit as TFLM does).
func resizeNearest(p *resizeNearestParams, ys, xs string, dst, src []byte) {
	d := 0
	run := p.run
	for b := 0; b < p.batches; b++ {
		base := b * p.inBatch
		for y := 0; y < p.outH; y++ {
			row := base + int(ld32(ys, y))
			for x := 0; x < p.outW; x++ {
				s := row + int(ld32(xs, x))
				copy(dst[d:d+run], src[s:s+run])
				d += run
			}
		}
	}
}

// resizeBilinearParams is the geometry of a bilinear resize in elements:
// batches images of inBatch elements, an outH x outW output grid of pixels
// of depth channels. Its tables hold four int32 values per output row
// (ys: element offsets of the upper and lower input row, y0*inRow and
// y1*inRow, then the weights of those rows) and per output column (xs:
// x0*depth, x1*depth and their weights). The weights are TFLM's: integers
// in units of 1/1024 for int8 (the lower weight is 1024 minus the upper
// one; with half_pixel_centers the upper weight of the first row or column
// may be negative), float32 bits for float32 (1-d and d, where d is the
// distance of the sampling point from the upper row).
type resizeBilinearParams struct {
	batches, outH, outW, depth int
	inBatch                    int
}

// resizeBilinearInt8 is int8 RESIZE_BILINEAR (TFLM's
// ResizeBilinearInteger): the four neighbours weighted in units of 2^-20,
// rounded half away from zero and truncated to int8 as the reference's
// cast does. The weights are at most 1536 and the sum of their magnitudes
// at most 2048 per axis, so the products and their sum fit int32 (at most
// 128 * 2048 * 2048 = 2^29).
func resizeBilinearInt8(p *resizeBilinearParams, ys, xs string, in, out []int8) {
	o := 0
	depth := p.depth
	for b := 0; b < p.batches; b++ {
		base := b * p.inBatch
		for y := 0; y < p.outH; y++ {
			r0 := base + int(ld32(ys, 4*y))
			r1 := base + int(ld32(ys, 4*y+1))
			wy0, wy1 := ld32(ys, 4*y+2), ld32(ys, 4*y+3)
			for x := 0; x < p.outW; x++ {
				c0 := int(ld32(xs, 4*x))
				c1 := int(ld32(xs, 4*x+1))
				wx0, wx1 := ld32(xs, 4*x+2), ld32(xs, 4*x+3)
				w00, w10, w01, w11 := wy0*wx0, wy1*wx0, wy0*wx1, wy1*wx1
				p00 := in[r0+c0 : r0+c0+depth]
				p10 := in[r1+c0 : r1+c0+depth]
				p01 := in[r0+c1 : r0+c1+depth]
				p11 := in[r1+c1 : r1+c1+depth]
				dst := out[o : o+depth]
				for c := range dst {
					v := int32(p00[c])*w00 + int32(p10[c])*w10 + int32(p01[c])*w01 + int32(p11[c])*w11
					if v > 0 {
						v += 1 << 19
					} else {
						v -= 1 << 19
					}
					dst[c] = int8(v / (1 << 20))
				}
				o += depth
			}
		}
	}
}

// resizeBilinearF32 is float32 RESIZE_BILINEAR with the reference's
// operation order: each neighbour times its row weight, times its column
// weight, the four products summed left to right, then 0 added (which
// turns a -0 sum into +0, as in TFLM). The explicit conversions keep every
// product rounded to float32 (no fused multiply-add).
func resizeBilinearF32(p *resizeBilinearParams, ys, xs string, in, out []float32) {
	o := 0
	depth := p.depth
	for b := 0; b < p.batches; b++ {
		base := b * p.inBatch
		for y := 0; y < p.outH; y++ {
			r0 := base + int(ld32(ys, 4*y))
			r1 := base + int(ld32(ys, 4*y+1))
			wy0, wy1 := ldf32(ys, 4*y+2), ldf32(ys, 4*y+3)
			for x := 0; x < p.outW; x++ {
				c0 := int(ld32(xs, 4*x))
				c1 := int(ld32(xs, 4*x+1))
				wx0, wx1 := ldf32(xs, 4*x+2), ldf32(xs, 4*x+3)
				p00 := in[r0+c0 : r0+c0+depth]
				p10 := in[r1+c0 : r1+c0+depth]
				p01 := in[r0+c1 : r0+c1+depth]
				p11 := in[r1+c1 : r1+c1+depth]
				dst := out[o : o+depth]
				for c := range dst {
					t0 := float32(float32(p00[c]*wy0) * wx0)
					t1 := float32(float32(p10[c]*wy1) * wx0)
					t2 := float32(float32(p01[c]*wy0) * wx1)
					t3 := float32(float32(p11[c]*wy1) * wx1)
					var zero float32
					dst[c] = t0 + t1 + t2 + t3 + zero
				}
				o += depth
			}
		}
	}
}
