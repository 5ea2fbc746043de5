"""The service every adapter calls (engram.service.engram.Engram) and what it returns."""

from .engram import Engram
from .results import Conflict, ImportResult, SaveResult

__all__ = ["Conflict", "Engram", "ImportResult", "SaveResult"]
