// Package difftest is the harness the differential tests of the
// generator's stages share (gen/lower's per-operator sweeps, gen/schedule's
// fused groups): random values and quantizations, the comparison of a
// model's outputs with TFLite Micro's (the oracle's), the count line that
// internal/devtools/diffcount collects, the choice of the cases that run
// through TFLM, and a model run in-process.
//
// It lowers nothing itself: the functions that run a model take the
// program to run from the caller (a ProgramFunc), so that gen/lower's tests
// run their lowering alone and gen/schedule's the scheduled program.
package difftest
