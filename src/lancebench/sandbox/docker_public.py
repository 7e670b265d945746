"""Trials with the whole network (``network_mode = "public"``) on docker never reach one another
(issue 20, item 4: two such trials shared the default bridge, and one fetched a secret the other
was serving).

- A container that has the whole network from its start runs on :data:`NETWORK`, a bridge of the
  engine made once (by whichever harness needs it first) with inter-container traffic off
  (``com.docker.network.bridge.enable_icc=false``): the engine's own rules drop every packet
  between two containers on it, and its isolation rules every packet to another bridge (the
  default one, where the allowlisted containers run). The network and the host (the bridge's
  gateway) stay reachable: that is what ``public`` means. No root is needed in the harness.
- A container on the default bridge whose allowlist is lifted for a step with the whole network
  (a multi-step task whose steps' networks differ) gets :func:`isolate`'s rules in its own
  namespace instead (as the allowlist is installed, :mod:`lancebench.sandbox.docker_network`):
  nothing on the bridge but its gateway is reachable from it, and nothing reaches it. They are
  installed again after each start of the container (a fresh namespace).
"""

from __future__ import annotations

import ipaddress
import threading

from lancebench.errors import SandboxError
from lancebench.sandbox import docker_engine as engine
from lancebench.sandbox.docker_network import TABLE, _nft

NETWORK = "lancebench-public"
LABEL = "lancebench.network"
_lock = threading.Lock()
_known: str | None = None


def public_network() -> str:
    """The id of :data:`NETWORK`, made when the engine has none (labelled ``lancebench.network``;
    one per engine, shared by every job; a network of that name without inter-container traffic
    off is refused). Raises :class:`SandboxError` when the engine fails."""
    global _known
    with _lock:
        if _known is not None:
            return _known
        docker = engine._import_docker()
        cli = engine.client()
        try:
            found = cli.networks.list(names=[NETWORK])
            net = found[0] if found else cli.networks.create(
                NETWORK, driver="bridge", check_duplicate=True, labels={LABEL: "public"},
                options={"com.docker.network.bridge.enable_icc": "false"})
            net.reload()
        except docker.errors.APIError as exc:
            raise SandboxError(f"docker could not make the network {NETWORK} for trials with the whole network: "
                               f"{exc}") from exc
        icc = (net.attrs.get("Options") or {}).get("com.docker.network.bridge.enable_icc")
        if icc != "false":
            raise SandboxError(f"docker network {NETWORK} lets its containers reach one another "
                               f"(enable_icc={icc!r}); remove it (docker network rm {NETWORK}) so lancebench "
                               "makes it again")
        _known = net.id
        return net.id


def isolate(netns: str, address: str, prefix: int, gateway: str) -> None:
    """Install the rules of a lifted allowlist (the module docstring) in the network namespace
    file ``netns`` of a container with bridge address ``address``/``prefix`` and ``gateway``.
    Raises :class:`SandboxError`."""
    subnet = ipaddress.ip_interface(f"{address}/{prefix}").network
    _nft(netns, f"add table inet {TABLE}\ndelete table inet {TABLE}\n"
                f"table inet {TABLE} {{\n"
                f"  chain out {{ type filter hook output priority 0; policy accept;\n"
                f"    oif \"lo\" accept\n    ct state established,related accept\n"
                f"    ip daddr {gateway} accept\n"
                f"    ip daddr {subnet} reject with icmpx type admin-prohibited\n  }}\n"
                f"  chain in {{ type filter hook input priority 0; policy drop;\n"
                f"    iif \"lo\" accept\n    ct state established,related accept\n  }}\n"
                f"}}\n")
