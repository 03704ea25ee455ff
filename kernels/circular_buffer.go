package kernels

// circularBufferInt8 is the Invoke of TFLite Micro's CIRCULAR_BUFFER
// custom operator (int8): state holds slots samples of depth values, oldest
// first; the oldest is dropped, the others move one slot towards the start
// and in[:depth] becomes the newest. out then receives the whole state
// (nothing when out is state itself, an output kept across Invokes).
// Values of state past slots*depth (a batch dimension TFLM does not shift)
// are left as they are. The lowering guarantees slots >= 1, depth >= 0,
// len(in) >= depth, len(state) >= slots*depth and len(out) == len(state).
func circularBufferInt8(in, state, out []int8, slots, depth int32) {
	keep := (slots - 1) * depth
	copy(state[:keep], state[depth:depth+keep])
	copy(state[keep:keep+depth], in[:depth])
	copy(out, state)
}
