"""``ginscore serve``: the score sheet on this machine (and, with --host 0.0.0.0, the LAN).

The app runs under waitress (a production WSGI server in pure Python): a fixed pool of worker
threads, request size and connection limits, and no debugger or development banner.
"""

from __future__ import annotations

import argparse
import os
import socket

from . import create_app


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``serve`` on the ``ginscore`` parser."""
    parser = commands.add_parser(
        "serve",
        help="start the score sheet web app",
        description="Start the score sheet on an embedded SQLite database with the shipped model.",
    )
    parser.add_argument(
        "--db", metavar="PATH", help="SQLite file (default: ginscore.sqlite in the app's instance folder)"
    )
    parser.add_argument("--port", type=int, default=5000, help="port to listen on (default 5000)")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on; 0.0.0.0 opens it to phones on the LAN (default 127.0.0.1)",
    )
    parser.add_argument(
        "--camera", metavar="SRC", help="webcam over the table: a device index (0), a stream URL or a video file"
    )
    parser.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="another name phones use for this machine (e.g. gin.local); repeatable. "
        "localhost, 127.0.0.1, the LAN address and the --host name are always allowed",
    )
    parser.add_argument("--threads", type=int, default=8, help="worker threads (default 8)")
    parser.add_argument("--pin", help="table PIN a browser must enter once before changing anything")
    parser.add_argument("--model", metavar="DIR", help="models folder with the detector (default: the shipped models/)")
    parser.set_defaults(run=run_serve)


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def serve_config(args: argparse.Namespace) -> dict:
    """The app config for these command-line options; ValueError on a bad one."""
    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port {args.port} is not a port number (1-65535)")
    if args.pin is not None and not args.pin.strip():
        raise ValueError("--pin must not be empty")
    config: dict = {
        "PIN": args.pin.strip() if args.pin else None,
        "CAMERA_SOURCE": args.camera,
        "WATCH_TABLE": True,  # the camera (when one is set) scores a still showdown hands-free
        "MODEL_PATH": args.model,
    }
    if args.db:
        config["DATABASE"] = args.db
    if args.model:
        if not os.path.isdir(args.model):
            raise FileNotFoundError(f"--model {args.model}: no such folder")
    allowed = [name.strip().lower() for name in getattr(args, "allow_host", None) or [] if name.strip()]
    if args.host in ("0.0.0.0", "::"):
        address = lan_address()
        config["LAN_URL"] = f"http://{address}:{args.port}/"
        allowed.append(address)
    else:
        allowed.append(args.host.strip("[]").lower())
    config["ALLOWED_HOSTS"] = tuple(dict.fromkeys(allowed))
    return config


def make_server(app, host: str, port: int, threads: int = 8):
    """A waitress server for the app (not yet serving); OSError when the address is taken."""
    from waitress import create_server

    max_body = app.config["MAX_CONTENT_LENGTH"] + 1024 * 1024  # the app answers 413 itself below this
    return create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="ginscore",
        max_request_body_size=max_body,
        connection_limit=100,
        channel_timeout=60,
        clear_untrusted_proxy_headers=True,
    )


def run_serve(args: argparse.Namespace) -> int:
    """Start the app under waitress until Ctrl-C."""
    config = serve_config(args)
    if not 1 <= getattr(args, "threads", 8) <= 64:
        raise ValueError(f"--threads {args.threads} must be from 1 to 64")
    app = create_app(config)
    try:
        server = make_server(app, args.host, args.port, getattr(args, "threads", 8))
    except OSError as error:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"ginscore: score sheet at http://{shown_host}:{args.port}/  (database {app.config['DATABASE']})", flush=True)
    if config.get("LAN_URL"):
        import segno

        print(f"ginscore: on the LAN at {config['LAN_URL']}  (scan the code with a phone)", flush=True)
        segno.make(config["LAN_URL"], error="m").terminal(compact=True)
    if config.get("PIN"):
        print("ginscore: a table PIN is required before changes", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
