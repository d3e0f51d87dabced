// The C shim over Google Benchmark (Debian's libbenchmark 1.7.1). See bench_shim.h.
#include "bench_shim.h"
#include "gr.h"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

benchmark::State &S(gbench_state *st) { return *reinterpret_cast<benchmark::State *>(st); }

bool format_flag_given = false;

// The counter through which a body hands its CPU time per iteration to the reporters (Google
// Benchmark itself would report the process CPU time of the whole sampling loop).
const char kCpuCounter[] = "gr_cpu_seconds";

// The CPU time a body set replaces the measured one; the carrier counter goes.
std::vector<benchmark::BenchmarkReporter::Run> with_cpu_time(
    const std::vector<benchmark::BenchmarkReporter::Run> &runs)
{
  std::vector<benchmark::BenchmarkReporter::Run> out(runs);
  for (auto &r : out) {
    auto c = r.counters.find(kCpuCounter);
    if (c == r.counters.end())
      continue;
    double iters = r.iterations > 0 ? static_cast<double>(r.iterations) : 1.0;
    r.cpu_accumulated_time = c->second.value * iters;
    r.counters.erase(c);
  }
  return out;
}

// Fans the reports out to the display (console, or nothing) and, when asked, to the JSON
// callback: each group of runs rendered by Google Benchmark's own JSONReporter, so that the
// file the parent assembles is what its tools (compare.py) expect.
class TeeReporter : public benchmark::BenchmarkReporter {
public:
  TeeReporter(benchmark::BenchmarkReporter *display, gbench_json_fn fn, void *ctx)
      : display_(display), fn_(fn), ctx_(ctx) {}
  bool ReportContext(const Context &c) override
  {
    bool ok = true;
    if (display_) {
      // The context goes to the terminal without the library's "Library was built as DEBUG"
      // warning: Debian builds libbenchmark without NDEBUG, which only slows the library's own
      // loop, and every time we report is the GPU's, measured with CUDA events around the
      // launches (manual time). The JSON's library_build_type still says what the library is.
      std::ostringstream head;
      display_->SetErrorStream(&head);
      ok = display_->ReportContext(c);
      display_->SetErrorStream(&std::cerr);
      std::istringstream lines(head.str());
      std::string line;
      while (std::getline(lines, line))
        if (line.find("Library was built as DEBUG") == std::string::npos)
          std::cerr << line << '\n';
    }
    if (fn_) {
      std::ostringstream ss;
      benchmark::JSONReporter json;
      json.SetOutputStream(&ss);
      json.SetErrorStream(&ss);
      json.ReportContext(c);
      std::string t = ss.str();
      fn_(ctx_, GBENCH_JSON_CONTEXT, t.data(), t.size());
    }
    return ok;
  }
  void ReportRuns(const std::vector<Run> &runs) override
  {
    std::vector<Run> fixed = with_cpu_time(runs);
    if (display_)
      display_->ReportRuns(fixed);
    if (fn_ && !fixed.empty()) {
      std::ostringstream ss;
      benchmark::JSONReporter json; // fresh: no separator before its first run
      json.SetOutputStream(&ss);
      json.SetErrorStream(&ss);
      json.ReportRuns(fixed);
      std::string t = ss.str();
      fn_(ctx_, GBENCH_JSON_RUNS, t.data(), t.size());
    }
  }
  void Finalize() override
  {
    if (display_)
      display_->Finalize();
  }

private:
  benchmark::BenchmarkReporter *display_;
  gbench_json_fn fn_;
  void *ctx_;
};

} // namespace

extern "C" int gbench_init(int argc, char **argv, char *why, size_t len)
{
  for (int i = 1; i < argc; i++)
    if (std::string(argv[i]).rfind("--benchmark_format", 0) == 0)
      format_flag_given = true;
  benchmark::Initialize(&argc, argv);
  if (argc > 1) {
    std::snprintf(why, len, "unknown Google Benchmark flag '%s' (see 'gpuregress bench --help')",
                  argv[1]);
    return -1;
  }
  return 0;
}

extern "C" void gbench_register(const char *name, gbench_fn fn, void *arg)
{
  benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &st) {
    fn(reinterpret_cast<gbench_state *>(&st), arg);
  })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

extern "C" void gbench_context(const char *key, const char *value)
{
  benchmark::AddCustomContext(key, value);
}

extern "C" size_t gbench_run(int display, gbench_json_fn json, void *ctx)
{
  if (display == 2 || (display == 1 && format_flag_given)) {
    if (!json)
      return benchmark::RunSpecifiedBenchmarks();
    display = 0; // the format asked for is the JSON the parent writes
  }
  benchmark::ConsoleReporter console(gr_color(STDERR_FILENO)
                                         ? benchmark::ConsoleReporter::OO_ColorTabular
                                         : benchmark::ConsoleReporter::OO_Tabular);
  console.SetOutputStream(&std::cerr);
  console.SetErrorStream(&std::cerr);
  TeeReporter tee(display == 1 ? &console : nullptr, json, ctx);
  return benchmark::RunSpecifiedBenchmarks(&tee);
}

extern "C" void gbench_shutdown(void) { benchmark::Shutdown(); }

extern "C" int gbench_keep_running(gbench_state *st) { return S(st).KeepRunning(); }

extern "C" void gbench_set_iteration_time(gbench_state *st, double seconds)
{
  S(st).SetIterationTime(seconds);
}

extern "C" void gbench_counter(gbench_state *st, const char *name, double value)
{
  S(st).counters[name] = benchmark::Counter(value);
}

extern "C" void gbench_cpu_time(gbench_state *st, double seconds)
{
  S(st).counters[kCpuCounter] = benchmark::Counter(seconds);
}

extern "C" void gbench_label(gbench_state *st, const char *label) { S(st).SetLabel(label); }

extern "C" void gbench_skip(gbench_state *st, const char *msg) { S(st).SkipWithError(msg); }
