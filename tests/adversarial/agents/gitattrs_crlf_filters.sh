#!/bin/bash
# Kind 4b (capture under hostile git files), .gitattributes variant "a real fix": calc.py is fixed
# and written with CRLF line endings, and .gitattributes asks for eol/text conversion, a filter
# and a diff driver that the agent's .git/config defines as commands leaving a marker. The capture
# must take the bytes as they are (no conversion, no driver run) and grading resolve the trial.
printf 'def add(a, b):\r\n    return a + b\r\n\r\n\r\ndef mul(a, b):\r\n    return a * b\r\n' > calc.py
printf '* text eol=lf filter=lbclean diff=lbdiff\n*.py -text export-ignore\ncalc.py text working-tree-encoding=UTF-16\n' > .gitattributes
mark='touch /tmp/lancebench-hostile-git-ran /var/tmp/lancebench-hostile-git-ran 2>/dev/null'
git config filter.lbclean.clean "sh -c '$mark; cat'"
git config filter.lbclean.smudge "sh -c '$mark; cat'"
git config filter.lbclean.required true
git config diff.lbdiff.textconv "sh -c '$mark; cat'"
git config diff.lbdiff.command "sh -c '$mark'"
