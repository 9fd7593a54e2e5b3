"""One module per ``fxai`` sub-command, each with ``add_arguments(parser)`` and ``run(args)``.

The module name is the command name with ``-`` for ``_`` (``fxai train-nbc`` ->
``train_nbc.py``); cli.py discovers them, so adding a command touches no other file.
"""
