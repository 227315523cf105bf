"""A small inline SVG line chart of the two players' running totals."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

WIDTH, HEIGHT, MARGIN = 320, 170, 24
LEGEND = 22  # the legend has its own band above the plot, so it never overlaps the target line
COLOURS = ("#1f6feb", "#d1242f")


def running_totals_svg(players: Sequence[str], running_totals: Sequence[Sequence[int]], target: int) -> Markup:
    """SVG of each player's total after every hand, with the target as a dashed line."""
    points_by_player = [[0] + [int(totals[i]) for totals in running_totals] for i in (0, 1)]
    top = max([target, *points_by_player[0], *points_by_player[1]]) or 1
    steps = max(len(running_totals), 1)

    def x(index: int) -> float:
        return MARGIN + (WIDTH - 2 * MARGIN) * index / steps

    def y(value: int) -> float:
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN - LEGEND) * value / top

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="Running totals chart" xmlns="http://www.w3.org/2000/svg">',
        f'<line x1="{MARGIN}" y1="{y(0):.1f}" x2="{WIDTH - MARGIN}" y2="{y(0):.1f}" stroke="#999"/>',
        f'<line x1="{MARGIN}" y1="{y(target):.1f}" x2="{WIDTH - MARGIN}" y2="{y(target):.1f}" '
        f'stroke="#888" stroke-dasharray="4 3"/>',
        f'<text x="{WIDTH - MARGIN}" y="{y(target) - 3:.1f}" font-size="10" text-anchor="end" '
        f'fill="#666">{target}</text>',
    ]
    for player, values in enumerate(points_by_player):
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{COLOURS[player]}" stroke-width="2" points="{path}"/>')
        legend_x = MARGIN + player * (WIDTH - 2 * MARGIN) / 2
        parts.append(
            f'<rect x="{legend_x:.1f}" y="8" width="10" height="10" fill="{COLOURS[player]}"/>'
            f'<text class="legend" x="{legend_x + 14:.1f}" y="17" font-size="11" '
            f'fill="{COLOURS[player]}">{escape(players[player])}: {values[-1]}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def head_to_head_svg(players: Sequence[str], winners: Sequence[int | None], labels: Sequence[str]) -> Markup:
    """SVG of the games each of two players has won, game after game: one line per player and one
    point per game, in the colour of its winner (hollow, on the base line: not won yet or a tie).
    ``winners[i]`` is 0, 1 or None for game i; ``labels[i]`` says what game i was (the point's tooltip)."""
    count = len(winners)
    wins = [[0], [0]]
    for winner in winners:
        for player in (0, 1):
            wins[player].append(wins[player][-1] + (1 if winner == player else 0))
    top = max(wins[0][-1], wins[1][-1], 1)
    steps = max(count, 1)
    legends = [f"{legend_name(players[player])}: {wins[player][-1]}" for player in (0, 1)]
    stacked = max(len(text) for text in legends) > LEGEND_HALF_CHARS  # long names: one legend line each
    band = LEGEND + (14 if stacked else 0)
    left = MARGIN + 6  # room for the axis numbers
    base = HEIGHT - MARGIN - 4  # the base line; the game numbers go under it

    def x(index: int) -> float:
        return left + (WIDTH - left - MARGIN) * index / steps

    def y(value: int) -> float:
        return base - (base - MARGIN - band + 4) * value / top

    radius = max(1.5, min(5.0, (WIDTH - left - MARGIN) / steps / 2.6))
    summary = f"Games won, game after game: {players[0]} {wins[0][-1]}, {players[1]} {wins[1][-1]} after {count}"
    parts = [
        f'<svg class="chart" id="head-to-head" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(summary)}" xmlns="http://www.w3.org/2000/svg">',
        f'<line x1="{left}" y1="{y(0):.1f}" x2="{WIDTH - MARGIN}" y2="{y(0):.1f}" stroke="#999"/>',
        f'<text x="{left - 6}" y="{y(0) + 3.5:.1f}" font-size="10" text-anchor="end" fill="#666">0</text>',
        f'<line x1="{left}" y1="{y(top):.1f}" x2="{WIDTH - MARGIN}" y2="{y(top):.1f}" stroke="#ddd" '
        f'stroke-dasharray="4 3"/>',
        f'<text x="{left - 6}" y="{y(top) + 3.5:.1f}" font-size="10" text-anchor="end" fill="#666">{top}</text>',
    ]
    every = max(1, -(-count // 12))  # at most about 12 game numbers under the line
    for index in range(1, count + 1):
        if index % every == 0 or index in (1, count):
            parts.append(
                f'<text x="{x(index):.1f}" y="{y(0) + 17:.1f}" font-size="9.5" text-anchor="middle" '
                f'fill="#666">{index}</text>'
            )
    for player, values in enumerate(wins):
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{COLOURS[player]}" stroke-width="2" points="{path}"/>')
        legend_x = MARGIN if stacked else MARGIN + player * (WIDTH - 2 * MARGIN) / 2
        legend_y = 8 + (14 * player if stacked else 0)
        parts.append(
            f'<rect x="{legend_x:.1f}" y="{legend_y}" width="10" height="10" fill="{COLOURS[player]}"/>'
            f'<text class="legend" x="{legend_x + 14:.1f}" y="{legend_y + 9}" font-size="11" '
            f'fill="{COLOURS[player]}">{escape(legends[player])}</text>'
        )
    for index, winner in enumerate(winners, start=1):
        label = escape(labels[index - 1]) if index - 1 < len(labels) else f"Game {index}"
        if winner is None:
            parts.append(
                f'<circle class="game-point" data-game="{index}" cx="{x(index):.1f}" cy="{y(0):.1f}" r="{radius:.1f}" '
                f'fill="#fff" stroke="#777" stroke-width="1.5"><title>{label}</title></circle>'
            )
        else:
            parts.append(
                f'<circle class="game-point" data-game="{index}" data-winner="{winner}" cx="{x(index):.1f}" '
                f'cy="{y(wins[winner][index]):.1f}" r="{radius:.1f}" fill="{COLOURS[winner]}" stroke="#fff" '
                f'stroke-width="1"><title>{label}</title></circle>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))


LEGEND_HALF_CHARS = 19  # a legend longer than this does not fit in half the chart's width at 11 px
LEGEND_MOST_CHARS = 38  # nor longer than this in the whole width


def legend_name(name: str) -> str:
    """The name as a legend shows it: cut short with "…" when it would not fit on one line."""
    return name if len(name) <= LEGEND_MOST_CHARS else name[: LEGEND_MOST_CHARS - 1].rstrip() + "…"
