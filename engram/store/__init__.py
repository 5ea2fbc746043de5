"""Storage backends behind one small protocol (see base.py)."""

from .base import Candidate, Filters, Store

__all__ = ["Candidate", "Filters", "Store"]
