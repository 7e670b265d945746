#!/bin/bash
# Reference solution: minimist 1.2.6's fix (the same change as fix.patch), made with sed so that
# it needs no git or patch in the image.
set -euo pipefail
cd /app
sed -i "s/if (key === '__proto__') return;/if (isConstructorOrProto(o, key)) return;/" index.js
cat >> index.js <<'JS'

function isConstructorOrProto (obj, key) {
    return key === 'constructor' && typeof obj[key] === 'function' || key === '__proto__';
}
JS
