"""Child-process entry of the local model server (``python -m lancebench.llm._serve``).

Loads a GGUF file with xllamacpp (llama.cpp's server, in process), which listens on
``127.0.0.1`` at a free port, prints one JSON line ``{"address": "http://127.0.0.1:PORT"}`` on
stdout, then serves until its stdin closes (the parent ended or asked it to stop) or it receives
SIGTERM/SIGINT. llama.cpp's own log goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lancebench.llm._serve")
    ap.add_argument("--model", required=True, help="path of a .gguf file")
    ap.add_argument("--ctx", type=int, default=8192, help="context window in tokens")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    ap.add_argument("--parallel", type=int, default=1, help="slots: requests served at once, each with --ctx tokens")
    ap.add_argument("--alias", default="", help="model name reported by the server")
    ap.add_argument("--n-predict", type=int, default=-1,
                    help="tokens of one answer at most for a request that sends no max_tokens "
                         "(-1: no bound, llama.cpp's default)")
    ap.add_argument("--train-ctx", type=int, default=0,
                    help="the model's training context; a larger --ctx is reached with YaRN rope scaling")
    args = ap.parse_args(argv)

    import os

    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx * args.parallel  # llama.cpp splits n_ctx evenly between the slots
    params.port = 0  # llama.cpp picks a free port; listening_address reports it
    params.n_parallel = args.parallel
    params.n_predict = args.n_predict
    threads = args.threads or (os.cpu_count() or 1)
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    if 0 < args.train_ctx < args.ctx:
        # llama.cpp caps a slot at the model's training context unless its rope is scaled (YaRN)
        params.rope_scaling_type = xlc.llama_rope_scaling_type.LLAMA_ROPE_SCALING_TYPE_YARN
        params.rope_freq_scale = args.train_ctx / args.ctx
        params.yarn_orig_ctx = args.train_ctx
    if args.alias:
        params.model_alias = args.alias
    server = xlc.Server(params)
    sys.stdout.write(json.dumps({"address": server.listening_address}) + "\n")
    sys.stdout.flush()

    done = threading.Event()

    def _stop(*_: object) -> None:
        done.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)

    def _watch_stdin() -> None:
        sys.stdin.read()  # returns at EOF: the parent closed the pipe or died
        done.set()

    threading.Thread(target=_watch_stdin, daemon=True).start()
    while not done.wait(0.5):
        pass
    del server  # the destructor ends llama.cpp's loop and closes the port
    return 0


if __name__ == "__main__":
    sys.exit(main())
