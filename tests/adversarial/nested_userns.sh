#!/bin/bash
# Kind 8, variant "nested user namespace": a new user namespace would hand the process a full set
# of capabilities inside it. Records whether it could make one.
if unshare -U -r true 2>/dev/null || python3 -c 'import os; os.unshare(os.CLONE_NEWUSER)' 2>/dev/null; then
  echo "userns=created" > userns.txt
else
  echo "userns=refused" > userns.txt
fi
