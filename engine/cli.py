"""Sub-commands of ``ginscore`` for this part (see web/cli.py): ``hand`` and ``showdown``."""

from __future__ import annotations

import argparse
import json

from .cards import Card, format_cards, parse_cards
from .melds import Arrangement, best_arrangement, best_discard
from .rules import OPTIONS, PRESETS, Rules
from .scoring import HandResult, can_knock, score_hand
from .showdown import check_hand_size


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register this part's sub-commands on the ``ginscore`` parser."""
    hand = commands.add_parser(
        "hand",
        help="melds, deadwood and whether a hand can knock (11 cards: best discard)",
        description="Show the best melds and deadwood of 10 cards, or of 11 cards after the "
        'best discard. Example: ginscore hand "As 2s 3s 7c 7d 7h Kd Qd Jd 4c"',
    )
    hand.add_argument("cards", help='the cards, e.g. "As 2s 3s 7c 7d 7h Kd Qd Jd 4c"')
    _add_rule_arguments(hand)
    hand.set_defaults(run=run_hand)

    showdown = commands.add_parser(
        "showdown",
        help="score a knocked hand: lay-offs, winner, points, explanation",
        description="Score a hand from the knocker's and the defender's cards.",
    )
    showdown.add_argument(
        "--knocker", required=True, help="knocker's 10 cards (after discarding) or 11 (best discard chosen)"
    )
    showdown.add_argument("--defender", required=True, help="defender's 10 cards")
    _add_rule_arguments(showdown)
    showdown.set_defaults(run=run_showdown)


def _add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules", default="standard", metavar="PRESET", help=f"rules preset: {', '.join(PRESETS)} (default standard)"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change one rule option, e.g. --set gin_bonus=20 (repeatable); "
        f"options: {', '.join(o.name for o in OPTIONS)}",
    )
    parser.add_argument("--upcard", help="the first upcard (Oklahoma knock limit, spade doubling)")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def rules_from_args(preset: str, settings: list[str]) -> Rules:
    """A preset with ``name=value`` changes applied (each value parsed by its option)."""
    return Rules.preset(preset).with_settings(settings)


def _arrangement_lines(label: str, arrangement: Arrangement) -> list[str]:
    melds = " | ".join(str(m) for m in arrangement.melds) or "none"
    dead = format_cards(arrangement.deadwood) or "none"
    return [f"{label} melds: {melds}", f"{label} deadwood: {dead} = {arrangement.deadwood_count}"]


def run_hand(args: argparse.Namespace) -> int:
    cards = parse_cards(args.cards)
    rules = rules_from_args(args.rules, args.set)
    upcard = Card(args.upcard) if args.upcard else None
    check_hand_size(cards)
    limit = rules.knock_limit_for(upcard)
    discard = None
    big_gin = False
    if len(cards) == 11:
        full = best_arrangement(cards)
        big_gin = rules.big_gin and full.deadwood_count == 0
        best = best_discard(cards)
        discard, arrangement = best.discard, best.arrangement
        if big_gin:
            arrangement, discard = full, None
    else:
        arrangement = best_arrangement(cards)
    deadwood = arrangement.deadwood_count
    knock = can_knock(deadwood, limit)
    data = {
        "cards": [str(c) for c in cards],
        "discard": str(discard) if discard else None,
        "arrangement": arrangement.to_dict(),
        "deadwood": deadwood,
        "knock_limit": limit,
        "can_knock": knock,
        "gin": deadwood == 0,
        "big_gin": big_gin,
    }
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    lines = [f"Cards: {format_cards(cards)}"]
    if discard is not None:
        lines.append(f"Best discard: {discard}")
    lines += _arrangement_lines("Hand", arrangement)[0:2]
    limit_text = "gin only" if limit is None else str(limit)
    status = (
        "big gin (all 11 melded)"
        if big_gin
        else "gin"
        if deadwood == 0
        else f"can knock (limit {limit_text})"
        if knock
        else f"cannot knock (limit {limit_text})"
    )
    lines.append(f"Status: {status}")
    print("\n".join(lines))
    return 0


def showdown_text(result: HandResult) -> str:
    """The scored hand as a few lines of plain text: the result's explanation lines, rendered."""
    winner = {None: "nobody", result.knocker: "the knocker"}.get(result.winner, "the defender")
    if result.winner is None:
        lines = [f"{result.kind.words.capitalize()}: nobody scores."]
    else:
        lines = [f"{result.kind.words.capitalize()}: {winner} scores {result.points}."]
    for line in result.lines:
        if line.topic == "arrangement":
            lines.append(f"{str(line.role).capitalize()}: {line.text}")
        elif line.topic == "layoffs":
            lines.append(f"Lay-offs: {line.text}")
        elif line.topic == "outcome":
            lines.append(f"Final deadwood: knocker {result.knocker_deadwood}, defender {result.defender_deadwood}")
            lines.append(line.text)
        else:
            lines.append(line.text)
    return "\n".join(lines)


def run_showdown(args: argparse.Namespace) -> int:
    rules = rules_from_args(args.rules, args.set)
    knocker = parse_cards(args.knocker)
    defender = parse_cards(args.defender)
    result = score_hand(knocker, defender, rules, upcard=args.upcard)
    if args.json:
        data = result.to_dict()
        data["rules"] = rules.to_dict()
        print(json.dumps(data, indent=2))
    else:
        print(showdown_text(result))
    return 0
