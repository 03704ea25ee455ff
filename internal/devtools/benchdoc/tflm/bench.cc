// tflm_bench times TensorFlow Lite Micro's Invoke (reference kernels) on
// the machine it runs on, so that BENCH.md can compare tflm-gen with TFLM on
// the same machine (see build.sh).
//
//   tflm_bench MODEL INPUT0 [INPUT1 ...] [-- EXPECTED_OUTPUT0]
//
// It loads the model, allocates its tensors in a 64-byte-aligned 8 MiB
// arena, copies each input file into the matching input tensor, runs one
// Invoke and, when given, compares output 0 with the expected bytes; then 4
// warm-up Invokes and 1001 timed ones (CLOCK_MONOTONIC). It prints
// "median N ns, min N ns" and exits 1 if the output differs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

namespace {

std::vector<unsigned char> ReadFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == nullptr) {
    perror(path);
    exit(2);
  }
  std::vector<unsigned char> data;
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + n);
  fclose(f);
  return data;
}

long long NowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tflm_bench MODEL INPUT... [-- EXPECTED_OUTPUT0]\n");
    return 2;
  }
  std::vector<unsigned char> file = ReadFile(argv[1]);
  void* model_data = nullptr;
  if (posix_memalign(&model_data, 64, file.size()) != 0) return 2;
  memcpy(model_data, file.data(), file.size());
  const tflite::Model* model = tflite::GetModel(model_data);

  // The operators of the reference models.
  static tflite::MicroMutableOpResolver<16> resolver;
  resolver.AddAdd();
  resolver.AddAveragePool2D();
  resolver.AddConv2D();
  resolver.AddDepthwiseConv2D();
  resolver.AddDequantize();
  resolver.AddFullyConnected();
  resolver.AddLogistic();
  resolver.AddQuantize();
  resolver.AddReshape();
  resolver.AddSoftmax();
  resolver.AddSvdf();
  resolver.AddUnidirectionalSequenceLSTM();

  const size_t arena_size = 8 << 20;
  void* arena = nullptr;
  if (posix_memalign(&arena, 64, arena_size) != 0) return 2;
  tflite::MicroInterpreter interpreter(model, resolver, static_cast<uint8_t*>(arena), arena_size);
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    fprintf(stderr, "%s: AllocateTensors failed\n", argv[1]);
    return 2;
  }
  int arg = 2;
  for (size_t k = 0; k < interpreter.inputs_size() && arg < argc && strcmp(argv[arg], "--") != 0; k++, arg++) {
    std::vector<unsigned char> in = ReadFile(argv[arg]);
    TfLiteTensor* t = interpreter.input(k);
    if (in.size() != t->bytes) {
      fprintf(stderr, "%s: %zu bytes, input %zu has %zu\n", argv[arg], in.size(), k, t->bytes);
      return 2;
    }
    memcpy(t->data.raw, in.data(), in.size());
  }
  if (interpreter.Invoke() != kTfLiteOk) {
    fprintf(stderr, "%s: Invoke failed\n", argv[1]);
    return 2;
  }
  if (arg + 1 < argc && strcmp(argv[arg], "--") == 0) {
    std::vector<unsigned char> want = ReadFile(argv[arg + 1]);
    const TfLiteTensor* out = interpreter.output(0);
    if (want.size() != out->bytes || memcmp(want.data(), out->data.raw, want.size()) != 0) {
      fprintf(stderr, "%s: output 0 differs from %s\n", argv[1], argv[arg + 1]);
      return 1;
    }
  }
  for (int i = 0; i < 4; i++) interpreter.Invoke();
  std::vector<long long> ns;
  for (int i = 0; i < 1001; i++) {
    long long t0 = NowNs();
    interpreter.Invoke();
    ns.push_back(NowNs() - t0);
  }
  std::sort(ns.begin(), ns.end());
  printf("median %lld ns, min %lld ns\n", ns[ns.size() / 2], ns[0]);
  return 0;
}
