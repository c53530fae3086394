"""What one machine's ``agui-widget serve`` holds: many clients streaming at once.

A served agent streams as a real model does: ``--tokens`` tokens (200) at ``--rate`` tokens per
second (50), one TEXT_MESSAGE_CONTENT per token, sleeping between them (it keeps to its own
schedule, as a model's stream does, whatever the server's pace). The real command serves it, in a
subprocess (``python -m agui_widget serve benchmarks/serve_load.py:agent --workers N``), on
127.0.0.1. Clients in a separate process (raw asyncio sockets: a hand-written HTTP/1.1 POST of a
``RunAgentInput``, the SSE stream read to its end, ``data:`` lines counted; an HTTP library would
cost more than the server it measures) open ``--streams`` concurrent streams (50, 200, 1,000),
started evenly over ``--ramp`` seconds (1). Every level runs against a freshly started server,
once per ``--workers`` count (1 and 2: one worker process, and one per core). Per level:

- time to first event: from opening the connection to the first ``data:`` line (p50/p95/p99),
  beside an idle server's (the median of a few single requests, one after another, before the
  load);
- tokens delivered per second: in total, and per stream against the 50 the agent emits;
- streams that did not end with RUN_FINISHED, by kind (an HTTP status, a RUN_ERROR, the connection
  refused, reset or closed early, still open at the level's deadline);
- the server's memory: the resident set (``VmRSS`` from ``/proc``) of all its processes summed
  (the command and every worker), sampled every 50 ms: idle before the load, its peak, the peak
  over idle per concurrent stream, and after the load once it stops changing (watched 12 s at
  least: a worker gives its memory back a second after its last run, at most every 10 s, see
  agui_widget/server/_memory.py). Before and after the load each worker also describes itself
  (a run the agent answers with a CUSTOM event): the objects the garbage collector tracks and
  the blocks Python has allocated, then what a full collection finds unreachable, its resident
  set after that collection and after ``malloc_trim``, and glibc's heap in use: memory still
  alive told apart from memory freed but kept;
- CPU seconds: the server's and the clients' (a saturated client would show).

``--history KB`` puts earlier turns in every request (the whole transcript travels with each run,
so memory grows with it), ``--rounds N`` makes each client run N times in a row (a sustained load).
There are only 2 cores here: the clients share them with the server (with 1 worker, the server has
one core to itself; with 2, the two workers and the clients share both).

Usage::

    python benchmarks/serve_load.py                       # 50, 200, 1,000 streams; 1 and 2 workers
    python benchmarks/serve_load.py --streams 50 --workers 2 --history 2000 --rounds 5
    python benchmarks/serve_load.py --quick               # 20 streams of 40 tokens (the tests)
    python benchmarks/serve_load.py --json                # the raw numbers too

Bounded: each level has a deadline (6 times its ideal duration, at least 60 s; streams still open
then are errors), the run stops by itself, and the server's processes are always killed (also when
this script is). The exit status is 1 when any stream failed. About 5 minutes with the defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import functools
import gc
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent

# =============================================================================================
# The served agent (the server imports this file: `serve benchmarks/serve_load.py:agent`)
# =============================================================================================

TOKENS_VARIABLE, RATE_VARIABLE = "AGUI_LOAD_TOKENS", "AGUI_LOAD_RATE"
WORDS = ("The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".")
PROBE = "serve_load_probe"
"""The CUSTOM event a probe run answers with: one worker's memory, in its own words."""


class TokenStreamer:
    """Streams like a model: ``tokens`` tokens at ``rate`` a second, one CONTENT event each.

    Token ``i`` is due ``i / rate`` seconds after the first: the agent sleeps until then, and when
    the server falls behind it catches up without sleeping (a model's tokens keep arriving). A
    request's ``forwardedProps`` may ask for fewer tokens (``{"tokens": 1}``, the idle baseline)
    or for a probe of the worker's memory (``{"probe": true}``).
    """

    name = "streamer"
    description = "Streams tokens at a model's pace (benchmarks/serve_load.py)."

    def __init__(self, tokens: int, rate: float) -> None:
        self.tokens = tokens
        self.rate = rate

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        props = input.forwarded_props if isinstance(input.forwarded_props, dict) else {}
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        if props.get("probe"):
            yield CustomEvent(name=PROBE, value=worker_memory())
        else:
            message_id = "m-" + input.run_id
            yield TextMessageStartEvent(message_id=message_id, role="assistant")
            tokens = int(props.get("tokens", self.tokens))
            loop = asyncio.get_running_loop()
            start = loop.time()
            for index in range(tokens):
                if index:
                    await asyncio.sleep(max(0.0, start + index / self.rate - loop.time()))
                yield TextMessageContentEvent(message_id=message_id, delta=WORDS[index % len(WORDS)])
            yield TextMessageEndEvent(message_id=message_id)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")
    ]


def worker_memory() -> dict[str, Any]:
    """This process's memory: resident set, Python's objects and allocations, glibc's heap.

    Taken as it is, then after a full garbage collection (``unreachable``: what the collection
    found, garbage that only reference cycles kept alive).
    """
    report: dict[str, Any] = {"pid": os.getpid(), "rss": rss_of(os.getpid()), "gc_objects": len(gc.get_objects())}
    report["allocated_blocks"] = sys.getallocatedblocks()
    report["unreachable"] = gc.collect()
    report["rss_collected"] = rss_of(os.getpid())
    report["gc_objects_collected"] = len(gc.get_objects())
    report["allocated_blocks_collected"] = sys.getallocatedblocks()
    libc = ctypes.CDLL(None)  # this process's symbols: glibc's functions, where glibc is the C library
    if sys.platform.startswith("linux"):
        mallinfo2 = getattr(libc, "mallinfo2", None)
        if mallinfo2 is not None:
            mallinfo2.restype = _Mallinfo2
            info = mallinfo2()
            # in use by the program (small and mmapped chunks), and free inside the allocator (also
            # what a trim gave back already: its pages are returned, its chunks stay on the lists)
            report["malloc_in_use"] = info.uordblks + info.hblkhd
            report["malloc_free"] = info.fordblks
        malloc_trim = getattr(libc, "malloc_trim", None)
        if malloc_trim is not None:
            start = time.perf_counter()
            malloc_trim(0)
            report["trim_ms"] = (time.perf_counter() - start) * 1000
            report["rss_trimmed"] = rss_of(os.getpid())
    return report


agent = TokenStreamer(int(os.environ.get(TOKENS_VARIABLE, "200")), float(os.environ.get(RATE_VARIABLE, "50")))


# =============================================================================================
# Processes and their memory, from /proc
# =============================================================================================


def rss_of(pid: int) -> int:
    """``VmRSS`` of one process, in bytes (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def cpu_of(pid: int) -> float:
    """CPU seconds (user and system) one process has used."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def process_tree(root: int) -> list[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


class Server:
    """``agui-widget serve`` in a subprocess of its own process group, always killed at the end."""

    def __init__(self, workers: int, tokens: int, rate: float, trace: int) -> None:
        self.workers = workers
        self.port = free_port()
        env = {**os.environ, TOKENS_VARIABLE: str(tokens), RATE_VARIABLE: str(rate)}
        if trace:
            env["PYTHONTRACEMALLOC"] = str(trace)
        command = [
            sys.executable, "-m", "agui_widget", "serve", f"{HERE}:agent",
            "--port", str(self.port), "--workers", str(workers), "--log-level", "warning",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, start_new_session=True, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent
        )

    def wait_ready(self, timeout: float) -> None:
        """Until ``/health`` answers and every worker process is up."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with status {self.process.returncode}")
            expected = 1 if self.workers == 1 else 1 + self.workers
            if health(self.port) and len(self.processes()) >= expected:
                return
            time.sleep(0.1)
        raise RuntimeError(f"the server did not start within {timeout:.0f} s")

    def processes(self) -> list[int]:
        return process_tree(self.process.pid)

    def rss(self) -> tuple[int, int]:
        """The resident set of all the server's processes summed, and of the largest one."""
        sizes = [rss_of(pid) for pid in self.processes()]
        return sum(sizes), max(sizes, default=0)

    def cpu(self) -> float:
        return sum(cpu_of(pid) for pid in self.processes())

    def stop(self) -> None:
        """SIGTERM to the whole process group (the command and its workers), SIGKILL to what is left."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(5)


def die_with_parent() -> None:
    """In a child, before it runs: SIGTERM when this script ends, even killed (Linux's
    ``PR_SET_PDEATHSIG``), so no server outlives the benchmark."""
    libc = ctypes.CDLL(None)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def health(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def raise_open_files_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


# =============================================================================================
# The client: one asyncio protocol per stream, no HTTP library
# =============================================================================================


TURN_TEXT = ("The fox ran through the forest, past the river and over the hill. " * 40)[:2000]


@functools.cache
def history_json(kb: int) -> str:
    """Earlier turns of the chat, about ``kb`` KB of text: messages of 2,000 characters, user and
    assistant in turn (as JSON array items, without the brackets)."""
    messages = [
        {"id": f"h{index}", "role": "user" if index % 2 == 0 else "assistant", "content": TURN_TEXT} for index in range(kb // 2)
    ]
    return ", ".join(json.dumps(message) for message in messages)


def request_bytes(port: int, run_id: str, forwarded: dict[str, Any] | None = None, history_kb: int = 0) -> bytes:
    """The POST of one run: the question, after ``history_kb`` KB of earlier turns."""
    question = json.dumps({"id": "u-" + run_id, "role": "user", "content": "Tell me a story about a fox."})
    earlier = history_json(history_kb)
    messages = f"[{earlier}, {question}]" if earlier else f"[{question}]"
    ids = json.dumps({"threadId": "thread-" + run_id, "runId": run_id})[:-1]
    rest = json.dumps({"state": {}, "tools": [], "context": [], "forwardedProps": forwarded or {}})[1:]
    body = f'{ids}, "messages": {messages}, {rest}'.encode()
    head = (
        f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: text/event-stream\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


class StreamClient(asyncio.Protocol):
    """One run: sends the request, counts ``data:`` lines and tokens, notes RUN_FINISHED."""

    def __init__(self, request: bytes, started: float, done: asyncio.Future[None]) -> None:
        self.request = request
        self.started = started
        self.done = done
        self.transport: asyncio.Transport | None = None
        self.status: bytes | None = None
        self.tail = b""
        self.first: float | None = None
        self.last = started
        self.events = 0
        self.tokens = 0
        self.finished = False
        self.run_error = False
        self.error: str | None = None
        self.body = b""
        self.custom = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.status is None:
            self.status = data[9:12]
        if self.status != b"200":
            self.body = (self.body + data)[-2000:]
            return
        pending = self.tail + data
        cut = pending.rfind(b"\n") + 1
        complete, self.tail = pending[:cut], pending[cut:]
        events = complete.count(b"data:")
        if not events:
            return
        if self.first is None:
            self.first = now
        self.last = now
        self.events += events
        self.tokens += complete.count(b'"TEXT_MESSAGE_CONTENT"')
        if b'"CUSTOM"' in complete:
            self.custom += complete
        if b'"RUN_FINISHED"' in complete:
            self.finished = True
        if b'"RUN_ERROR"' in complete:
            self.run_error = True
            self.body = complete[-2000:]

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None and self.error is None:
            self.error = type(exc).__name__
        if not self.done.done():
            self.done.set_result(None)

    def outcome(self) -> str | None:
        """None for a run that finished; else what kind of failure it was."""
        if self.status is not None and self.status != b"200":
            return f"HTTP {self.status.decode(errors='replace')}"
        if self.run_error:
            return "RUN_ERROR"
        if self.finished:
            return None
        return self.error or ("closed before RUN_FINISHED" if self.status else "closed before answering")


async def one_stream(
    port: int, run_id: str, deadline: float, forwarded: dict[str, Any] | None = None, history_kb: int = 0
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    done: asyncio.Future[None] = loop.create_future()
    client = StreamClient(request_bytes(port, run_id, forwarded, history_kb), started, done)
    kind: str | None

    async def connect_and_read() -> None:
        await loop.create_connection(lambda: client, "127.0.0.1", port)
        await done

    try:
        await asyncio.wait_for(connect_and_read(), max(0.0, deadline - loop.time()))
        kind = client.outcome()
    except (TimeoutError, asyncio.TimeoutError):
        kind = "still open at the deadline" if client.transport is not None else "connect timed out"
    except OSError as exc:
        kind = type(exc).__name__
    finally:
        if client.transport is not None:
            client.transport.abort()
    return {
        "error": kind,
        "detail": client.body.decode("utf-8", "replace")[-300:] if kind else None,
        "first": None if client.first is None else client.first - started,
        "streaming": client.last - (client.first or client.last),
        "tokens": client.tokens,
        "events": client.events,
        "custom": client.custom.decode("utf-8", "replace"),
    }


async def run_streams(args: argparse.Namespace, streams: int, timeout: float) -> dict[str, Any]:
    """``streams`` concurrent clients started evenly over ``ramp`` seconds, each running ``rounds``
    runs one after another; all end by ``timeout``."""
    loop = asyncio.get_running_loop()
    begin = loop.time()
    deadline = begin + timeout
    cpu = time.process_time()

    async def client(index: int) -> list[dict[str, Any]]:
        await asyncio.sleep(args.ramp * index / streams)
        results = []
        for turn in range(args.rounds):
            run_id = f"run-{args.offset + index}-{turn}"
            results.append(await one_stream(args.port, run_id, deadline, history_kb=args.history))
        return results

    results = [result for batch in await asyncio.gather(*(client(index) for index in range(streams))) for result in batch]
    return {"results": results, "cpu": time.process_time() - cpu, "wall": loop.time() - begin}


def client_main(args: argparse.Namespace) -> None:
    """A client process: runs its share of the streams, prints the results as JSON."""
    (streams,) = args.streams
    raise_open_files_limit(streams + 256)
    history_json(args.history)  # built before the clock starts
    outcome = asyncio.run(run_streams(args, streams, args.timeout))
    json.dump(outcome, sys.stdout)


def start_clients(
    port: int, streams: int, args: argparse.Namespace, timeout: float, folder: Path
) -> list[tuple[subprocess.Popen[bytes], Path]]:
    """The client processes, each with the file its results go to (a pipe would fill and block)."""
    processes = args.client_processes
    shares = [streams // processes + (1 if index < streams % processes else 0) for index in range(processes)]
    clients, offset = [], 0
    for index, share in enumerate(shares):
        if not share:
            continue
        command = [
            sys.executable, str(HERE), "--client", "--port", str(port), "--streams", str(share),
            "--ramp", str(args.ramp), "--timeout", str(timeout), "--offset", str(offset), "--history", str(args.history), "--rounds", str(args.rounds),
        ]  # fmt: skip
        output = folder / f"client-{index}.json"
        with output.open("wb") as sink:
            clients.append((subprocess.Popen(command, stdout=sink, cwd=ROOT, preexec_fn=die_with_parent), output))
        offset += share
    return clients


def client_results(output: Path) -> dict[str, Any]:
    """What one client process wrote (nothing, when it failed: its streams count as failed)."""
    try:
        result: dict[str, Any] = json.loads(output.read_text())
        return result
    except (OSError, ValueError):
        return {"results": [], "cpu": 0.0, "wall": 0.0}


def probe(port: int, workers: int, attempts: int = 40) -> list[dict[str, Any]]:
    """Every worker's own report of its memory (probe runs until each worker has answered one)."""
    reports: dict[int, dict[str, Any]] = {}

    async def ask(index: int) -> dict[str, Any]:
        return await one_stream(port, f"probe-{index}", asyncio.get_running_loop().time() + 10, {"probe": True})

    for index in range(attempts):
        result = asyncio.run(ask(index))
        for line in result["custom"].splitlines():
            if line.startswith("data:") and PROBE in line:
                value = json.loads(line[5:])["value"]
                reports[value["pid"]] = value
        if len(reports) >= workers:
            break
    return sorted(reports.values(), key=lambda report: report["pid"])


# =============================================================================================
# One level: a fresh server, its idle baseline, the load, the memory while and after
# =============================================================================================


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def run_level(args: argparse.Namespace, workers: int, streams: int) -> dict[str, Any]:
    server = Server(workers, args.tokens, args.rate, args.trace)
    clients: list[tuple[subprocess.Popen[bytes], Path]] = []
    folder = Path(tempfile.mkdtemp(prefix="serve-load-"))
    try:
        server.wait_ready(60)
        time.sleep(0.5)
        baseline = []
        for index in range(args.baseline + 2):  # two warm-ups, then the baseline
            result = asyncio.run(single(server.port, f"idle-{index}", args.history))
            if index >= 2 and result["first"] is not None:
                baseline.append(result["first"])
        idle_reports = probe(server.port, workers)
        # A worker gives memory back a second after its last run, which takes it some 40 ms: that
        # happens before the load, not as its first streams arrive.
        time.sleep(2.0)
        idle_total, idle_largest = server.rss()
        cpu_before = server.cpu()
        expected = args.ramp + args.rounds * args.tokens / args.rate
        timeout = args.deadline if args.deadline else max(60.0, 6 * expected)
        clients = start_clients(server.port, streams, args, timeout, folder)
        peak_total, peak_largest = idle_total, idle_largest
        samples = 0
        hard_stop = time.monotonic() + timeout + 30
        while any(client.poll() is None for client, _ in clients):
            total, largest = server.rss()
            peak_total, peak_largest = max(peak_total, total), max(peak_largest, largest)
            samples += 1
            if time.monotonic() > hard_stop:
                for client, _ in clients:
                    client.kill()
                break
            time.sleep(0.05)
        for client, _ in clients:
            client.wait(30)
        server_cpu = server.cpu() - cpu_before
        runs = [client_results(output) for _, output in clients]
        after_total, after_largest = settle(server, args.settle, args.settle + 10)
        reports = probe(server.port, workers)
    finally:
        for client, _ in clients:
            if client.poll() is None:
                client.kill()
                client.wait(5)
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    results = [result for run in runs for result in run["results"]]
    missing = streams * args.rounds - len(results)
    errors = Counter(result["error"] for result in results if result["error"])
    if missing:
        errors["client process failed"] += missing
    details = [result["detail"] for result in results if result["error"] and result["detail"]][:3]
    ok = [result for result in results if not result["error"]]
    firsts = [result["first"] for result in results if result["first"] is not None]
    per_stream = [
        (result["tokens"] - 1) / result["streaming"] for result in ok if result["streaming"] > 0 and result["tokens"] > 1
    ]
    wall = max((run["wall"] for run in runs), default=0.0)
    tokens = sum(result["tokens"] for result in results)
    return {
        "workers": workers,
        "streams": streams,
        "runs": streams * args.rounds,
        "finished": len(ok),
        "errors": dict(errors),
        "error_details": details,
        "baseline_first_ms": [value * 1000 for value in baseline],
        "first_ms": {key: percentile(firsts, q) * 1000 for key, q in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))},
        "tokens": tokens,
        "tokens_per_s": tokens / wall if wall else 0.0,
        "per_stream_tokens_per_s": {
            "p50": statistics.median(per_stream) if per_stream else float("nan"),
            "min": min(per_stream, default=float("nan")),
        },
        "wall_s": wall,
        "rss_idle": idle_total,
        "rss_peak": peak_total,
        "rss_peak_largest_process": peak_largest,
        "rss_per_stream": (peak_total - idle_total) / streams,
        "rss_after": after_total,
        "rss_after_largest_process": after_largest,
        "rss_samples": samples,
        "server_cpu_s": server_cpu,
        "client_cpu_s": sum(run["cpu"] for run in runs),
        "workers_idle": idle_reports,
        "workers_after": reports,
    }


async def single(port: int, run_id: str, history_kb: int) -> dict[str, Any]:
    """One short run on its own (the idle baseline), with the load's transcript."""
    return await one_stream(port, run_id, asyncio.get_running_loop().time() + 10, {"tokens": 1}, history_kb)


def settle(server: Server, least: float, limit: float) -> tuple[int, int]:
    """The server's resident set once it stops changing: watched ``least`` seconds at least, then
    until it changes by no more than 1 % over two seconds, ``limit`` seconds at most."""
    start = time.monotonic()
    samples = [server.rss()]
    while time.monotonic() - start < limit:
        time.sleep(0.5)
        samples.append(server.rss())
        window = [total for total, _ in samples[-5:]]
        if time.monotonic() - start >= least and len(window) == 5 and max(window) - min(window) <= 0.01 * max(window):
            break
    return samples[-1]


# =============================================================================================
# Tables
# =============================================================================================


def mb(value: float) -> str:
    return f"{value / 1e6:,.0f}"


def print_tables(levels: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(
        f"\nAn agent streaming {args.tokens} tokens at {args.rate:g} tokens/s; streams started over {args.ramp:g} s; "
        f"{os.cpu_count()} cores.\n"
    )
    print(
        "| workers | streams | finished | errors | first event ms p50 / p95 / p99 (idle) | tokens/s total "
        "| tokens/s a stream p50 (min) | server CPU s | client CPU s |"
    )
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for level in levels:
        first = level["first_ms"]
        idle = statistics.median(level["baseline_first_ms"]) if level["baseline_first_ms"] else float("nan")
        errors = ", ".join(f"{count} {kind}" for kind, count in level["errors"].items()) or "none"
        rate = level["per_stream_tokens_per_s"]
        print(
            f"| {level['workers']} | {level['streams']:,} | {level['finished']:,} | {errors} "
            f"| {first['p50']:.0f} / {first['p95']:.0f} / {first['p99']:.0f} ({idle:.1f}) "
            f"| {level['tokens_per_s']:,.0f} | {rate['p50']:.1f} ({rate['min']:.1f}) "
            f"| {level['server_cpu_s']:.1f} | {level['client_cpu_s']:.1f} |"
        )
    print("\nThe server's memory (all its processes, MB of resident set):\n")
    print("| workers | streams | idle | peak | peak over idle, KB a stream | after the load | largest process: peak / after |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for level in levels:
        print(
            f"| {level['workers']} | {level['streams']:,} | {mb(level['rss_idle'])} | {mb(level['rss_peak'])} "
            f"| {level['rss_per_stream'] / 1e3:,.0f} | {mb(level['rss_after'])} "
            f"| {mb(level['rss_peak_largest_process'])} / {mb(level['rss_after_largest_process'])} |"
        )
    print(
        "\nEach worker, as it describes itself: objects the garbage collector tracks and blocks Python has "
        "allocated, idle / after the load / after a full collection then (and how many unreachable objects that "
        "collection found); its resident set after the load / after that collection / after malloc_trim then, and "
        "glibc's heap in use (MB):\n"
    )
    print("| workers | streams | worker | gc objects | unreachable | Python blocks | resident | heap in use |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for level in levels:
        idle = {report["pid"]: report for report in level["workers_idle"]}
        for index, report in enumerate(level["workers_after"], 1):
            before = idle.get(report["pid"], {})
            print(
                f"| {level['workers']} | {level['streams']:,} | {index} "
                f"| {before.get('gc_objects_collected', 0):,} / {report['gc_objects']:,} / {report['gc_objects_collected']:,} "
                f"| {report['unreachable']:,} "
                f"| {before.get('allocated_blocks_collected', 0):,} / {report['allocated_blocks']:,} "
                f"/ {report['allocated_blocks_collected']:,} "
                f"| {mb(report['rss'])} / {mb(report['rss_collected'])} / {mb(report.get('rss_trimmed', 0))} "
                f"| {mb(report.get('malloc_in_use', 0))} |"
            )
    for level in levels:
        for detail in level["error_details"]:
            print(f"\n{level['workers']} worker(s), {level['streams']} streams, a failure said: {detail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, nargs="+", default=None, help="concurrent streams per level (50 200 1000)")
    parser.add_argument("--workers", type=int, nargs="+", default=None, help="worker counts to compare (1 2)")
    parser.add_argument("--tokens", type=int, default=None, help="tokens a stream (200)")
    parser.add_argument("--rate", type=float, default=50.0, help="tokens a second the agent emits (50)")
    parser.add_argument("--ramp", type=float, default=None, help="seconds over which the streams start (1; quick: 0.2)")
    parser.add_argument(
        "--deadline", type=float, default=0.0, help="seconds a level may take (default: 6x its ideal, at least 60)"
    )
    parser.add_argument("--client-processes", type=int, default=1, help="processes the clients run in (1)")
    parser.add_argument("--history", type=int, default=0, help="KB of earlier turns each request's transcript holds (0)")
    parser.add_argument("--rounds", type=int, default=1, help="runs each client makes one after another (1)")
    parser.add_argument("--baseline", type=int, default=5, help="single requests on the idle server, one after another (5)")
    parser.add_argument(
        "--settle",
        type=float,
        default=12.0,
        help="seconds the memory after the load is watched at least (12: a worker gives memory back a second after "
        "its last run, and at most every 10 s)",
    )
    parser.add_argument("--trace", type=int, default=0, help="start the server with PYTHONTRACEMALLOC=N (costs memory and time)")
    parser.add_argument(
        "--quick", action="store_true", help="20 streams of 40 tokens, 1 and 2 workers: a check, not a measurement"
    )
    parser.add_argument("--json", action="store_true", help="print the raw numbers too")
    # a client process (started by this script)
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=60.0, help=argparse.SUPPRESS)
    parser.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        client_main(args)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the servers are stopped on the way out
    args.streams = args.streams or ([20] if args.quick else [50, 200, 1000])
    args.workers = args.workers or [1, 2]
    args.tokens = args.tokens or (40 if args.quick else 200)
    args.ramp = args.ramp if args.ramp is not None else (0.2 if args.quick else 1.0)
    if args.quick:
        args.settle = min(args.settle, 2.0)
        args.baseline = min(args.baseline, 2)
    raise_open_files_limit(max(args.streams) + 256)  # the server's processes inherit it
    levels = []
    for workers in args.workers:
        for streams in args.streams:
            print(f"{workers} worker(s), {streams:,} streams...", file=sys.stderr, flush=True)
            levels.append(run_level(args, workers, streams))
    print_tables(levels, args)
    if args.json:
        print(json.dumps(levels, indent=1))
    total = sum(level["runs"] for level in levels)
    failed = sum(level["runs"] - level["finished"] for level in levels)
    if failed:
        print(f"\n{failed:,} of {total:,} streams failed.")
        sys.exit(1)
    print(f"\nAll {total:,} streams finished with RUN_FINISHED, no errors.")


if __name__ == "__main__":
    main()
