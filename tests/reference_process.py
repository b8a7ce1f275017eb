"""The reference's interpreter, started once per test process for the parity suites.

Starting Python 3.12 and importing mlrl-boomer or mlrl-seco takes about 2 s, and the parity suites
ask the reference some 300 questions: most of their time went to starting interpreters.  So each
test process keeps one *fork server* per reference driver: a process in the reference's interpreter
that imports the reference once and forks a child per request.  The child runs the driver exactly
as ``python DRIVER REQUEST.json`` would (its ``sys.argv``, its standard output and error, its exit
status, a crash of the reference's native code), so :func:`run_driver` is a drop-in for
``subprocess.run([python, driver, request], capture_output=True, text=True, timeout=...)``.

Run as a script (in the reference's interpreter) this file is the server: ``python
reference_process.py DRIVER PRELOAD``; it reads one JSON request a line on its standard input and
answers each with one JSON line ``{"returncode": n}`` once the child has ended.  It ends when its
standard input closes, i.e. when the test process that started it is gone.
"""
from __future__ import annotations

import json
import os
import sys

_SERVERS: dict = {}  # (python, driver) -> subprocess.Popen of a running server


def run_driver(python: str, driver, request, timeout: float):
    """Run ``driver`` on ``request`` in ``python`` through that pair's fork server (started on first
    use); a :class:`subprocess.CompletedProcess` as ``subprocess.run`` with ``capture_output=True,
    text=True`` gives.  Raises :class:`subprocess.TimeoutExpired` after ``timeout`` seconds (the
    server is then killed and the next request starts a new one)."""
    import select
    import subprocess
    import tempfile

    key = (str(python), str(driver))
    server = _SERVERS.get(key)
    if server is None or server.poll() is not None:
        server = subprocess.Popen([str(python), __file__, str(driver), _preload(driver)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  start_new_session=True)
        _SERVERS[key] = server
    args = [str(python), str(driver), str(request)]
    with tempfile.TemporaryDirectory() as folder:
        out, err = os.path.join(folder, "stdout"), os.path.join(folder, "stderr")
        try:
            server.stdin.write(json.dumps({"request": str(request), "stdout": out, "stderr": err}) + "\n")
            server.stdin.flush()
            ready, _, _ = select.select([server.stdout], [], [], timeout)
            line = server.stdout.readline() if ready else None
        except (BrokenPipeError, OSError):
            line = ""
        if line is None:
            _stop(key)
            raise subprocess.TimeoutExpired(args, timeout)
        if not line:  # the server itself is gone
            _stop(key)
            return subprocess.CompletedProcess(args, -1, "", "the reference's fork server ended unexpectedly")
        code = json.loads(line)["returncode"]
        return subprocess.CompletedProcess(args, code, _read(out), _read(err))


def _preload(driver) -> str:
    """The package the driver imports (imported once by the server, before it forks)."""
    return "mlrl.seco" if "seco" in os.path.basename(str(driver)) else "mlrl.boosting"


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _stop(key) -> None:
    import signal

    server = _SERVERS.pop(key, None)
    if server is not None:
        try:
            os.killpg(server.pid, signal.SIGKILL)  # the server and a child still running
        except (ProcessLookupError, PermissionError):
            pass
        server.wait()


def _stop_all() -> None:
    for key in list(_SERVERS):
        _stop(key)


def _serve(driver: str, preload: str) -> None:
    """The server's loop (see the module's docstring)."""
    import importlib
    import runpy
    import traceback

    control = os.fdopen(os.dup(1), "w")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # nothing but the answers reaches the control pipe
    os.close(quiet)
    importlib.import_module(preload)
    for line in sys.stdin:
        job = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: the driver as a script, with its own output files
            code = 0
            try:
                for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
                    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                    os.dup2(target, fd)
                    os.close(target)
                sys.argv = [driver, job["request"]]
                runpy.run_path(driver, run_name="__main__")
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
                if not isinstance(stop.code, (int, type(None))):
                    print(stop.code, file=sys.stderr)
            except BaseException:  # noqa: BLE001 - reported as the interpreter would
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        control.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n")
        control.flush()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))
    _serve(os.path.abspath(sys.argv[1]), sys.argv[2])
else:
    import atexit

    atexit.register(_stop_all)
