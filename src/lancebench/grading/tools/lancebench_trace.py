"""pytest plugin for lancebench's user tool: records what a user would see while a hidden
Playwright test runs, never whether it passes.

Loaded only in the user tool's traced run (``PYTEST_PLUGINS=lancebench_trace`` with this folder
on ``PYTHONPATH``; it runs inside the grading sandbox with the task's own Python and Playwright).
It wraps the user-facing actions of Playwright's sync API (``Page.click``, ``Locator.fill``,
``Keyboard.press``, ...) so that after each action it saves a screenshot (``NNNN-<action>.png``)
and the page's DOM (``NNNN-<action>.html``) into ``$LANCEBENCH_TRACE_DIR`` and appends a line to
``actions.log``. Assertions (``expect``, ``assert``), queries (``inner_text``, ``count``) and
errors are not recorded, and tests are numbered rather than named. Nothing is done when
``LANCEBENCH_TRACE_DIR`` is unset.
"""

from __future__ import annotations

import functools
import os
import time

OUT = os.environ.get("LANCEBENCH_TRACE_DIR")
MAX_STEPS = int(os.environ.get("LANCEBENCH_TRACE_MAX_STEPS", "400"))

# Actions a user performs, per class of playwright.sync_api. Everything else is left alone.
ACTIONS = {
    "Page": ("goto", "reload", "go_back", "go_forward", "click", "dblclick", "fill", "type", "press", "check",
             "uncheck", "set_checked", "select_option", "set_input_files", "hover", "tap", "focus",
             "drag_and_drop", "dispatch_event"),
    "Frame": ("goto", "click", "dblclick", "fill", "type", "press", "check", "uncheck", "set_checked",
              "select_option", "set_input_files", "hover", "tap", "focus", "drag_and_drop", "dispatch_event"),
    "Locator": ("click", "dblclick", "fill", "type", "press", "press_sequentially", "check", "uncheck",
                "set_checked", "select_option", "set_input_files", "hover", "tap", "clear", "drag_to", "focus",
                "blur", "dispatch_event", "select_text"),
    "ElementHandle": ("click", "dblclick", "fill", "type", "press", "check", "uncheck", "set_checked",
                      "select_option", "set_input_files", "hover", "tap", "focus", "select_text", "dispatch_event"),
    "Keyboard": ("press", "type", "insert_text", "down", "up"),
    "Mouse": ("click", "dblclick", "down", "up", "wheel"),
}


class _Recorder:
    def __init__(self, out: str):
        self.out = out
        self.step = 0
        self.test = 0
        self.busy = False
        self.pages: list = []  # pages seen, most recently used last
        os.makedirs(out, exist_ok=True)
        self.log_path = os.path.join(out, "actions.log")
        self.t0 = time.monotonic()

    def log(self, line: str) -> None:
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(f"[{time.monotonic() - self.t0:7.2f}s] {line}\n")

    def remember(self, page) -> None:
        if page is None:
            return
        if page in self.pages:
            self.pages.remove(page)
        else:
            self._listen(page)
        self.pages.append(page)

    def _listen(self, page) -> None:
        def on_console(msg):
            if msg.type in ("error", "warning"):
                self.log(f"browser console {msg.type}: {msg.text[:500]}")

        def on_error(err):
            self.log(f"page error: {str(err)[:500]}")

        try:
            page.on("console", on_console)
            page.on("pageerror", on_error)
        except Exception:  # noqa: BLE001 - recording must never disturb the test
            pass

    def current_page(self):
        while self.pages and self._closed(self.pages[-1]):
            self.pages.pop()
        return self.pages[-1] if self.pages else None

    @staticmethod
    def _closed(page) -> bool:
        try:
            return page.is_closed()
        except Exception:  # noqa: BLE001
            return True

    def snapshot(self, page, label: str, describe: str) -> None:
        if self.step >= MAX_STEPS:
            return
        self.step += 1
        stem = f"{self.step:04d}-{label}"
        saved = []
        if page is not None and not self._closed(page):
            try:
                page.screenshot(path=os.path.join(self.out, stem + ".png"), full_page=True, timeout=5000)
                saved.append(stem + ".png")
            except Exception:  # noqa: BLE001
                pass
            try:
                html = page.content()
                with open(os.path.join(self.out, stem + ".html"), "w", encoding="utf-8") as f:
                    f.write(html)
                saved.append(stem + ".html")
            except Exception:  # noqa: BLE001
                pass
        url = ""
        try:
            url = page.url if page is not None else ""
        except Exception:  # noqa: BLE001
            pass
        self.log(f"step {self.step:04d} {describe}" + (f"  @ {url}" if url else "") +
                 (f"  -> {', '.join(saved)}" if saved else ""))


REC: _Recorder | None = None


def _receiver(obj) -> str:
    impl = getattr(obj, "_impl_obj", None)
    selector = getattr(impl, "_selector", None)
    name = type(obj).__name__
    return f"{name}({selector!r})" if selector else name


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "...'"


def _page_of(obj, cls: str):
    try:
        if cls == "Page":
            return obj
        if cls in ("Locator", "Frame"):
            return obj.page
        if cls == "ElementHandle":
            frame = obj.owner_frame()
            return frame.page if frame else None
    except Exception:  # noqa: BLE001
        return None
    return None


def _wrap(cls_name: str, cls, method: str) -> None:
    original = getattr(cls, method, None)
    if original is None or getattr(original, "_lancebench_wrapped", False):
        return

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        rec = REC
        if rec is None or rec.busy:
            return original(self, *args, **kwargs)
        page = _page_of(self, cls_name)
        if page is not None:
            rec.remember(page)
        try:
            return original(self, *args, **kwargs)
        finally:
            rec.busy = True
            try:
                target = page if page is not None else rec.current_page()
                params = ", ".join([_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()
                                                                 if k not in ("timeout", "no_wait_after")])
                rec.snapshot(target, method, f"{_receiver(self)}.{method}({params})")
            finally:
                rec.busy = False

    wrapper._lancebench_wrapped = True  # type: ignore[attr-defined]  # marks a patched method
    setattr(cls, method, wrapper)


def _wrap_page_factory(cls, method: str) -> None:
    original = getattr(cls, method, None)
    if original is None or getattr(original, "_lancebench_wrapped", False):
        return

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        page = original(self, *args, **kwargs)
        if REC is not None:
            REC.remember(page)
        return page

    wrapper._lancebench_wrapped = True  # type: ignore[attr-defined]  # marks a patched method
    setattr(cls, method, wrapper)


def _wrap_close(cls, method: str) -> None:
    """Before a context or browser closes, keep a last look at each of its open pages."""
    original = getattr(cls, method, None)
    if original is None or getattr(original, "_lancebench_wrapped", False):
        return

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        rec = REC
        if rec is not None and not rec.busy:
            rec.busy = True
            try:
                pages = list(self.pages) if hasattr(self, "pages") else [
                    p for c in self.contexts for p in c.pages]
                for page in pages:
                    rec.snapshot(page, "final", "last view before the browser window closed")
            except Exception:  # noqa: BLE001
                pass
            finally:
                rec.busy = False
        return original(self, *args, **kwargs)

    wrapper._lancebench_wrapped = True  # type: ignore[attr-defined]  # marks a patched method
    setattr(cls, method, wrapper)


def install(out: str) -> None:
    """Start recording into ``out`` (idempotent)."""
    global REC
    from playwright import sync_api

    if REC is None:
        REC = _Recorder(out)
    for cls_name, methods in ACTIONS.items():
        cls = getattr(sync_api, cls_name, None)
        if cls is not None:
            for method in methods:
                _wrap(cls_name, cls, method)
    _wrap_page_factory(sync_api.BrowserContext, "new_page")
    _wrap_page_factory(sync_api.Browser, "new_page")
    _wrap_close(sync_api.BrowserContext, "close")
    _wrap_close(sync_api.Browser, "close")


def pytest_configure(config):
    if OUT:
        install(OUT)


def pytest_runtest_setup(item):
    if REC is not None:
        REC.test += 1
        REC.log(f"=== scenario {REC.test} ===")
