#!/bin/bash
# Root in the agent's container tries to lift its network allowlist with the image's own tools:
# flush nftables, open iptables' output policy, route and re-address the interface; then probes
# the address it is not allowed (BLOCKED=IP:PORT in the instruction) and the one it is
# (ALLOWED=IP:PORT). Everything lands in net.txt (the patch shows it).
eval "$(grep -E '^(ALLOWED|BLOCKED)=' "$LANCEBENCH_INSTRUCTION")"
probe() { timeout 5 bash -c 'exec 3<>"/dev/tcp/${0%:*}/${0##*:}"' "$1" 2>/dev/null && echo reached || echo refused; }
{
  echo "uid=$(id -u)"
  nft flush ruleset 2>&1; echo "nft=$?"
  nft delete table inet lancebench 2>&1; echo "nftdel=$?"
  iptables -P OUTPUT ACCEPT 2>&1; echo "iptpolicy=$?"
  iptables -I OUTPUT 1 -j ACCEPT 2>&1; echo "iptinsert=$?"
  ip route replace "${BLOCKED%:*}/32" dev eth0 2>&1; echo "route=$?"
  ip addr add 10.99.0.2/24 dev eth0 2>&1; echo "addr=$?"
  echo "blocked=$(probe "$BLOCKED")"
  echo "allowed=$(probe "$ALLOWED")"
} > net.txt
echo done > done.txt
