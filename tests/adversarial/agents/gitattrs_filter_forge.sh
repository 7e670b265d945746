#!/bin/bash
# Kind 4b, .gitattributes variant "a fix only a filter makes": calc.py stays broken, but a clean
# filter of the agent's .git/config would turn `a - b` into `a + b` in what git stores. The capture
# must not run it (the patch holds only .gitattributes): unresolved.
printf 'calc.py filter=fixit diff=fixit eol=crlf\n*.txt -text\n' > .gitattributes
git config filter.fixit.clean "sh -c 'touch /tmp/lancebench-hostile-git-ran 2>/dev/null; sed s/a\\ -\\ b/a\\ +\\ b/'"
git config filter.fixit.required true
git config diff.fixit.textconv "sh -c 'touch /tmp/lancebench-hostile-git-ran 2>/dev/null; cat'"
