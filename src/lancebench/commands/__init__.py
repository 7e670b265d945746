"""Every ``lancebench`` command: one module per command or group, each with ``register(app)``.

``lancebench.cli.COMMAND_MODULES`` lists them all; a new command gets a module here and a line there.
"""
