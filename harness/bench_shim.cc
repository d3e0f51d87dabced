// The C shim over Google Benchmark (Debian's libbenchmark 1.7.1). See bench_shim.h.
#include "bench_shim.h"
#include "gr.h"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

benchmark::State &S(gbench_state *st) { return *reinterpret_cast<benchmark::State *>(st); }

// Prints nothing: --quiet, and the case where only the database and the JSON file matter.
class SilentReporter : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &) override {}
};

bool format_flag_given = false;

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
      ->Unit(benchmark::kMillisecond);
}

extern "C" size_t gbench_run(int display)
{
  if (display == 2 || (display == 1 && format_flag_given))
    return benchmark::RunSpecifiedBenchmarks();
  if (display == 1) {
    benchmark::ConsoleReporter console(gr_color(STDERR_FILENO)
                                           ? benchmark::ConsoleReporter::OO_ColorTabular
                                           : benchmark::ConsoleReporter::OO_Tabular);
    console.SetOutputStream(&std::cerr);
    console.SetErrorStream(&std::cerr);
    return benchmark::RunSpecifiedBenchmarks(&console);
  }
  SilentReporter silent;
  return benchmark::RunSpecifiedBenchmarks(&silent);
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

extern "C" void gbench_label(gbench_state *st, const char *label) { S(st).SetLabel(label); }

extern "C" void gbench_skip(gbench_state *st, const char *msg) { S(st).SkipWithError(msg); }
