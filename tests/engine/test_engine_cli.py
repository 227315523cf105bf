"""`ginscore hand` and `ginscore showdown` through the real dispatcher (web/cli.py)."""

import json
import subprocess
import sys
from pathlib import Path

from web.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_hand_shows_melds_deadwood_and_knock(capsys):
    assert main(["hand", "As 2s 3s 7c 7d 7h Kd Qd Jd 4c"]) == 0
    out = capsys.readouterr().out
    assert "As 2s 3s" in out and "7h 7d 7c" in out and "Jd Qd Kd" in out
    assert "4c = 4" in out and "can knock (limit 10)" in out


def test_hand_with_eleven_cards_shows_best_discard(capsys):
    assert main(["hand", "5s 6s 7s 8s 5c 6c 7c 8c 5d 7d 8h", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["deadwood"] == 5 and data["discard"] == "7d" and data["can_knock"]


def test_hand_big_gin(capsys):
    assert main(["hand", "As 2s 3s 4s 5s 9h 9d 9c Kd Qd Jd"]) == 0
    assert "big gin" in capsys.readouterr().out


def test_hand_oklahoma_upcard_limit(capsys):
    assert main(["hand", "As 2s 3s 7c 7d 7h Kd Qd Jd 6c", "--rules", "oklahoma", "--upcard", "5h"]) == 0
    assert "cannot knock (limit 5)" in capsys.readouterr().out


def test_showdown_text_and_json(capsys):
    args = [
        "showdown",
        "--knocker",
        "5s 6s 7s Ks Kc Kd 9c Tc Jc Jd",
        "--defender",
        "2s 8s 9s Ac 2c 7c 8c 2d 8d 2h",
        "--rules",
        "pagat",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("Undercut: the defender scores 11.")  # 10 - 9 + 10 (pagat)
    assert "Knocker: 5s 6s 7s | 9c Tc Jc | Ks Kd Kc; deadwood Jd = 10" in out  # the result's lines
    assert "Lay-offs: 8s 9s on 5s 6s 7s; 8c 7c on 9c Tc Jc" in out
    assert main(args + ["--json", "--set", "undercut_bonus=20"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "undercut" and data["points"] == 21 and len(data["layoffs"]) == 4


def test_showdown_upcard_spade_doubles(capsys):
    assert (
        main(
            [
                "showdown",
                "--knocker",
                "As 2s 3s 4h 5h 6h 7d 7c 7s 7h",
                "--defender",
                "4s 8h Kd Kc Qd Jh 9c 2d 3c 5c",
                "--rules",
                "oklahoma",
                "--upcard",
                "9s",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["points"] == 2 * (25 + 71)


def test_bad_card_is_one_line_error_exit_2(capsys):
    assert main(["hand", "As 2s Xs 4c 5c 6c 7c 8c 9c Tc"]) == 2
    err = capsys.readouterr().err
    assert "Xs" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_rule_setting_and_knock_over_limit(capsys):
    assert main(["hand", "As 2s 3s 7c 7d 7h Kd Qd Jd 4c", "--set", "colour=red"]) == 2
    assert "colour" in capsys.readouterr().err
    assert (
        main(["showdown", "--knocker", "As 2s 3s 4h 5h 6h 7d 7c 2c 9c", "--defender", "9d 9h Qc Qh 2d 3c 8c 4d 6d Tc"])
        == 2
    )
    assert "cannot knock with 25 deadwood" in capsys.readouterr().err


def test_subprocess_duplicate_card_exit_2_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "web.cli", "hand", "As 2s 3s 4s 5s 6s 7s 8s 9s 2s"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "duplicate card '2s'" in proc.stderr and "Traceback" not in proc.stderr
    ok = subprocess.run(
        [sys.executable, "-m", "web.cli", "hand", "As 2s 3s 7c 7d 7h Kd Qd Jd 4c"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0 and "4c = 4" in ok.stdout
