#!/bin/bash
# Reference answer for this choice task.
set -euo pipefail
mkdir -p /app
echo '{"selected_proposal_id": 3}' > /app/answer.json
