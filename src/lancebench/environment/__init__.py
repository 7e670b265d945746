"""Environment builds: a task's environment made once per content digest and cached."""
