"""How lancebench reads a failed model call (an exception litellm raised): its HTTP status and
headers, and its kind (:func:`classify_error`), which decides whether
:class:`lancebench.llm.LLMClient` retries it, stops the job, or gives up at once."""

from __future__ import annotations


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of the answer that raised ``exc`` (None: no HTTP answer)."""
    code = getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None


def headers_of(exc: BaseException) -> dict[str, str]:
    """The HTTP headers of the answer that raised ``exc`` (empty when there was none)."""
    found: dict[str, str] = {}
    for source in (getattr(getattr(exc, "response", None), "headers", None),
                   getattr(exc, "litellm_response_headers", None)):
        try:
            found.update({str(k): str(v) for k, v in (source or {}).items()})
        except (AttributeError, TypeError):  # an odd object instead of a mapping
            continue
    return found


# Not "quota exceeded": Gemini says so of its per-minute rate limits, which pass.
_QUOTA_WORDS = ("insufficient_quota", "exceeded your current quota", "billing", "credit balance",
                "insufficient credits", "insufficient balance", "payment required")


def is_quota(exc: BaseException) -> bool:
    """The provider says the account's quota or credit is used up (not a passing rate limit):
    HTTP 402, or a refusal whose code or text says so (OpenAI's ``insufficient_quota`` 429,
    Anthropic's "credit balance is too low", OpenRouter's 402)."""
    if status_of(exc) == 402:
        return True
    code = str(getattr(exc, "code", "") or "").lower()
    text = f"{code} {exc}".lower()
    return code == "insufficient_quota" or any(word in text for word in _QUOTA_WORDS)


# A 403 that refuses what a request holds, not its key: OpenRouter answers a prompt its moderation
# flags with 403 ("... requires moderation ... your input was flagged"), and a guardrail block too.
_CONTENT_403_WORDS = ("flagged", "moderation", "content_policy", "content policy", "content management policy",
                      "content filter", "content_filter", "guardrail", "prompt injection", "safety")


def refuses_content(exc: BaseException) -> bool:
    """A 403 whose code or text says the request's content was refused (moderation, a content
    filter, a guardrail), not its credentials: :class:`~lancebench.errors.ModelRefused`, whose
    cause a control decides, never a stopped job (attack pass round 4: a patch written to be
    flagged made the judge's request a "refused key", which stops every trial of the job)."""
    code = str(getattr(exc, "code", "") or "").lower()
    text = f"{code} {exc}".lower()
    return status_of(exc) == 403 and any(word in text for word in _CONTENT_403_WORDS)


def classify_error(exc: BaseException) -> str:
    """``auth`` (401/403, but a 403 that refuses the content: :func:`refuses_content`), ``quota``
    (quota or credit used up), ``context`` (context window), ``retry`` (429, 5xx, timeout,
    connection) or ``fatal`` (any other refusal) for an exception litellm raised."""
    import litellm  # already imported by the client that caught ``exc``

    ex = litellm.exceptions
    status = status_of(exc)
    if (status is None or status < 500) and is_quota(exc):
        return "quota"
    if refuses_content(exc):
        return "fatal"
    if isinstance(exc, (ex.AuthenticationError, ex.PermissionDeniedError)) or status in (401, 403):
        return "auth"
    if isinstance(exc, ex.ContextWindowExceededError):
        return "context"
    if isinstance(exc, (ex.RateLimitError, ex.InternalServerError, ex.ServiceUnavailableError,
                        ex.APIConnectionError, ex.Timeout, ex.BadGatewayError)):
        return "retry"
    if status is not None and (status == 429 or status == 408 or status >= 500):
        return "retry"
    if isinstance(exc, ex.APIError) and status is None:
        return "retry"  # no HTTP answer at all: treat as a connection problem
    return "fatal"
