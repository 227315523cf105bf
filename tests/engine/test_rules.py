"""One test per rule of docs/rules.md (core and variants), named after the rule.

Expected numbers are worked out by hand in the comments, never taken from the engine.
"""

import pytest

from engine import Meld, Rules, best_arrangement, legal_layoffs, parse_cards, score_counts, score_hand, void_hand

# ---------------------------------------------------------------------------------------------
# Core


def test_deck_is_52_cards_no_jokers():
    assert len(set(parse_cards(" ".join(r + s for s in "shdc" for r in "A23456789TJQK")))) == 52
    with pytest.raises(ValueError, match="Jk"):
        parse_cards("As Jk")


def test_ace_is_low_a23_run_qka_not_a_run():
    assert Meld("As 2s 3s").kind == "run"
    with pytest.raises(ValueError):
        Meld("Qh Kh Ah")
    # Q K A of hearts is all deadwood: 10 + 10 + 1.
    assert best_arrangement("Qh Kh Ah").deadwood_count == 21


def test_card_values_ace_1_faces_10():
    assert best_arrangement("As 5d Jc Qh Kd Tc").deadwood_count == 1 + 5 + 10 + 10 + 10 + 10


def test_meld_is_set_of_3_or_4_or_run_of_3_plus():
    assert Meld("8s 8h 8d").kind == "set" and Meld("8s 8h 8d 8c").kind == "set"
    assert Meld("3c 4c 5c 6c 7c").kind == "run"
    for bad in ("8s 8h", "3c 4c 6c", "3c 4d 5c"):
        with pytest.raises(ValueError):
            Meld(bad)


def test_card_belongs_to_one_meld_only():
    # 7h is wanted by 7s7h7d and by 5h6h7h; only one meld gets it. Set: 5h6h = 11 left;
    # run: 7s7d = 14 left; so the set is laid and deadwood is 11 (+ Kc 10).
    best = best_arrangement("7s 7h 7d 5h 6h Kc")
    cards = [c for m in best.melds for c in m]
    assert len(cards) == len(set(cards))
    assert best.deadwood_count == 5 + 6 + 10


def test_deadwood_is_sum_of_unmelded_cards():
    best = best_arrangement("As 2s 3s 7c 7d 7h Kd Qd Jd 4c")
    assert best.deadwood_count == 4 and [str(c) for c in best.deadwood] == ["4c"]


def test_eleven_cards_must_discard_to_ten():
    # Knocker holds 11: the Kd goes, leaving 5c (5) as deadwood.
    result = score_hand("As 2s 3s 4h 5h 6h 7d 7c 7s 5c Kd", "9d 9h Qc Jh 2d 3c 8c 4d 6d Tc")
    assert str(result.discard) == "Kd" and result.knocker_deadwood == 5


def test_knock_allowed_up_to_knock_limit():
    # Deadwood exactly 10 (Jc) may knock.
    result = score_hand("As 2s 3s 4h 5h 6h 7d 7c 7s Jc", "9d 9h Qc Qh 2d 3c 8c 4d 6d Tc")
    assert result.kind == "knock" and result.knocker_deadwood == 10


def test_knock_over_knock_limit_raises():
    # 7d 7c 2c 9c = 25 deadwood.
    with pytest.raises(ValueError, match="cannot knock with 25 deadwood"):
        score_hand("As 2s 3s 4h 5h 6h 7d 7c 2c 9c", "9d 9h Qc Qh 2d 3c 8c 4d 6d Tc")


def test_all_ten_melded_is_gin():
    result = score_hand("As 2s 3s 4h 5h 6h 7d 7c 7s 7h", "4s 8h Kd Kc Qd Jh 9c 2d 3c 5c")
    assert result.kind == "gin" and result.knocker_deadwood == 0


def test_defender_lays_off_fourth_card_of_set():
    # Knocker: Ks Kc Kd set; defender lays Kh off. Deadwood 2c 2d 9h 3s 6c 7d 5s 8d 4d + Kh.
    result = score_hand("Ks Kc Kd 2h 3h 4h 9s Ts Js Ac", "Kh 2c 2d 9h 3s 6c 7d 5s 8d 4d")
    assert [str(x) for x in result.layoffs] == ["Kh on Ks Kd Kc"]
    # 2+2+9+3+6+7+5+8+4 = 46 after the Kh goes; knocker has 1: scores 45.
    assert result.defender_deadwood == 46 and result.points == 45


def test_defender_lays_off_chained_run():
    # 9s then Ts then Js onto 6s 7s 8s: chained as far as they go.
    chain = legal_layoffs([Meld("6s 7s 8s")], "9s Ts Js")
    assert [str(x) for x in chain] == ["9s on 6s 7s 8s", "Ts on 6s 7s 8s", "Js on 6s 7s 8s"]
    assert legal_layoffs([Meld("6s 7s 8s")], "Ts Js") is None  # not touching the run


def test_defender_lays_off_both_ends_of_run_more_than_two_cards():
    # 4s 5s below and 9s Ts above 6s 7s 8s: four cards on one run (OpenSpiel stops at two).
    # Defender deadwood 4+5+9+10 + Qd Jc 2c 6h 9h 8d (45) = 73 before, 45 after.
    result = score_hand("6s 7s 8s Kd Kc Ks 2h 3h 4h 3c", "4s 5s 9s Ts Qd Jc 2c 6h 9h 8d")
    assert sorted(str(x.card) for x in result.layoffs) == ["4s", "5s", "9s", "Ts"]
    assert result.defender_deadwood == 45 and result.points == 45 - 3


def test_no_layoff_onto_knocker_deadwood():
    # Knocker's deadwood 5c 6c: defender's 4c/7c cannot go there.
    result = score_hand("As 2s 3s 4h 5h 6h 9d 9c 9s 5c", "4c 7c Qd Jh 2d 3c 8c Kd Kh Td")
    assert not any(str(x.card) in ("4c", "7c") for x in result.layoffs)


def test_knocker_never_lays_off_on_defender():
    # Knocker's deadwood 4c would fit the defender's 5c6c7c run; it stays deadwood.
    result = score_hand("As 2s 3s 4h 5h 6h 9d 9c 9s 4c", "5c 6c 7c Qd Jh 2d Kd Kh Td 8s")
    assert result.knocker_deadwood == 4


def test_no_layoffs_after_gin():
    # The defender's 4s would extend As2s3s and 8h would extend 5h6h7h, but after gin: none.
    result = score_hand("As 2s 3s 5h 6h 7h 9d 9c 9s 9h", "4s 8h Kh Qc Qd Jh Tc 2d 3c 5c")
    assert result.kind == "gin" and result.layoffs == ()
    # 4+8+10+10+10+10+10+2+3+5 = 72; gin = 25 + 72.
    assert result.defender_deadwood == 72 and result.points == 97


def test_defender_may_break_own_meld_to_lay_off():
    # OpenSpiel scenario 1: the defender breaks his set of 8s, lays 8s 9s on 5s6s7s and
    # 8c 7c on 9cTcJc, keeps 2s2c2d2h: Ac + 8d = 9 < knocker's 10 (Jd). Undercut 1 + 20.
    rules = Rules(undercut_bonus=20)
    result = score_hand("5s 6s 7s Ks Kc Kd 9c Tc Jc Jd", "2s 8s 9s Ac 2c 7c 8c 2d 8d 2h", rules)
    assert result.kind == "undercut" and result.winner == 1 and result.points == 21
    assert sorted(str(x.card) for x in result.layoffs) == ["7c", "8c", "8s", "9s"]
    assert result.defender_deadwood == 9


def test_knocker_arrangement_matters_sets_rather_than_runs():
    # OpenSpiel scenario 2: laid as runs, the defender would lay off 3s 4s 8s 4c 8c 4d 8d and
    # undercut; laid as three sets he keeps 3s (3). Knocker's As = 1: knocker scores 2.
    result = score_hand("As 5s 6s 7s 5c 6c 7c 5d 6d 7d", "3s 4s 8s 4c 8c 4d 8d 5h 6h 7h")
    assert result.kind == "knock" and result.winner == 0 and result.points == 2
    assert all(m.kind == "set" for m in result.knocker_arrangement.melds)


def test_defender_lays_off_ten_then_nine_onto_one_run():
    # OpenSpiel scenario 3: Ts onto Js Qs Ks, then 9s onto the same run; the rest is 4s and 5s
    # sets: 0 < knocker's 2 (2h): undercut 2 + 25 = 27.
    result = score_hand("As Ac Ad 2h Js Qs Ks Tc Td Th", "4s 5s 9s Ts 4c 5c 4d 5d 4h 5h")
    assert [str(x) for x in result.layoffs] == ["Ts on Js Qs Ks", "9s on Js Qs Ks"]
    assert result.kind == "undercut" and result.winner == 1 and result.points == 27


def test_knocker_scores_the_difference():
    assert score_counts(4, 30).points == 26 and score_counts(4, 30).winner == 0


def test_gin_scores_bonus_plus_defender_deadwood():
    result = score_counts(0, 33, gin=True)
    assert result.kind == "gin" and result.points == 25 + 33


def test_undercut_scores_difference_plus_bonus():
    result = score_counts(8, 5)
    assert result.kind == "undercut" and result.winner == 1 and result.points == 3 + 25


def test_tie_after_layoffs_is_undercut_by_default():
    # Knocker 5 (5c); defender 2d 2c Ac = 5 after melding 8d8h8c and 9s-Qs: tie, undercut 25.
    result = score_hand("As 2s 3s 4h 5h 6h 7d 7c 7s 5c", "8d 8h 8c 9s Ts Js Qs 2d 2c Ac")
    assert result.kind == "undercut" and result.winner == 1 and result.points == 25


def test_gin_cannot_be_undercut():
    # Both gin: the knocker still scores 25 + 0.
    result = score_hand("As 2s 3s 4h 5h 6h 7d 7c 7s 7h", "8d 8h 8c 9s Ts Js Qs Kd Kc Kh")
    assert result.kind == "gin" and result.winner == 0 and result.points == 25


def test_void_hand_nobody_scores():
    result = void_hand()
    assert result.kind == "void" and result.winner is None and result.points == 0


def test_result_explains_itself_in_plain_english():
    result = score_counts(4, 30)
    assert "knocker scores 30 - 4 = 26" in result.explanation


# ---------------------------------------------------------------------------------------------
# Variants


def test_gin_bonus_default_25_pagat_20():
    assert score_counts(0, 10, gin=True).points == 35
    assert score_counts(0, 10, Rules.preset("pagat"), gin=True).points == 30


def test_undercut_bonus_default_25_pagat_10_or_20():
    assert score_counts(6, 4).points == 27
    assert score_counts(6, 4, Rules.preset("pagat")).points == 12
    assert score_counts(6, 4, Rules(undercut_bonus=20)).points == 22


def test_tie_rule_knocker_wins_zero():
    result = score_counts(6, 6, Rules(tie="knocker"))
    assert result.kind == "knock" and result.winner == 0 and result.points == 0


def test_tie_rule_no_score():
    result = score_counts(6, 6, Rules(tie="none"))
    assert result.winner is None and result.points == 0


def test_big_gin_all_eleven_melded_scores_31():
    # Defender deadwood: 2c 3d 4h 6c 8d 9s Tc Jh Qc Kc = 2+3+4+6+8+9+10+10+10+10 = 72.
    knocker = "As 2s 3s 4s 5s 9h 9d 9c Kd Qd Jd"
    defender = "2c 3d 4h 6c 8d 9s Tc Jh Qc Kc"
    result = score_hand(knocker, defender)
    assert result.kind == "big_gin" and result.points == 31 + 72 and result.discard is None
    assert score_hand(knocker, defender, Rules(big_gin_bonus=50)).points == 50 + 72
    not_played = score_hand(knocker, defender, Rules(big_gin=False))
    assert not_played.kind == "gin" and not_played.points == 25 + 72
    assert str(not_played.discard) == "5s"  # As or 5s keep gin; the higher card goes
    assert score_counts(0, 72, big_gin=True).points == 31 + 72


def test_knock_limit_option():
    with pytest.raises(ValueError, match="knock limit of 5"):
        score_counts(6, 20, Rules(knock_limit=5))
    assert score_counts(5, 20, Rules(knock_limit=5)).points == 15


def test_oklahoma_knock_limit_is_upcard_value():
    rules = Rules.preset("oklahoma")
    assert score_counts(6, 20, rules, upcard="6h").points == 14
    with pytest.raises(ValueError, match="knock limit of 6"):
        score_counts(7, 20, rules, upcard="6h")
    assert score_counts(10, 20, rules, upcard="Kd").points == 10  # faces count 10
    with pytest.raises(ValueError, match="upcard"):
        score_counts(3, 20, rules)


def test_oklahoma_ace_means_gin_only():
    rules = Rules.preset("oklahoma")
    with pytest.raises(ValueError, match="gin only"):
        score_counts(1, 20, rules, upcard="Ah")
    assert score_counts(0, 20, rules, upcard="Ah").kind == "gin"
    assert score_counts(1, 20, Rules(oklahoma=True, oklahoma_ace="one"), upcard="Ah").points == 19


def test_oklahoma_spade_upcard_doubles_the_hand():
    rules = Rules.preset("oklahoma")
    doubled = score_counts(4, 30, rules, upcard="6s")
    assert doubled.points == 52 and doubled.doubled
    assert score_counts(4, 30, rules, upcard="6h").points == 26
    assert score_counts(4, 30, Rules(oklahoma=True), upcard="6s").points == 26  # option off
    gin = score_hand("As 2s 3s 4h 5h 6h 7d 7c 7s 7h", "4s 8h Kd Kc Qd Jh 9c 2d 3c 5c", rules, upcard="9s")
    assert gin.points == 2 * (25 + 71)


def test_rules_presets_and_options_listing():
    assert Rules.preset("standard") == Rules()
    pagat = Rules.preset("pagat")
    assert (pagat.gin_bonus, pagat.undercut_bonus, pagat.box_bonus) == (20, 10, 20)
    names = [o["name"] for o in Rules.options()]
    assert set(names) == set(Rules().to_dict())
    for option in Rules.options():
        assert option["description"] and option["type"] in ("int", "bool", "choice")
        assert option["default"] == getattr(Rules(), option["name"])
    assert Rules.from_dict(pagat.to_dict()) == pagat
    assert set(Rules.preset_descriptions()) == set(Rules.presets())
    with pytest.raises(ValueError, match="unknown rules preset"):
        Rules.preset("nope")
    with pytest.raises(ValueError, match="tie"):
        Rules(tie="maybe")
    with pytest.raises(ValueError, match="unknown rule option"):
        Rules.from_dict({"gin_bonus": 20, "colour": "red"})


def test_explanation_lines_name_arrangements_layoffs_and_outcome_by_role():
    from engine import HandResult

    result = score_hand("5s 6s 7s Ks Kc Kd 9c Tc Jc Jd", "2s 8s 9s Ac 2c 7c 8c 2d 8d 2h", Rules.preset("pagat"))
    lines = [(line.topic, line.role, line.text) for line in result.lines]
    assert lines == [
        ("arrangement", "knocker", "5s 6s 7s | 9c Tc Jc | Ks Kd Kc; deadwood Jd = 10"),
        ("arrangement", "defender", "2s 2h 2d 2c; deadwood 8d Ac = 9"),
        ("layoffs", "defender", "8s 9s on 5s 6s 7s; 8c 7c on 9c Tc Jc"),
        (
            "outcome",
            None,
            "Undercut: the defender's 9 is under the knocker's 10, so the defender scores 1 + 10 bonus = 11.",
        ),
    ]
    assert result.explanation == "The defender lays off 8s 9s on 5s 6s 7s; 8c 7c on 9c Tc Jc. " + lines[-1][2]
    assert HandResult.from_dict(result.to_dict()).lines == result.lines


def test_showdown_checks_sizes_cards_in_both_hands_and_the_upcard():
    from engine import check_showdown, parse_cards, upcard_for

    ten = parse_cards("As 2s 3s 4s 5s 6s 7s 8s 9s Ts")
    other = parse_cards("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th")
    with pytest.raises(ValueError, match="As is in both hands"):
        check_showdown((ten, other[:9] + (ten[0],)), 0, Rules())
    with pytest.raises(ValueError, match=r"Bob has 11 cards; the defender shows 10 cards\."):
        check_showdown((ten, other + parse_cards("Jh")), 0, Rules(), ("Ann", "Bob"))
    check_showdown((ten + parse_cards("Js"), other), 0, Rules())  # big gin shows 11
    with pytest.raises(ValueError, match="the knocker shows 10 cards\\."):
        check_showdown((ten + parse_cards("Js"), other), 0, Rules(big_gin=False), ("Ann", "Bob"))
    with pytest.raises(ValueError, match="choose the upcard"):
        upcard_for(Rules.preset("oklahoma"), " ")
    with pytest.raises(ValueError, match="one card"):
        upcard_for(Rules.preset("oklahoma"), "6h 7h")
