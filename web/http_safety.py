"""What every request and response goes through: the Host allow-list and the security headers.

The Host check stops DNS rebinding: a page on evil.example whose name is pointed at this machine
would otherwise reach the app with the browser's blessing. Only the names the app is really
served under are answered (``ALLOWED_HOSTS``: localhost and 127.0.0.1 always; ``ginscore serve``
adds the LAN address it prints and the ``--host`` name).
"""

from __future__ import annotations

from flask import Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def host_name(host_header: str) -> str:
    """``Host: Example.lan:5000`` -> ``example.lan``; ``[::1]:5000`` -> ``::1``."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def allowed_hosts() -> set[str]:
    return {name.lower() for name in (*LOOPBACK_HOSTS, *(current_app.config.get("ALLOWED_HOSTS") or ()))}


def error_response(message: str, status: int) -> tuple[Response | str, int]:
    """The error as JSON for the API, as the error page otherwise."""
    if request.path.startswith("/api/"):
        return jsonify(error=message), status
    return render_template("error.html", message=message), status


def check_host() -> ResponseReturnValue | None:
    """before_request hook: answer only under this server's own names (400 otherwise)."""
    name = host_name(request.headers.get("Host", ""))
    if name in allowed_hosts():
        return None
    shown = ", ".join(sorted(allowed_hosts()))
    return error_response(
        f"This server answers only at its own addresses ({shown}); open it by one of "
        "those, as ginscore serve printed it.",
        400,
    )


def add_security_headers(response: Response) -> Response:
    """after_request hook: CSP, no framing, no sniffing, no referrer to other sites."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response
