"""Pure-numpy mathematics of positional encodings.

Nothing in this package knows about the web: functions take scalars and arrays and return
arrays.  ``tests/core/test_purity.py`` fails if a module here imports a web or serialisation
library.
"""
