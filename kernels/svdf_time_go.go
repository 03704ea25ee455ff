//go:build !tinygo || !cortexm || nodsp

package kernels

// svdfTimeOutI16: see svdf_fast.go. Here, Go a slot at a time.
func svdfTimeOutI16(st []int16, wt, tb string, a []int32, mem int, t *rqOne, o []int8) {
	svdfTimeOutI16Ref(st, wt, tb, a, mem, t, o)
}
