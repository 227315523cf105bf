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
