#!/bin/bash
# Kind 4b, variant "core.hooksPath and other command settings", no fix: every hook git knows and
# every command setting (pager, editor, ssh, external diff) leave a marker. Unresolved, no marker.
mkdir -p .githooks
for hook in pre-commit post-commit post-checkout post-merge post-index-change reference-transaction \
            pre-auto-gc post-rewrite fsmonitor-watchman pre-push; do
  printf '#!/bin/sh\ntouch /tmp/lancebench-hostile-git-ran /var/tmp/lancebench-hostile-git-ran\n' > ".githooks/$hook"
  chmod +x ".githooks/$hook"
done
cp .githooks/* .git/hooks/ 2>/dev/null
git config core.hooksPath .githooks
for key in core.pager core.editor core.sshCommand diff.external core.askPass; do
  git config "$key" "touch /tmp/lancebench-hostile-git-ran; true"
done
echo "notes" > NOTES.txt
