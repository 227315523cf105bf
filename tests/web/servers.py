"""Real servers on loopback for the tests: `ginscore serve` in a subprocess, or waitress in a thread."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`ginscore serve` in a subprocess on a free loopback port.

    Its output goes to a log file beside the database, never to a pipe: nobody reads a pipe while the
    tests run, and a server whose output outgrew the pipe's buffer would block on its next write and
    stop answering. A failing test can show the log (``output``)."""

    def __init__(self, db: Path, *extra: str) -> None:
        self.db = db
        self.extra = extra
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log_path = Path(db).with_name(Path(db).name + f".{self.port}.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    "import sys; from web.cli import main; sys.exit(main())",
                    "serve",
                    "--db",
                    str(self.db),
                    "--port",
                    str(self.port),
                    *self.extra,
                ],
                cwd=REPO,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/", timeout=2)
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError("ginscore serve exited: " + self.output()) from None
                time.sleep(0.1)
        raise RuntimeError("ginscore serve did not answer in 60 s")

    def output(self) -> str:
        """Everything the server has written so far (stdout and stderr)."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> str:
        self.process.terminate()
        self.process.wait(timeout=20)
        return self.output()

    def kill(self) -> None:
        """kill -9: no chance to clean up."""
        self.process.kill()
        self.process.wait(timeout=20)


class ThreadServer:
    """The app under waitress (as `ginscore serve` runs it) in a thread of the test process."""

    def __init__(self, app, threads: int = 8) -> None:
        from web.serve_cli import make_server

        self.server = make_server(app, "127.0.0.1", 0, threads)
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.close()
        self.server.task_dispatcher.shutdown()

    def request(
        self,
        method: str,
        path: str,
        body=None,
        headers: dict | None = None,
        source: str = "127.0.0.1",
        timeout: float = 60,
    ) -> tuple[int, dict, bytes]:
        """One request over loopback from the ``source`` address (any 127.x.y.z); (status, headers, body)."""
        headers = dict(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0))
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()


def multipart(field: str, filename: str, data: bytes, content_type: str = "image/jpeg") -> tuple[bytes, str]:
    """A multipart/form-data body with one file field; (body, Content-Type header)."""
    boundary = "ginscore-test-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"
