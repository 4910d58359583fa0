{
  "targets": [
    {
      "target_name": "weft_runtime",
      "type": "static_library",
      "sources": [
        "addon/runtime/atomics.c",
        "addon/runtime/barrier.c",
        "addon/runtime/c11threads.c",
        "addon/runtime/checks.c",
        "addon/runtime/clock.c",
        "addon/runtime/cond.c",
        "addon/runtime/entry.c",
        "addon/runtime/faults.c",
        "addon/runtime/fiber.c",
        "addon/runtime/globals.c",
        "addon/runtime/heap.c",
        "addon/runtime/keys.c",
        "addon/runtime/limits.c",
        "addon/runtime/memory.c",
        "addon/runtime/mutex.c",
        "addon/runtime/once.c",
        "addon/runtime/ops.c",
        "addon/runtime/output.c",
        "addon/runtime/race.c",
        "addon/runtime/rwlock.c",
        "addon/runtime/scheduler.c",
        "addon/runtime/semaphore.c",
        "addon/runtime/shadow.c",
        "addon/runtime/sleep.c",
        "addon/runtime/snapshot.c",
        "addon/runtime/spin.c",
        "addon/runtime/spinlock.c",
        "addon/runtime/strings.c",
        "addon/runtime/svcomp.c",
        "addon/runtime/tests.c",
        "addon/runtime/threads.c",
        "addon/runtime/tls.c"
      ],
      "cflags": ["-fPIC", "-fvisibility=hidden", "-O2", "-fstack-clash-protection", "-std=gnu11", "-Wall", "-Wextra", "-Werror"],
      "cflags!": ["-fno-omit-frame-pointer"],
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
