"""Rows of class probabilities (one row per crop): normalised, and several readings combined as one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# added to a probability before its logarithm, so that a class one reading gives 0 still combines
LOG_FLOOR = 1e-9
# the smallest row sum divided by, so that a row of zeros stays zeros
SUM_FLOOR = 1e-12


def normalised_rows(probabilities: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (a row of zeros stays zeros).

    >>> normalised_rows(np.array([[1.0, 3.0], [0.0, 0.0]])).tolist()
    [[0.25, 0.75], [0.0, 0.0]]
    """
    return probabilities / np.maximum(probabilities.sum(axis=1, keepdims=True), SUM_FLOOR)


def geometric_mean(readings: Sequence[np.ndarray], weights: Sequence[float | np.ndarray]) -> np.ndarray:
    """Several readings (each (N, classes), the same classes in the same columns) as one: their weighted
    geometric mean, renormalised to sum to one per row.

    >>> geometric_mean([np.array([[0.5, 0.5]]), np.array([[0.9, 0.1]])], [0.5, 0.5]).round(3).tolist()
    [[0.75, 0.25]]
    """
    log_mean = sum(weight * np.log(reading + LOG_FLOOR) for reading, weight in zip(readings, weights, strict=True))
    assert isinstance(log_mean, np.ndarray)
    combined = np.exp(log_mean - log_mean.max(axis=1, keepdims=True))
    return combined / combined.sum(axis=1, keepdims=True)
