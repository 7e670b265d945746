#!/bin/bash
# Attack pass after issue 20: a choice task's answer file the reader chokes on with an exception
# other than the ValueError of bad JSON, so the harness would end the trial with an internal
# error (`invalid`, not the agent's). KIND=deep (default): arrays nested 40,000 deep under the
# key (json.loads raises RecursionError); KIND=digits: the id as a string of 5,000 digits
# (int() refuses more than 4,300 digits with a ValueError the grader does not catch).
kind="$(grep -E '^KIND=' "$LANCEBENCH_INSTRUCTION" | head -1 | cut -d= -f2-)"
if [ "${kind:-deep}" = digits ]; then
    python3 -c 'print("{\"selected_proposal_id\": \"" + "1" * 5000 + "\"}")' > answer.json
else
    python3 -c 'print("{\"selected_proposal_id\": " + "[" * 40000 + "]" * 40000 + "}")' > answer.json
fi
