#!/usr/bin/env bash
# Builds tflm_bench (bench.cc): TFLite Micro's reference kernels and
# interpreter compiled as the reference data's were (shared/ref/*.json,
# tflm.build: g++ 12.2, the flags below, no optimized kernels), so that
# `go run ./internal/devtools/benchdoc -tflm-bench PATH` can time TFLM on the machine
# it times tflm-gen on.
#
#   internal/devtools/benchdoc/tflm/build.sh TFLM_DIR OUT
#
# TFLM_DIR is a tflite-micro tree at the reference commit (tflm.build.
# tflm_commit) with its third-party headers in
# tensorflow/lite/micro/tools/make/downloads/: flatbuffers (at the tag the
# reference names, with tools/make/flatbuffers.patch applied), gemmlowp and
# ruy (at the recorded commits). The Makefile is not used: it downloads more
# than the library needs. Nothing of TFLM is kept in this repository.
set -euo pipefail
tflm=$(cd "$1" && pwd)
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
here=$(cd "$(dirname "$0")" && pwd)
dl=tensorflow/lite/micro/tools/make/downloads
flags=(-O3 -DNDEBUG -std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics -fno-unwind-tables
  -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections -DTF_LITE_STATIC_MEMORY
  -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_USE_CTIME
  -I. -I$dl -I$dl/gemmlowp -I$dl/flatbuffers/include -I$dl/ruy)
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT
cd "$tflm"
# The library: interpreter, allocator, planners, reference kernels and the
# shared TFLite sources they use (no tests or test helpers).
ls tensorflow/lite/micro/*.cc tensorflow/lite/micro/kernels/*.cc tensorflow/lite/micro/memory_planner/*.cc \
  tensorflow/lite/micro/arena_allocator/*.cc tensorflow/lite/micro/tflite_bridge/*.cc \
  tensorflow/lite/kernels/internal/*.cc tensorflow/lite/kernels/kernel_util.cc tensorflow/lite/core/c/common.cc \
  tensorflow/lite/core/api/*.cc tensorflow/compiler/mlir/lite/schema/schema_utils.cc \
  tensorflow/compiler/mlir/lite/core/api/error_reporter.cc |
  grep -v -e '_test\.cc' -e 'test_helper' -e 'fake_micro_context' -e 'mock_micro_graph' -e 'recording_' -e 'micro_profiler' \
    > "$obj/sources"
# Compile nproc files at a time; any failure stops the build.
n=0
pids=()
while read -r src; do
  g++ "${flags[@]}" -c "$src" -o "$obj/$n.o" &
  pids+=($!)
  n=$((n + 1))
  if (( ${#pids[@]} == $(nproc) )); then
    for p in "${pids[@]}"; do wait "$p"; done
    pids=()
  fi
done < "$obj/sources"
for p in "${pids[@]}"; do wait "$p"; done
g++ "${flags[@]}" -c "$here/bench.cc" -o "$obj/bench.o"
g++ -o "$out" "$obj"/*.o -Wl,--gc-sections
echo "built $out"
