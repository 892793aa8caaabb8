"""Positional Encoding Explorer: see how a transformer is told where its tokens are."""

__version__ = "0.1.0"
