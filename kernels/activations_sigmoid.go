package kernels

import "unsafe"

// LOGISTIC and TANH, as in TFLite Micro's reference kernels:
//   - int8 runs through a 256-entry table that the generator computes with
//     TFLM's arithmetic (the input rescaled to Q4.27, gemmlowp's fixed-point
//     approximations) and lutInt8 looks up;
//   - int16 interpolates in a 256-entry table of sigmoid(i/24);
//   - float32 calls exp / tanh.

// logisticTanhParams holds the generation-time constants of an int8
// LOGISTIC or TANH: the input zero point, the radius beyond which the
// output saturates, and the rescaling of the input to Q4.27.
type logisticTanhParams struct {
	inZP, radius int32
	mult         int32
	shift        int
}

// logisticTanh16Params holds the constants of an int16 LOGISTIC or TANH: the
// input is rescaled with (x*mult + round) >> shift before the table lookup.
type logisticTanh16Params struct {
	mult  int32
	shift int
}

// lutInt8 maps every int8 input x to tab[uint8(x)]: an int8 LOGISTIC or
// TANH whose 256 outputs were computed at generation time with TFLite
// Micro's fixed-point arithmetic.
func lutInt8(tab string, in, out []int8) {
	t := (*[256]byte)(unsafe.Pointer(unsafe.StringData(tab[:256])))
	out = out[:len(in)]
	for i, v := range in {
		out[i] = int8(t[uint8(v)])
	}
}

// logisticTanh16Input rescales an int16 input for the table lookup and
// returns it with its magnitude.
func logisticTanh16Input(p *logisticTanh16Params, v int16) (x int32, abs uint32) {
	round := int32(0)
	if p.shift > 0 {
		round = int32(1) << uint(p.shift-1)
	}
	x = (int32(v)*p.mult + round) >> uint(p.shift)
	if x < 0 {
		return x, uint32(-x)
	}
	return x, uint32(x)
}

// logisticInt16 is LOGISTIC for int16 (output scale 2^-15, zero point 0).
func logisticInt16(p *logisticTanh16Params, in, out []int16) {
	for i, v := range in {
		x, ax := logisticTanh16Input(p, v)
		var r uint32
		if h := ax >> 9; h >= 255 {
			r = 0x7FFF << 10
		} else {
			lo, hi := sigmoidTab(int(h)), sigmoidTab(int(h)+1)
			r = lo<<9 + (ax&0x1FF)*(hi-lo)
		}
		if x >= 0 {
			r += 1 << 9
		} else {
			r = 1<<25 - r + 1<<9 - 1
		}
		out[i] = int16(r >> 10)
	}
}

// tanhInt16 is TANH for int16 (output scale 2^-15, zero point 0).
func tanhInt16(p *logisticTanh16Params, in, out []int16) {
	for i, v := range in {
		x, ax := logisticTanh16Input(p, v)
		var r int32
		if h := ax >> 8; h >= 255 {
			r = 0xFFFF << 8
		} else {
			lo, hi := sigmoidTab(int(h)), sigmoidTab(int(h)+1)
			r = int32(lo<<8 + (ax&0xFF)*(hi-lo))
		}
		if x >= 0 {
			r = r - 1<<23 + 1<<7
		} else {
			r = -r + 1<<23 + 1<<7 - 1
		}
		out[i] = int16(r >> 8)
	}
}

// logisticF32 is LOGISTIC for float32 (f32Logistic: TFLM's cut-offs, then
// 1/(1+exp(-x)) in float32).
func logisticF32(in, out []float32) {
	for i, v := range in {
		out[i] = f32Logistic(v)
	}
}

// tanhF32 is TANH for float32 (f32Tanh).
func tanhF32(in, out []float32) {
	for i, v := range in {
		out[i] = f32Tanh(v)
	}
}
