#include "core/cluster_spec.hpp"

namespace paratune {

const char* to_string(precision p) {
  switch (p) {
    case precision::bf16: return "bf16";
    case precision::fp16: return "fp16";
    case precision::fp8: return "fp8";
  }
  return "bf16";
}

bool parse_precision(const std::string& text, precision& out) {
  if (text == "bf16") out = precision::bf16;
  else if (text == "fp16") out = precision::fp16;
  else if (text == "fp8") out = precision::fp8;
  else return false;
  return true;
}

double device_spec::peak_tflops(precision p) const {
  if (p == precision::fp8 && peak_tflops_fp8 > 0)
    return peak_tflops_fp8;
  return peak_tflops_16;
}

} // namespace paratune
