// The Node surface of weft: load a harness library, list its tests, run one execution.
// The trace lives in the runtime's memory and is exposed as typed arrays created once
// per harness, so a run allocates no JavaScript objects.
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <napi.h>

extern "C" {
#include "../runtime/abi.h"
}

namespace {

constexpr uint32_t kTraceCapacity = WEFT_TRACE_CAPACITY;
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr size_t kAltStackSize = 64 * 1024;

// The harness running on this thread, if any: faults on this thread go to it.
thread_local const weft_runtime_api* tls_running = nullptr;

struct sigaction previous_actions[NSIG];

void ChainToPrevious(int signal, siginfo_t* info, void* context) {
  const struct sigaction& previous = previous_actions[signal];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler == SIG_DFL) {
    // Re-raise with the default action: returning re-executes the faulting instruction.
    struct sigaction fallback;
    std::memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(signal, &fallback, nullptr);
    return;
  }
  previous.sa_handler(signal);
}

void OnFault(int signal, siginfo_t* info, void* context) {
  const weft_runtime_api* running = tls_running;
  if (running) running->on_fault(signal, info, context);  // does not return when it is ours
  ChainToPrevious(signal, info, context);
}

// The watchdog: harness code that runs for longer than its harness's hang timeout
// without a scheduling point (an endless loop with no shared access) gets kHangSignal
// on its own thread, and the runtime ends the execution as a hang, the way faults end
// it. Progress is the execution's step count; the threads that run executions register
// here, and a thread cannot exit (its registration's destructor takes the lock) while
// the watchdog signals it.
constexpr int kHangSignal = SIGXCPU;

struct Watched {
  pthread_t thread;
  std::atomic<const weft_runtime_api*> running{nullptr};  // set while an execution runs
  std::atomic<uint64_t> execution{0};                      // executions started on this thread
  std::atomic<uint32_t> timeout_ms{0};
  std::atomic<uint64_t> stop{0};  // the execution the watchdog asks to stop
};

std::mutex watch_mutex;
std::vector<Watched*> watched_threads;  // guarded by watch_mutex
thread_local Watched* tls_watched = nullptr;  // what the signal handler reads

struct WatchRegistration {
  Watched watched;
  WatchRegistration() {
    watched.thread = pthread_self();
    std::lock_guard<std::mutex> lock(watch_mutex);
    watched_threads.push_back(&watched);
    tls_watched = &watched;
  }
  ~WatchRegistration() {
    std::lock_guard<std::mutex> lock(watch_mutex);
    watched_threads.erase(std::remove(watched_threads.begin(), watched_threads.end(), &watched), watched_threads.end());
    tls_watched = nullptr;
  }
};

void WatchLoop() {
  using Clock = std::chrono::steady_clock;
  struct Seen {
    uint64_t execution;
    uint32_t steps;
    Clock::time_point since;
  };
  std::map<const Watched*, Seen> seen;
  for (;;) {
    uint32_t shortest = 0;
    {
      std::lock_guard<std::mutex> lock(watch_mutex);
      Clock::time_point now = Clock::now();
      std::map<const Watched*, Seen> still;
      for (Watched* watched : watched_threads) {
        const weft_runtime_api* api = watched->running.load(std::memory_order_acquire);
        uint32_t timeout = watched->timeout_ms.load(std::memory_order_relaxed);
        if (!api || timeout == 0) continue;
        if (shortest == 0 || timeout < shortest) shortest = timeout;
        Seen now_seen{watched->execution.load(std::memory_order_acquire),
                      __atomic_load_n(api->steps, __ATOMIC_RELAXED), now};
        auto previous = seen.find(watched);
        if (previous != seen.end() && previous->second.execution == now_seen.execution &&
            previous->second.steps == now_seen.steps) {
          now_seen.since = previous->second.since;
          if (now - now_seen.since >= std::chrono::milliseconds(timeout)) {
            watched->stop.store(now_seen.execution, std::memory_order_release);
            pthread_kill(watched->thread, kHangSignal);
          }
        }
        still.emplace(watched, now_seen);
      }
      seen.swap(still);
    }
    // a quarter of the shortest timeout: a hang is stopped within 1.25 timeouts
    uint32_t interval = shortest == 0 ? 100 : shortest / 4 < 1 ? 1 : shortest / 4 > 100 ? 100 : shortest / 4;
    std::this_thread::sleep_for(std::chrono::milliseconds(interval));
  }
}

void StartWatchdog() {
  static std::once_flag once;
  std::call_once(once, [] { std::thread(WatchLoop).detach(); });
}

void OnHang(int signal, siginfo_t* info, void* context) {
  (void)info;
  Watched* watched = tls_watched;
  if (!watched) return;
  const weft_runtime_api* api = watched->running.load(std::memory_order_acquire);
  if (!api || watched->stop.load(std::memory_order_acquire) != watched->execution.load(std::memory_order_relaxed)) return;
  int saved_errno = errno;
  api->on_hang(signal, context, watched->timeout_ms.load(std::memory_order_relaxed));  // no return when stopped
  errno = saved_errno;
}

void InstallHandler(int signal, void (*handler)(int, siginfo_t*, void*), int flags) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | flags;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, &previous_actions[signal]);
}

// Installed once per process, chaining to whatever was there (V8's handlers included).
void InstallFaultHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal : kFaultSignals) InstallHandler(signal, OnFault, 0);
    // the watchdog's signal may interrupt a system call of the harness: restart it
    InstallHandler(kHangSignal, OnHang, SA_RESTART);
  });
}

// Stack overflow in a fiber can only be reported from an alternate signal stack.
void EnsureAltStack() {
  thread_local bool ready = false;
  if (ready) return;
  stack_t current;
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE) &&
      current.ss_size >= kAltStackSize) {
    ready = true;
    return;
  }
  stack_t stack;
  stack.ss_sp = new char[kAltStackSize];
  stack.ss_size = kAltStackSize;
  stack.ss_flags = 0;
  sigaltstack(&stack, nullptr);
  ready = true;
}

// dlopen returns the same library (and so the same runtime state) for a path it has
// open already; a second Harness of the same file (another Vitest worker, say) loads a
// private copy instead.
std::string PrivateInstance(const std::string& path) {
  static std::mutex mutex;
  static std::set<std::string> loaded;
  static uint64_t copies = 0;
  std::lock_guard<std::mutex> lock(mutex);
  char resolved[PATH_MAX];
  std::string key = realpath(path.c_str(), resolved) ? resolved : path;
  if (loaded.insert(key).second) return path;
  std::string copy = path + ".instance-" + std::to_string(getpid()) + "-" + std::to_string(++copies);
  std::ifstream source(path, std::ios::binary);
  std::ofstream target(copy, std::ios::binary);
  target << source.rdbuf();
  return target.good() ? copy : path;
}

// Errors a user can meet (a library that does not load) are thrown as instances of the
// class the loader registers with setErrorConstructor (weft's WeftError, code 'addon'):
// one error type from the binding to the CLI. Misuse of the binding by weft's own code
// stays a TypeError or RangeError, a bug shown with its stack.
struct AddonData {
  Napi::FunctionReference error_constructor;
};

void ThrowWeftError(Napi::Env env, const std::string& message) {
  AddonData* data = env.GetInstanceData<AddonData>();
  if (!data || data->error_constructor.IsEmpty()) {
    Napi::Error::New(env, message).ThrowAsJavaScriptException();
    return;
  }
  Napi::Object error = data->error_constructor.New({Napi::String::New(env, "addon"), Napi::String::New(env, message)});
  if (!env.IsExceptionPending()) Napi::Error(env, error).ThrowAsJavaScriptException();
}

Napi::Value SetErrorConstructor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsFunction()) {
    Napi::TypeError::New(env, "setErrorConstructor(constructor): a class is needed").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  env.GetInstanceData<AddonData>()->error_constructor = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

// An array of `count` objects, the i-th's properties set by fill(object, i).
template <typename Fill>
Napi::Array ObjectsOf(Napi::Env env, uint32_t count, Fill fill) {
  Napi::Array array = Napi::Array::New(env, count);
  for (uint32_t i = 0; i < count; i++) {
    Napi::Object object = Napi::Object::New(env);
    fill(object, i);
    array.Set(i, object);
  }
  return array;
}

class Harness : public Napi::ObjectWrap<Harness> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Harness",
                       {InstanceMethod<&Harness::Tests>("tests"), InstanceMethod<&Harness::Run>("run"),
                        InstanceMethod<&Harness::Trace>("trace"), InstanceMethod<&Harness::Result>("result"),
                        InstanceMethod<&Harness::Output>("output"), InstanceMethod<&Harness::HeapBlocks>("heapBlocks"),
                        InstanceMethod<&Harness::AccessLog>("accessLog"),
                        InstanceMethod<&Harness::SetHangTimeout>("setHangTimeout")});
  }

  explicit Harness(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Harness>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) {
      Napi::TypeError::New(env, "Harness(path): path must be a string").ThrowAsJavaScriptException();
      return;
    }
    std::string path = info[0].As<Napi::String>();
    std::string instance = PrivateInstance(path);
    // RTLD_LOCAL: every harness keeps its own runtime; RTLD_NOW: fail here, not mid-run.
    handle_ = dlopen(instance.c_str(), RTLD_NOW | RTLD_LOCAL);
    Open(env, path);
    // after the runtime read the library's symbol table from the file; stays mapped
    if (instance != path) unlink(instance.c_str());
  }

 private:
  void Open(Napi::Env env, const std::string& path) {
    if (!handle_) {
      ThrowWeftError(env, std::string("cannot load harness: ") + dlerror());
      return;
    }
    auto open = reinterpret_cast<weft_runtime_open_fn>(dlsym(handle_, WEFT_RUNTIME_OPEN_SYMBOL));
    if (!open) {
      ThrowWeftError(env, "not a weft harness (no " WEFT_RUNTIME_OPEN_SYMBOL "): " + path);
      return;
    }
    char error[512] = "";
    api_ = open(kTraceCapacity, error, sizeof error);
    if (!api_) {
      ThrowWeftError(env, std::string("cannot start the weft runtime: ") + error);
      return;
    }
    if (api_->abi_version != WEFT_ABI_VERSION) {
      ThrowWeftError(env, "harness built for another weft runtime version: rebuild it");
      api_ = nullptr;
      return;
    }
    InstallFaultHandlers();
  }

  Napi::Value Tests(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Array tests = Napi::Array::New(env, api_->test_count);
    for (uint32_t i = 0; i < api_->test_count; i++) {
      Napi::Object test = Napi::Object::New(env);
      test.Set("name", api_->test_name(i));
      test.Set("file", api_->test_file(i));
      test.Set("line", api_->test_line(i));
      tests.Set(i, test);
    }
    return tests;
  }

  // run(test, decisions: Uint16Array, length, maxSteps, mode, flags, nondetDomain: Float64Array,
  //     visible: Float64Array, asleep: Uint32Array (a thread set), asleepFrom, planFrom, sampleSeed,
  //     priorities: Uint32Array, priorityChanges: Uint32Array) -> outcome code
  Napi::Value Run(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    uint32_t test = info[0].As<Napi::Number>().Uint32Value();
    Napi::Uint16Array decisions = info[1].As<Napi::Uint16Array>();
    uint32_t length = info[2].As<Napi::Number>().Uint32Value();
    weft_run_options options;
    options.max_steps = info[3].As<Napi::Number>().Uint32Value();
    options.mode = info[4].As<Napi::Number>().Uint32Value();
    options.flags = info.Length() > 5 ? info[5].As<Napi::Number>().Uint32Value() : 0;
    options.nondet_count = 0;
    options.nondet_domain = nullptr;
    if (info.Length() > 6 && info[6].IsTypedArray()) {
      Napi::Float64Array domain = info[6].As<Napi::Float64Array>();
      options.nondet_count = static_cast<uint32_t>(domain.ElementLength());
      options.nondet_domain = domain.Data();
    }
    options.visible_count = 0;
    options.visible = nullptr;
    if (info.Length() > 7 && info[7].IsTypedArray()) {
      Napi::Float64Array visible = info[7].As<Napi::Float64Array>();
      options.visible_count = static_cast<uint32_t>(visible.ElementLength());
      options.visible = visible.Data();
    }
    options.asleep = nullptr;
    if (info.Length() > 8 && info[8].IsTypedArray()) {
      Napi::Uint32Array asleep = info[8].As<Napi::Uint32Array>();
      if (asleep.ElementLength() < WEFT_THREAD_WORDS) {
        Napi::RangeError::New(env, "run: asleep needs one word per 32 threads").ThrowAsJavaScriptException();
        return env.Undefined();
      }
      options.asleep = asleep.Data();
    }
    options.asleep_from = info.Length() > 9 && info[9].IsNumber() ? info[9].As<Napi::Number>().Uint32Value() : 0;
    options.plan_from = info.Length() > 10 && info[10].IsNumber() ? info[10].As<Napi::Number>().Uint32Value() : length;
    options.sample_seed = info.Length() > 11 && info[11].IsNumber() ? static_cast<uint64_t>(info[11].As<Napi::Number>().Int64Value()) : 0;
    options.priorities = nullptr;
    if (info.Length() > 12 && info[12].IsTypedArray()) {
      Napi::Uint32Array priorities = info[12].As<Napi::Uint32Array>();
      if (priorities.ElementLength() < WEFT_MAX_THREADS) {
        Napi::RangeError::New(env, "run: priorities need one entry per thread").ThrowAsJavaScriptException();
        return env.Undefined();
      }
      options.priorities = priorities.Data();
    }
    options.priority_changes = nullptr;
    options.priority_change_count = 0;
    if (info.Length() > 13 && info[13].IsTypedArray()) {
      Napi::Uint32Array changes = info[13].As<Napi::Uint32Array>();
      options.priority_changes = changes.Data();
      options.priority_change_count = static_cast<uint32_t>(changes.ElementLength() / 2);
    }
    if (test >= api_->test_count || length > decisions.ElementLength()) {
      Napi::RangeError::New(env, "run: test index or schedule length out of range").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (tls_running) {
      Napi::Error::New(env, "run: an execution is already running on this thread").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    EnsureAltStack();
    thread_local WatchRegistration registration;
    Watched& watched = registration.watched;
    watched.timeout_ms.store(hang_timeout_ms_, std::memory_order_relaxed);
    watched.execution.fetch_add(1, std::memory_order_release);
    watched.running.store(api_, std::memory_order_release);
    tls_running = api_;
    uint32_t outcome = api_->run(test, decisions.Data(), length, &options);
    tls_running = nullptr;
    watched.running.store(nullptr, std::memory_order_release);
    return Napi::Number::New(env, outcome);
  }

  // setHangTimeout(ms): executions of this harness that reach no scheduling point for
  // this long end as a hang; 0 turns the watchdog off.
  Napi::Value SetHangTimeout(const Napi::CallbackInfo& info) {
    hang_timeout_ms_ = info[0].As<Napi::Number>().Uint32Value();
    if (hang_timeout_ms_) StartWatchdog();
    return info.Env().Undefined();
  }

  template <typename Array, typename Element>
  static Array View(Napi::Env env, Element* data, uint32_t count) {
    auto buffer = Napi::ArrayBuffer::New(env, data, count * sizeof(Element));
    return Array::New(env, count, buffer, 0);
  }

  // The typed arrays over the trace: same objects for the harness's whole life.
  Napi::Value Trace(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!trace_.IsEmpty()) return trace_.Value();
    const weft_trace* t = api_->trace;
    Napi::Object trace = Napi::Object::New(env);
    trace.Set("thread", View<Napi::Uint8Array>(env, t->thread, t->capacity));
    trace.Set("op", View<Napi::Uint8Array>(env, t->op, t->capacity));
    trace.Set("object", View<Napi::Float64Array>(env, t->object, t->capacity));
    trace.Set("value", View<Napi::Float64Array>(env, t->value, t->capacity));
    trace.Set("bits", View<Napi::BigUint64Array>(env, t->bits, t->capacity));
    trace.Set("size", View<Napi::Uint8Array>(env, t->size, t->capacity));
    trace.Set("aside", View<Napi::Uint8Array>(env, t->aside, t->capacity));
    trace.Set("enabled", View<Napi::Uint32Array>(env, t->enabled, t->capacity * WEFT_THREAD_WORDS));
    trace.Set("casFails", View<Napi::Uint32Array>(env, t->cas_fails, t->capacity * WEFT_THREAD_WORDS));
    trace.Set("written", View<Napi::BigUint64Array>(env, t->written, t->capacity));
    trace.Set("expected", View<Napi::BigUint64Array>(env, t->expected, t->capacity));
    trace.Set("order", View<Napi::Uint8Array>(env, t->order, t->capacity));
    trace.Set("rmw", View<Napi::Uint8Array>(env, t->rmw, t->capacity));
    trace.Set("pc", View<Napi::Uint32Array>(env, t->pc, t->capacity));
    trace.Set("capacity", t->capacity);
    // every thread at the end of the last execution: state and the operation it was about to do
    const weft_result* r = api_->result;
    trace.Set("threadState", View<Napi::Uint8Array>(env, const_cast<uint8_t*>(r->thread_state), WEFT_MAX_THREADS));
    trace.Set("pendingOp", View<Napi::Uint8Array>(env, const_cast<uint8_t*>(r->pending_op), WEFT_MAX_THREADS));
    trace.Set("pendingObject", View<Napi::Float64Array>(env, const_cast<double*>(r->pending_object), WEFT_MAX_THREADS));
    trace.Set("pendingValue", View<Napi::Float64Array>(env, const_cast<double*>(r->pending_value), WEFT_MAX_THREADS));
    // [steps, outcome] of the last execution, read after every run without a call
    trace.Set("status", View<Napi::Uint32Array>(env, &api_->result->steps, 2));
    // per thread that met a race: the step its access followed, and the step after which the other access ran (-1: none)
    trace.Set("raceAt", View<Napi::Int32Array>(env, const_cast<int32_t*>(r->race_at), WEFT_MAX_THREADS));
    trace.Set("raceAfter", View<Napi::Int32Array>(env, const_cast<int32_t*>(r->race_after), WEFT_MAX_THREADS));
    // the first two memory steps over common bytes with different extents: address, size, address, size (0: none)
    trace.Set("mixedExtent", View<Napi::Float64Array>(env, const_cast<double*>(r->mixed_extent), 4));
    trace_ = Napi::Persistent(trace);
    return trace;
  }

  // Scalars of the last execution; steps and outcome are what the explorer reads.
  Napi::Value Result(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const weft_result* r = api_->result;
    Napi::Object result = Napi::Object::New(env);
    result.Set("steps", r->steps);
    result.Set("outcome", r->outcome);
    result.Set("thread", r->thread);
    result.Set("threadCount", r->thread_count);
    result.Set("pc", r->pc);
    result.Set("signal", r->signal);
    result.Set("exitStatus", r->exit_status);
    result.Set("line", r->line);
    result.Set("file", r->file);
    result.Set("message", r->message);
    result.Set("faultAddress", r->fault_address);
    result.Set("libraryBase", r->library_base);
    result.Set("heapBase", r->heap_base);
    result.Set("heapSize", r->heap_size);
    result.Set("stacksBase", r->stacks_base);
    result.Set("stacksSize", r->stacks_size);
    result.Set("tlsBase", r->tls_base);
    result.Set("tlsBlockSize", r->tls_block_size);
    result.Set("raceAddress", r->race_address);
    result.Set("raceThread", r->race_thread);
    result.Set("racePc", r->race_pc);
    result.Set("raceWrite", (r->race_write & 1) != 0);
    result.Set("raceEarlierWrite", (r->race_earlier_write & 1) != 0);
    result.Set("raceAtomic", (r->race_write & 2) != 0);
    result.Set("raceReturn", (r->race_write & 4) != 0);
    result.Set("raceThreadEnd", (r->race_write & 8) != 0);
    result.Set("raceEarlierAtomic", (r->race_earlier_write & 2) != 0);
    result.Set("raceStep", r->race_step);
    result.Set("stackFrames", ObjectsOf(env, r->stack_frame_count, [r](Napi::Object frame, uint32_t i) {
      frame.Set("thread", r->stack_frame_thread[i]);
      frame.Set("pc", r->stack_frame_pc[i]);
      frame.Set("cfa", r->stack_frame_cfa[i]);
    }));
    result.Set("blockAddress", r->block_address);
    result.Set("blockSize", r->block_size);
    result.Set("allocPc", r->alloc_pc);
    result.Set("freePc", r->free_pc);
    result.Set("threads", ObjectsOf(env, r->thread_count, [r](Napi::Object thread, uint32_t i) {
      thread.Set("state", r->thread_state[i]);
      thread.Set("op", r->pending_op[i]);
      thread.Set("object", r->pending_object[i]);
      thread.Set("pc", r->pending_pc[i]);
    }));
    return result;
  }

  // heapBlocks() -> Float64Array of (address, size, allocation code offset) triples: the
  // last execution's heap, for naming heap cells in a counterexample
  Napi::Value HeapBlocks(const Napi::CallbackInfo& info) {
    uint32_t count = api_->heap_blocks(nullptr, 0);
    Napi::Float64Array blocks = Napi::Float64Array::New(info.Env(), 3 * static_cast<size_t>(count));
    api_->heap_blocks(blocks.Data(), count);
    return blocks;
  }

  // accessLog() -> the plain accesses a run with WEFT_RUN_LOG_ACCESSES kept, oldest first:
  // { thread, step, address, size, write, bits, pc }
  Napi::Value AccessLog(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    uint32_t total = *api_->access_count;
    uint32_t kept = total < WEFT_ACCESS_LOG_SIZE ? total : WEFT_ACCESS_LOG_SIZE;
    Napi::Array log = Napi::Array::New(env, kept);
    for (uint32_t i = 0; i < kept; i++) {
      const weft_logged_access& access = api_->access_log[(total - kept + i) % WEFT_ACCESS_LOG_SIZE];
      Napi::Object entry = Napi::Object::New(env);
      entry.Set("thread", access.thread);
      entry.Set("step", access.step);
      entry.Set("address", access.address);
      entry.Set("size", access.size);
      entry.Set("write", access.write != 0);
      entry.Set("bits", Napi::BigInt::New(env, access.bits));
      entry.Set("pc", access.pc);
      log.Set(i, entry);
    }
    return log;
  }

  Napi::Value Output(const Napi::CallbackInfo& info) {
    const weft_result* r = api_->result;
    return Napi::String::New(info.Env(), r->output, r->output_length);
  }

  void* handle_ = nullptr;
  const weft_runtime_api* api_ = nullptr;
  uint32_t hang_timeout_ms_ = 0;
  Napi::ObjectReference trace_;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new AddonData());
  exports.Set("setErrorConstructor", Napi::Function::New(env, SetErrorConstructor, "setErrorConstructor"));
  exports.Set("Harness", Harness::Define(env));
  exports.Set("abiVersion", Napi::Number::New(env, WEFT_ABI_VERSION));
  exports.Set("maxThreads", Napi::Number::New(env, WEFT_MAX_THREADS));
  return exports;
}

}  // namespace

NODE_API_MODULE(weft, Init)
