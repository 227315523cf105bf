"""The game to the target (rules.md: target, game bonus, boxes, shutout, dealer, Hollywood)."""

import json

import pytest

from engine import Game, HandResult, Rules, score_counts, score_hand, void_hand


def win(player: int, points: int) -> HandResult:
    """A hand won by ``player`` worth exactly ``points`` (a knock, or gin for 26+ points)."""
    if points > 25:
        return score_counts(0, points - 25, gin=True, knocker=player)
    return score_counts(1, 1 + points, knocker=player)


def test_game_is_played_to_the_target_hands_accumulating():
    game = Game(["Ann", "Bob"])
    game.add_hand(score_counts(4, 30, knocker=0))  # Ann +26
    game.add_hand(score_counts(0, 20, gin=True, knocker=1))  # Bob +45
    assert game.totals == [26, 45] and not game.is_over
    game.add_hand(score_counts(5, 85, knocker=0))  # Ann +80 -> 106
    assert game.is_over and game.winner == 0


def test_game_bonus_and_box_bonus_added_at_game_end():
    game = Game(["Ann", "Bob"], hands=[win(0, 26), win(1, 45), win(0, 80)])
    # Ann: 106 + 100 game + 2 boxes x 25; Bob: 45 + 1 box x 25. Boxes don't count to the target.
    assert game.final_scores == [106 + 100 + 50, 45 + 25]
    assert game.scores[0].margin == 256 - 70


def test_no_hands_after_the_game_is_over():
    game = Game(["Ann", "Bob"], hands=[win(0, 100)])
    with pytest.raises(ValueError, match="after the game ended"):
        game.add_hand(win(1, 5))


def test_target_option_125():
    game = Game(["Ann", "Bob"], rules=Rules(target=125), hands=[win(0, 110)])
    assert not game.is_over
    game.add_hand(win(0, 15))
    assert game.is_over


@pytest.mark.parametrize(
    "rule,ann",
    [
        ("double_game_bonus", 110 + 200 + 50),  # default: game bonus doubled (200)
        ("double_total", (110 + 100 + 50) * 2),  # winner's whole total doubled
        ("double_hand_points", 220 + 100 + 50),  # hand points doubled
        ("none", 110 + 100 + 50),
    ],
)
def test_shutout_loser_scored_nothing(rule, ann):
    game = Game(["Ann", "Bob"], rules=Rules(shutout=rule), hands=[win(0, 60), win(0, 50)])
    assert game.scores[0].shutout
    assert game.final_scores == [ann, 0]


def test_no_shutout_when_loser_scored():
    game = Game(["Ann", "Bob"], hands=[win(1, 5), win(0, 60), win(0, 50)])
    assert not game.scores[0].shutout
    assert game.final_scores == [110 + 100 + 50, 5 + 25]


def test_box_bonus_pagat_20():
    game = Game(["Ann", "Bob"], rules=Rules.preset("pagat"), hands=[win(1, 5), win(0, 100)])
    assert game.final_scores == [100 + 100 + 20, 5 + 20]


def test_game_bonus_option_zero():
    game = Game(["Ann", "Bob"], rules=Rules(game_bonus=0, box_bonus=0), hands=[win(1, 5), win(0, 100)])
    assert game.final_scores == [100, 5]


def test_winner_of_the_hand_deals_next_by_default():
    game = Game(["Ann", "Bob"], first_dealer=0)
    game.add_hand(win(1, 10))
    assert game.dealer == 1
    game.add_hand(win(0, 10))
    assert game.dealer == 0


def test_loser_deals_next_option():
    game = Game(["Ann", "Bob"], rules=Rules(next_dealer="loser"), hands=[win(0, 10)])
    assert game.dealer == 1


def test_alternate_deal_option():
    game = Game(["Ann", "Bob"], rules=Rules(next_dealer="alternate"), first_dealer=1)
    game.add_hand(win(1, 10))
    assert game.dealer == 0
    game.add_hand(win(1, 10))
    assert game.dealer == 1


def test_void_hand_same_dealer_deals_again():
    for rule in ("winner", "loser", "alternate"):
        game = Game(["Ann", "Bob"], rules=Rules(next_dealer=rule), first_dealer=1)
        game.add_void_hand()
        assert game.dealer == 1 and game.totals == [0, 0] and game.boxes == [0, 0]


def test_running_totals_after_each_hand():
    game = Game(["Ann", "Bob"], hands=[win(0, 10), void_hand(), win(1, 20), win(0, 5)])
    assert game.running_totals() == [[10, 0], [10, 0], [10, 20], [15, 20]]
    assert game.hands[2].winner_role == "knocker"


def test_undo_last_hand():
    game = Game(["Ann", "Bob"], hands=[win(0, 10), win(1, 20)])
    undone = game.undo()
    assert undone.winner == 1 and game.totals == [10, 0] and game.dealer == 0
    game.undo()
    with pytest.raises(ValueError, match="no hand to undo"):
        game.undo()


def test_replace_hand_recomputes_totals():
    game = Game(["Ann", "Bob"], hands=[win(0, 10), win(1, 20), win(0, 5)])
    game.replace_hand(1, win(0, 30))
    assert game.totals == [45, 0] and game.boxes == [3, 0]


def test_replace_hand_that_would_end_game_early_is_refused():
    game = Game(["Ann", "Bob"], hands=[win(0, 60), win(0, 30), win(1, 10)])
    with pytest.raises(ValueError, match="hand 3 comes after the game ended"):
        game.replace_hand(1, win(0, 50))
    assert game.totals == [90, 10]  # unchanged


def test_hollywood_three_games_at_once():
    game = Game(["Ann", "Bob"], rules=Rules(hollywood=True))
    for player, points in [(0, 30), (0, 30), (0, 30), (1, 20), (0, 20), (1, 10), (0, 30), (1, 40)]:
        game.add_hand(win(player, points))
    g1, g2, g3 = game.scores
    # Ann's 1st win -> game 1, 2nd -> 1-2, 3rd on -> all open games. Bob's first win -> game 1;
    # after game 1 closed, his next win goes to game 2 (his first open game without a win).
    assert g1.over and g1.winner == 0 and g1.totals == [110, 20]
    assert g2.over and g2.totals == [110, 10]
    assert not g3.over and g3.totals == [80, 40]
    assert not game.is_over
    game.add_hand(win(0, 25))
    assert game.is_over and game.winner == 0
    assert g1.boxes == [4, 1]
    finals = [column.final for column in game.scores]
    assert finals == [[110 + 100 + 100, 20 + 25], [110 + 100 + 100, 10 + 25], [105 + 100 + 100, 40 + 25]]
    assert game.final_scores == [310 + 310 + 305, 45 + 35 + 65]


def test_game_round_trips_through_json():
    game = Game(["Ann", "Bob"], rules=Rules.preset("oklahoma"), first_dealer=1)
    game.add_hand(
        score_hand("6s 7s 8s Kd Kc Ks 2h 3h 4h 3c", "4s 5s 9s Ts Qd Jc 2c 6h 9h 8d", game.rules, upcard="3s", knocker=1)
    )
    game.add_hand(void_hand())
    game.add_hand(score_counts(0, 12, gin=True, knocker=0, rules=game.rules, upcard="9d"))
    data = json.loads(json.dumps(game.to_dict()))
    again = Game.from_dict(data)
    assert again.to_dict() == game.to_dict()
    assert again.totals == game.totals == [37, 2 * 42]
    assert again.hands[0].layoffs == game.hands[0].layoffs
    assert again.hands[0].knocker_arrangement == game.hands[0].knocker_arrangement
    assert json.loads(json.dumps(game.summary()))["totals"] == [37, 84]


def test_players_are_named_and_indexed():
    with pytest.raises(ValueError, match="two player names"):
        Game(["Ann"])
    assert Game(["Ann", "Bob"]).players == ["Ann", "Bob"]
