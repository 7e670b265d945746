"""Model access for lancebench: litellm calls with retries, usage and cost (:mod:`.client`), and a
local model served on the CPU (:mod:`.local`). Nothing here imports litellm or xllamacpp until a
model is really used.

What a job does::

    from lancebench.llm import model_endpoint
    with model_endpoint(model, api_base) as (model, api_base):  # local server started; preflight done
        ...                                                      # build sandboxes, MiniSweAgent(model, api_base)
"""

from lancebench.llm.client import (
                                   CallUsage,
                                   Completion,
                                   ContextWindowError,
                                   DeadlineExceeded,
                                   LLMClient,
                                   Prices,
                                   ResolvedModel,
                                   is_local_model,
                                   preflight,
                                   resolve_model,
)
from lancebench.llm.local import LocalModelServer, serve_model
from lancebench.llm.serving import model_endpoint

__all__ = ["CallUsage", "Completion", "ContextWindowError", "DeadlineExceeded", "LLMClient", "LocalModelServer",
           "Prices", "ResolvedModel", "is_local_model", "model_endpoint", "preflight", "resolve_model", "serve_model"]
