{
  "targets": [
    {
      "target_name": "weft_runtime",
      "type": "static_library",
      "sources": [
        "runtime/atomics.c",
        "runtime/barrier.c",
        "runtime/c11threads.c",
        "runtime/checks.c",
        "runtime/clock.c",
        "runtime/cond.c",
        "runtime/entry.c",
        "runtime/extents.c",
        "runtime/faults.c",
        "runtime/fiber.c",
        "runtime/fortify.c",
        "runtime/globals.c",
        "runtime/results.c",
        "runtime/heap.c",
        "runtime/keys.c",
        "runtime/libc-heap.c",
        "runtime/limits.c",
        "runtime/memory.c",
        "runtime/mutex.c",
        "runtime/once.c",
        "runtime/ops.c",
        "runtime/output.c",
        "runtime/race.c",
        "runtime/rwlock.c",
        "runtime/scan.c",
        "runtime/scheduler.c",
        "runtime/semaphore.c",
        "runtime/shadow.c",
        "runtime/sleep.c",
        "runtime/snapshot.c",
        "runtime/spin.c",
        "runtime/spinlock.c",
        "runtime/stack.c",
        "runtime/strings.c",
        "runtime/svcomp.c",
        "runtime/tests.c",
        "runtime/threads.c",
        "runtime/tls.c"
      ],
      # frame pointers: a thread's live frames are found along them (stack.c: live_frames_low)
      "cflags": ["-fPIC", "-fvisibility=hidden", "-O2", "-fno-omit-frame-pointer", "-fstack-clash-protection", "-std=gnu11", "-Wall", "-Wextra", "-Werror"],
      "standalone_static_library": 1
    },
    {
      "target_name": "weft",
      "sources": ["addon/binding.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-O2"],
      "libraries": ["-ldl"]
    }
  ]
}
