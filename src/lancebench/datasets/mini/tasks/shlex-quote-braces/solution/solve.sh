#!/bin/bash
# Reference solution: the part of shlex 1.3.0's fix for RUSTSEC-2024-0006 that concerns braces:
# `quote` quotes a word holding `{` or `}` (bash's brace expansion), as it quotes `*` or `~`.
# The same change as fix.patch, made with sed so that it needs no git or patch in the image.
set -euo pipefail
cd /app
sed -i "s/'=' | '%' => true,/'=' | '%' | '{' | '}' => true,/" src/lib.rs
grep -q "'%' | '{' | '}' => true" src/lib.rs
