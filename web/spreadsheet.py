"""CSV for spreadsheets: cells that a spreadsheet will not run as formulas, and the CSV download."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from flask import Response


def spreadsheet_safe(value: object) -> str:
    """A CSV cell that a spreadsheet will not run as a formula (names may start with = + - @)."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_download(rows: Iterable[Sequence[object]], filename: str) -> Response:
    """The rows as a CSV file to download (the cells as given: make text cells ``spreadsheet_safe``)."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return Response(
        buffer.getvalue(), mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
