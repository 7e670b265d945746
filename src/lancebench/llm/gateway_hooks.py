"""Code that runs inside the model gateway's process (LiteLLM's proxy, :mod:`.gateway`), never in
lancebench's: the per-trial key check and the usage log.

- :func:`check_key` is the proxy's ``general_settings.custom_auth``: a request is let through only
  when the sha256 of its key names a file in ``$LANCEBENCH_GATEWAY_DIR/keys/`` (written by
  :meth:`Gateway.issue_key`, deleted when the trial ends). This stands in for LiteLLM's virtual
  keys, which need a database; the request is then tagged with the key's hash as ``user_id``.
- :data:`usage_log` (a ``litellm_settings.callbacks`` entry) appends one JSON line per answered
  call to ``$LANCEBENCH_GATEWAY_DIR/usage/<key hash>.jsonl``: ``prompt_tokens``,
  ``completion_tokens``, ``cached_tokens`` (counts), ``cost_usd`` (USD from LiteLLM's price
  table, None when LiteLLM could not price the call), ``model``, ``call_type``, ``time``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from litellm.integrations.custom_logger import CustomLogger
from litellm.proxy._types import ProxyErrorTypes, ProxyException, UserAPIKeyAuth


def _root() -> Path:
    return Path(os.environ["LANCEBENCH_GATEWAY_DIR"])


def key_hash(key: str) -> str:
    """The hex sha256 of a trial key: its file name under ``keys/`` and ``usage/``."""
    return hashlib.sha256(key.encode()).hexdigest()


async def check_key(request: Any, api_key: str) -> UserAPIKeyAuth:
    """LiteLLM custom auth: accept a live trial key, refuse anything else (raises, so the proxy
    answers 401)."""
    key = (api_key or "").removeprefix("Bearer ").strip()
    digest = key_hash(key)
    if not key or not (_root() / "keys" / digest).is_file():
        raise ProxyException(message="lancebench gateway: this key is not valid (unknown, or its trial ended)",
                             type=ProxyErrorTypes.auth_error, param="api_key", code=401)
    return UserAPIKeyAuth(api_key=digest, user_id=digest, key_alias=digest)


def _cached(slo: dict) -> int:
    usage = (slo.get("metadata") or {}).get("usage_object") or {}
    details = usage.get("prompt_tokens_details") or {}
    return int(details.get("cached_tokens") or usage.get("cache_read_input_tokens") or 0)


class UsageLog(CustomLogger):
    """Writes each successful call's usage and cost to the trial's usage file."""

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):  # noqa: ANN001
        slo = kwargs.get("standard_logging_object") or {}
        digest = (slo.get("metadata") or {}).get("user_api_key_user_id")
        if not digest or not all(c in "0123456789abcdef" for c in digest):
            return
        priced = slo.get("response_cost_failure_debug_info") is None
        line = {"prompt_tokens": int(slo.get("prompt_tokens") or 0),
                "completion_tokens": int(slo.get("completion_tokens") or 0), "cached_tokens": _cached(slo),
                "cost_usd": float(slo.get("response_cost") or 0.0) if priced else None,
                "model": slo.get("model"), "call_type": slo.get("call_type"), "time": time.time()}
        folder = _root() / "usage"
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / f"{digest}.jsonl", "a") as f:
            f.write(json.dumps(line) + "\n")


usage_log = UsageLog()
