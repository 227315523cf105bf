"""Melds, best arrangement and best discard (rules.md: Core)."""

import pytest

from engine import (
    Meld,
    all_arrangements,
    best_arrangement,
    best_discard,
    format_cards,
    is_big_gin,
    min_deadwood,
    min_deadwood_after_discard,
    parse_cards,
)


def test_meld_set_of_three_or_four_one_rank():
    assert Meld("7s 7h 7c").kind == "set"
    assert Meld("7s 7h 7c 7d").kind == "set"


def test_meld_run_three_plus_consecutive_one_suit():
    assert Meld("9h 7h 8h").kind == "run"
    assert str(Meld("9h 7h 8h Th")) == "7h 8h 9h Th"


def test_ace_low_a23_is_a_run_qka_is_not():
    assert Meld("As 2s 3s").kind == "run"
    with pytest.raises(ValueError, match="not a meld"):
        Meld("Qs Ks As")


@pytest.mark.parametrize("text", ["7s 7h", "7s 8h 9s", "7s 8s Ts", "7s 7h 8s"])
def test_not_melds_raise(text):
    with pytest.raises(ValueError):
        Meld(text)


def test_deadwood_is_sum_of_unmelded_cards():
    best = best_arrangement("As 2s 3s 7c 7d 7h Kd Qd Jd 4c")
    assert best.deadwood_count == 4
    assert format_cards(best.deadwood) == "4c"
    assert sorted(str(m) for m in best.melds) == ["7h 7d 7c", "As 2s 3s", "Jd Qd Kd"]


def test_a_card_belongs_to_one_meld_only():
    # 7s is wanted by the set and by the run: only one can have it.
    best = best_arrangement("7s 7h 7d 8s 9s Kc Qh 2d 3c 4h")
    assert best.deadwood_count == 7 + 7 + 10 + 10 + 2 + 3 + 4  # run 7s8s9s beats the set of 7s
    used = [c for m in best.melds for c in m]
    assert len(used) == len(set(used))


def test_set_versus_run_overlap_picks_minimum():
    # 7s7h7d + 7c8c9c: both melds possible; also 7c can go to set making 8c 9c deadwood.
    best = best_arrangement("7s 7h 7d 7c 8c 9c Kd Qd Jd 2h")
    assert best.deadwood_count == 2
    assert {m.kind for m in best.melds} == {"set", "run"}


def test_gin_hand_has_zero_deadwood():
    assert min_deadwood(parse_cards("As 2s 3s 4s 5h 5d 5c Kd Qd Jd")) == 0


def test_openspiel_eleven_card_example_best_over_all_discards():
    cards = parse_cards("5s 6s 7s 8s 5c 6c 7c 8c 5d 7d 8h")
    assert min_deadwood_after_discard(cards) == 5
    best = best_discard(cards)
    assert best.arrangement.deadwood_count == 5
    assert best.discard not in best.arrangement.cards
    assert len(best.arrangement.cards) == 10


def test_big_gin_all_eleven_melded():
    cards = "As 2s 3s 4s 5s 9h 9d 9c Kd Qd Jd"
    assert is_big_gin(cards)
    assert best_discard(cards).arrangement.deadwood_count == 0  # still gin after a discard
    assert not is_big_gin("As 2s 3s 4s 5s 9h 9d 9c Kd Qd 2d")


def test_all_arrangements_lists_every_minimum():
    # Gin two ways: four 7s + 8s9sTs, or the run 7s-Ts + 7h7d7c.
    arrangements = all_arrangements("7s 8s 9s Ts 7h 7d 7c Kd Qd Jd")
    shapes = {tuple(sorted(str(m) for m in a.melds)) for a in arrangements}
    assert shapes == {("7h 7d 7c", "7s 8s 9s Ts", "Jd Qd Kd"), ("7s 7h 7d 7c", "8s 9s Ts", "Jd Qd Kd")}
    assert all(a.deadwood_count == 0 for a in arrangements)
