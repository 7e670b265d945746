#!/bin/bash
# Reference solution: ts-dedent 2.1.0's fix (the same change as fix.patch): read the cooked
# strings of the template, not its raw ones. Made with sed so that it needs no git or patch in
# the image.
set -euo pipefail
cd /app
sed -i "s/typeof templ === 'string' ? \[templ\] : templ.raw)/typeof templ === 'string' ? [templ] : templ)/" src/index.ts
grep -q ": templ);" src/index.ts
