"""Model access for lancebench: litellm calls with retries, usage and cost (:mod:`.client`), and a
local model served on the CPU (:mod:`.local`). Nothing here imports litellm or xllamacpp until a
model is really used.

What a job does::

    from lancebench.llm import preflight, serve_model
    with serve_model(model, api_base) as api_base:   # starts the local server for `local...`
        preflight(model, api_base)                   # one tiny request; auth errors stop here
        ...                                          # build sandboxes, run MiniSweAgent(model, api_base)
"""

from lancebench.llm.client import (CallUsage, Completion, ContextWindowError, DeadlineExceeded, LLMClient, Prices,
                                   ResolvedModel, is_local_model, preflight, resolve_model)
from lancebench.llm.local import LocalModelServer, serve_model

__all__ = ["CallUsage", "Completion", "ContextWindowError", "DeadlineExceeded", "LLMClient", "LocalModelServer",
           "Prices", "ResolvedModel", "is_local_model", "preflight", "resolve_model", "serve_model"]
