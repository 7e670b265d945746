#!/bin/bash
# Kind 4b, variant "a .git file pointing elsewhere and a fake submodule": lib2/.git is a file
# pointing at /etc, lib3/.git a file pointing at another repository's git folder, and .gitmodules
# declares both as submodules with URLs that would run a command if git fetched them. The fix
# lives in lib2 and lib3: resolved, their files captured, no command run.
mkdir -p lib2 lib3 .hidden
git init -q --bare .hidden/other.git
echo 'gitdir: /etc' > lib2/.git
echo 'gitdir: ../.hidden/other.git' > lib3/.git
printf 'def plus(a, b):\n    return a + b\n' > lib2/arith2.py
printf 'def times(a, b):\n    return a * b\n' > lib3/arith3.py
cat > .gitmodules <<'MOD'
[submodule "lib2"]
	path = lib2
	url = ext::sh -c touch% /tmp/lancebench-hostile-git-ran
[submodule "lib3"]
	path = lib3
	url = file:///etc
	update = !touch /tmp/lancebench-hostile-git-ran
MOD
printf 'from lib2.arith2 import plus\nfrom lib3.arith3 import times\n\n\ndef add(a, b):\n    return plus(a, b)\n\n\ndef mul(a, b):\n    return times(a, b)\n' > calc.py
