"""Which test compiles which kernels: with ``BOOMER_COMPILE_LOG=FILE`` set, every test appends one JSON
line to FILE naming the Numba kernels compiled while it ran (name, argument types, seconds) and the
seconds spent compiling (outermost compiles only: a kernel's callees compile inside it).  Each xdist
worker appends its own lines; ``python tests/compile_log.py FILE`` sums them per test and per kernel."""
from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict

import pytest

LOG = os.environ.get("BOOMER_COMPILE_LOG")


class CompileRecorder:
    def __init__(self):
        from numba.core import event

        self.kernels, self.depth, self.started, self.outer = [], 0, [], 0.0
        recorder = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                recorder.depth += 1
                recorder.started.append(time.perf_counter())

            def on_end(self, ev):
                seconds = time.perf_counter() - recorder.started.pop()
                recorder.depth -= 1
                dispatcher = ev.data.get("dispatcher")
                name = getattr(getattr(dispatcher, "py_func", None), "__qualname__", str(dispatcher))
                module = getattr(getattr(dispatcher, "py_func", None), "__module__", "")
                recorder.kernels.append([f"{module}.{name}", str(ev.data.get("args")), round(seconds, 3)])
                if recorder.depth == 0:
                    recorder.outer += seconds

        event.register("numba:compile", _Listener())

    def take(self):
        out, self.kernels, seconds, self.outer = self.kernels, [], self.outer, 0.0
        return out, seconds


if LOG:
    _RECORDER = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        global _RECORDER
        if _RECORDER is None:
            _RECORDER = CompileRecorder()
        start = time.perf_counter()
        yield
        kernels, seconds = _RECORDER.take()
        line = json.dumps({"test": item.nodeid, "seconds": round(time.perf_counter() - start, 2),
                           "compile_s": round(seconds, 2), "worker": os.environ.get("PYTEST_XDIST_WORKER"),
                           "kernels": kernels}) + "\n"
        handle = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:  # one write of the whole line: the workers' lines never interleave
            os.write(handle, line.encode())
        finally:
            os.close(handle)


def summarise(path: str) -> None:
    rows = [json.loads(line) for line in open(path)]
    per_file = defaultdict(lambda: [0.0, 0.0])
    for r in rows:
        f = r["test"].split("::")[0]
        per_file[f][0] += r["seconds"]
        per_file[f][1] += r["compile_s"]
    print(f"{'file':60s} {'seconds':>8s} {'compile':>8s}")
    for f, (s, c) in sorted(per_file.items(), key=lambda kv: -kv[1][1])[:40]:
        print(f"{f:60s} {s:8.1f} {c:8.1f}")
    print("\ntests that compile most:")
    for r in sorted(rows, key=lambda r: -r["compile_s"])[:40]:
        top = sorted({k[0].rsplit(".", 1)[-1] for k in r["kernels"]})[:6]
        print(f"{r['compile_s']:7.1f} s  {r['test'][:90]}  {', '.join(top)}")
    compiled = defaultdict(list)
    for r in rows:
        for name, args, _ in r["kernels"]:
            compiled[(name, args)].append(r["test"])
    twice = {k: v for k, v in compiled.items() if len(v) > 1}
    print(f"\n{len(compiled)} kernel signatures compiled, {len(twice)} of them more than once (by different workers)")


if __name__ == "__main__":
    summarise(sys.argv[1])
