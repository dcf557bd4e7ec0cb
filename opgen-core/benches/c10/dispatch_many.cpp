// c10's side of `cargo bench -p opgen-core --bench dispatch`'s one-operator and 3,000-operator
// typed calls: the same no-op kernel (it returns its tensor argument, which costs a reference
// count increment and decrement, as the Rust kernel's `Arc` clone does), registered through
// TORCH_LIBRARY, called through typed handles from
// `c10::Dispatcher::singleton().findSchemaOrThrow(...).typed<...>()`.
//
// Cases (ns per call, best of many batches of about 20 us, as the Rust summary measures):
//   a_direct          the kernel through a function pointer the optimiser cannot see through
//   b_typed           one operator's typed handle, called again and again
//   b_typed_3000_ops  3,000 operators' typed handles, one call per operator in turn
//   b_typed_3000_rt   the same with kernels registered as plain function pointers (c10 then
//                     keeps a functor holding the pointer, one more load per call)
//
// Built and run by run.sh beside this file (not part of CI: it needs libtorch).

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>
#include <torch/library.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

constexpr int kOperators = 3000;

at::Tensor identity(const at::Tensor& t) { return t; }

using Typed = c10::TypedOperatorHandle<at::Tensor(const at::Tensor&)>;

Typed typed(const std::string& name, const char* overload) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), overload)
      .typed<at::Tensor(const at::Tensor&)>();
}

// ns per call of `body`: the best of 3,000 runs of about 20 us each.
template <typename F>
double best_ns(F&& body) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  long calibration = 0;
  while (clock::now() - start < std::chrono::microseconds(200)) {
    body();
    ++calibration;
  }
  long n = std::max(calibration / 10, 1L);
  double best = std::numeric_limits<double>::infinity();
  for (int run = 0; run < 3000; ++run) {
    auto t0 = clock::now();
    for (long i = 0; i < n; ++i) body();
    auto t1 = clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
  }
  return best;
}

}  // namespace

TORCH_LIBRARY(bench, m) {
  m.def("identity(Tensor self) -> Tensor");
  for (int i = 0; i < kOperators; ++i) {
    m.def(("other_" + std::to_string(i) + ".overload(Tensor self) -> Tensor").c_str());
    m.def(("rt_" + std::to_string(i) + ".overload(Tensor self) -> Tensor").c_str());
  }
}

TORCH_LIBRARY_IMPL(bench, CPU, m) {
  m.impl("identity", TORCH_FN(identity));
  for (int i = 0; i < kOperators; ++i) {
    m.impl(("other_" + std::to_string(i) + ".overload").c_str(), TORCH_FN(identity));
    m.impl(("rt_" + std::to_string(i) + ".overload").c_str(), &identity);
  }
}

int main(int argc, char** argv) {
  // One case only (for callgrind): `dispatch_many CASE N` makes N calls of CASE and exits.
  // Inference mode: tensors without autograd keys, so that calls dispatch straight to CPU,
  // as the Rust benchmark's tensors (CPU key only) do.
  c10::InferenceMode inference;
  at::Tensor t = at::empty({1});
  Typed one = typed("bench::identity", "");
  std::vector<Typed> many, many_rt;
  for (int i = 0; i < kOperators; ++i) {
    many.push_back(typed("bench::other_" + std::to_string(i), "overload"));
    many_rt.push_back(typed("bench::rt_" + std::to_string(i), "overload"));
  }
  auto* volatile direct_ptr = &identity;
  at::Tensor (*direct)(const at::Tensor&) = direct_ptr;
  size_t next = 0, next_rt = 0;
  struct Case {
    const char* name;
    std::function<void()> body;
  };
  std::vector<Case> cases = {
      {"1arg/a_direct", [&] { at::Tensor r = direct(t); asm volatile("" ::"r"(&r) : "memory"); }},
      {"1arg/b_typed", [&] { at::Tensor r = one.call(t); asm volatile("" ::"r"(&r) : "memory"); }},
      {"1arg/b_typed_3000_ops", [&] {
         at::Tensor r = many[next].call(t);
         asm volatile("" ::"r"(&r) : "memory");
         next = next + 1 == many.size() ? 0 : next + 1;
       }},
      {"1arg/b_typed_3000_rt", [&] {
         at::Tensor r = many_rt[next_rt].call(t);
         asm volatile("" ::"r"(&r) : "memory");
         next_rt = next_rt + 1 == many_rt.size() ? 0 : next_rt + 1;
       }},
  };
  if (argc == 3) {
    long n = std::atol(argv[2]);
    for (auto& c : cases) {
      if (std::strstr(c.name, argv[1]) != nullptr) {
        for (long i = 0; i < n; ++i) c.body();
        return 0;
      }
    }
    std::fprintf(stderr, "unknown case %s\n", argv[1]);
    return 1;
  }
  std::printf("c10: ns per call (best of 3,000 batches of about 20 us), overhead over (a)\n");
  double direct_ns = 0;
  for (auto& c : cases) {
    double ns = best_ns(c.body);
    if (std::strstr(c.name, "a_direct") != nullptr) direct_ns = ns;
    std::printf("  %-24s %8.2f ns   %+8.2f ns\n", c.name, ns, ns - direct_ns);
  }
  return 0;
}
