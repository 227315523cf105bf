"""Learning: synthetic data, training, retraining at the table, teaching a deck, corrected examples.

Imports ``vision.evaluation`` and the reader (``vision``); nothing in the reader imports this package.
"""
