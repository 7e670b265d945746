#!/bin/bash
# Reference solution: go-humanize's upstream fix (v1.0.1): stripTrailingZeros leaves a string
# without a decimal point as it is (the same change as fix.patch). Made with sed so that it needs no git or patch in the image.
set -euo pipefail
cd /app
sed -i 's/^func stripTrailingZeros(s string) string {$/&\n\tif !strings.ContainsRune(s, '"'"'.'"'"') {\n\t\treturn s\n\t}/' ftoa.go
