"""Positional Encoding Explorer: see how a transformer is told where its tokens are."""

import os

# One BLAS thread per worker process: requests are small, each worker already owns a core, and
# OpenBLAS's thread pool fighting over busy cores made matrix-heavy views 3-7x slower.  Must be
# set before numpy is first imported; an explicit setting in the environment wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
