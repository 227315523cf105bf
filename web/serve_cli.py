"""``ginscore serve``: the score sheet on this machine (and, with --host 0.0.0.0, the LAN)."""
from __future__ import annotations

import argparse
import socket


def add_commands(commands: "argparse._SubParsersAction") -> None:
    """Register ``serve`` on the ``ginscore`` parser."""
    parser = commands.add_parser(
        "serve", help="start the score sheet web app",
        description="Start the score sheet on an embedded SQLite database with the shipped model.")
    parser.add_argument("--db", metavar="PATH", help="SQLite file (default: ginscore.sqlite in the app's "
                        "instance folder)")
    parser.add_argument("--port", type=int, default=5000, help="port to listen on (default 5000)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on; 0.0.0.0 opens it to phones on the LAN (default 127.0.0.1)")
    parser.add_argument("--camera", metavar="SRC",
                        help="webcam over the table: a device index (0), a stream URL or a video file")
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
    config: dict = {"PIN": args.pin.strip() if args.pin else None, "CAMERA_SOURCE": args.camera,
                    "MODEL_PATH": args.model}
    if args.db:
        config["DATABASE"] = args.db
    if args.model:
        import os
        if not os.path.isdir(args.model):
            raise FileNotFoundError(f"--model {args.model}: no such folder")
    if args.host in ("0.0.0.0", "::"):
        config["LAN_URL"] = f"http://{lan_address()}:{args.port}/"
    return config


def run_serve(args: argparse.Namespace) -> int:
    """Start the app with a threaded server until Ctrl-C."""
    from werkzeug.serving import make_server

    from . import create_app
    config = serve_config(args)
    app = create_app(config)
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as error:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"ginscore: score sheet at http://{shown_host}:{args.port}/  (database {app.config['DATABASE']})",
          flush=True)
    if config.get("LAN_URL"):
        import segno
        print(f"ginscore: on the LAN at {config['LAN_URL']}  (scan the code with a phone)", flush=True)
        segno.make(config["LAN_URL"], error="m").terminal(compact=True)
    if config.get("PIN"):
        print("ginscore: a table PIN is required before changes", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
