"""Measuring the reader on labelled photos and choosing its thresholds.

Imports the reader (``vision``) only; ``vision.training`` imports this package, never the reverse.
"""
