"""Property tests (hypothesis): arrangements are well-formed and exact; scoring is antisymmetric."""

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import (
    ALL_CARDS,
    HandResult,
    Meld,
    Rules,
    all_arrangements,
    best_arrangement,
    best_discard,
    legal_layoffs,
    min_deadwood,
    score_counts,
    score_hand,
)
from engine.melds import deadwood_value
from engine.sampling import meld_dense_hand

card_indices = st.integers(0, 51)
hands = st.lists(card_indices, min_size=0, max_size=12, unique=True).map(lambda xs: [ALL_CARDS[i] for i in xs])


def dense_or_random(size):
    """Half meld-dense hands (the hard cases), half uniform."""
    return st.builds(
        lambda seed, dense: (
            meld_dense_hand(random.Random(seed), size)
            if dense
            else [ALL_CARDS[i] for i in random.Random(seed).sample(range(52), size)]
        ),
        st.integers(0, 2**32),
        st.booleans(),
    )


@given(hands)
def test_arrangement_uses_each_card_once_and_only_the_hand(hand):
    arrangement = best_arrangement(hand)
    used = [c for m in arrangement.melds for c in m] + list(arrangement.deadwood)
    assert len(used) == len(set(used))
    assert sorted(used) == sorted(hand)


@given(hands)
def test_melds_are_valid_and_deadwood_count_is_sum_of_deadwood(hand):
    arrangement = best_arrangement(hand)
    for meld in arrangement.melds:
        assert Meld(meld.cards) == meld  # re-validates: set of 3-4 or run of 3+
    assert arrangement.deadwood_count == sum(c.value for c in arrangement.deadwood)
    assert arrangement.deadwood_count == min_deadwood(hand)


@settings(max_examples=60)
@given(dense_or_random(10))
def test_best_arrangement_is_the_minimum_over_every_arrangement(hand):
    every = all_arrangements(hand, max_deadwood=200)
    assert min(a.deadwood_count for a in every) == best_arrangement(hand).deadwood_count


@settings(max_examples=80)
@given(dense_or_random(11))
def test_best_discard_is_the_minimum_over_all_eleven_discards(hand):
    best = best_discard(hand)
    brute = min(min_deadwood([c for c in hand if c != d]) for d in hand)
    assert best.arrangement.deadwood_count == brute
    assert best.discard in hand and best.discard not in best.arrangement.cards


def knock_deal(seed: int):
    rng = random.Random(seed)
    knocker = meld_dense_hand(rng, rng.choice((10, 11)))
    rest = [c for c in ALL_CARDS if c not in knocker]
    defender = (
        rng.sample(rest, 10) if rng.random() < 0.5 else [c for c in meld_dense_hand(rng, 16) if c not in knocker][:10]
    )
    if len(defender) < 10:
        defender += [c for c in rng.sample(rest, 20) if c not in defender][: 10 - len(defender)]
    return knocker, defender


def can_knock(knocker) -> bool:
    if len(knocker) == 11:
        return min(min_deadwood([c for c in knocker if c != d]) for d in knocker) <= 10
    return min_deadwood(knocker) <= 10


@settings(max_examples=60, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.integers(0, 2**32), st.sampled_from(["standard", "pagat", "hollywood"]))
def test_scoring_is_antisymmetric_in_the_players(seed, preset):
    knocker, defender = knock_deal(seed)
    assume(can_knock(knocker))
    rules = Rules.preset(preset)
    as_player0 = score_hand(knocker, defender, rules, knocker=0)
    as_player1 = score_hand(knocker, defender, rules, knocker=1)
    assert as_player0.score_for(0) == -as_player0.score_for(1)
    assert as_player0.score_for(0) == as_player1.score_for(1)
    assert as_player0.points == as_player1.points and as_player0.kind == as_player1.kind
    assert as_player0.with_knocker(1) == as_player1
    assert as_player0.points >= 0


@settings(max_examples=60, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.integers(0, 2**32))
def test_layoffs_are_legal_and_defender_deadwood_is_consistent(seed):
    knocker, defender = knock_deal(seed)
    assume(can_knock(knocker))
    result = score_hand(knocker, defender)
    laid = [x.card for x in result.layoffs]
    assert set(laid) <= set(defender)
    if result.kind in ("gin", "big_gin"):
        assert not laid and result.defender_deadwood == min_deadwood(defender)
    else:
        assert legal_layoffs(result.knocker_arrangement.melds, laid) is not None
        remaining = [c for c in defender if c not in laid]
        assert result.defender_deadwood == min_deadwood(remaining) <= min_deadwood(defender)
        assert result.defender_arrangement.deadwood_count == result.defender_deadwood
        assert result.knocker_deadwood == deadwood_value(result.knocker_arrangement.deadwood)
    assert HandResult.from_dict(result.to_dict()) == result


@given(st.integers(0, 10), st.integers(0, 98), st.booleans(), st.sampled_from([0, 1]))
def test_count_scoring_is_antisymmetric_and_round_trips(knocker_dw, defender_dw, gin, knocker):
    result = score_counts(0 if gin else knocker_dw, defender_dw, gin=gin, knocker=knocker)
    gin = gin or knocker_dw == 0  # knocking with no deadwood is gin
    other = 1 - knocker
    assert result.score_for(knocker) == -result.score_for(other)
    assert (result.winner == knocker) == (gin or defender_dw > knocker_dw)
    assert HandResult.from_dict(result.to_dict()) == result


def brute_force_defence(knocker_melds, defender) -> int:
    """Least defender deadwood by trying every sequence of single-card lay-offs.

    Independent of the engine's lay-off code: a card may join a (grown) meld when the meld plus
    the card is still a valid meld; runs thereby chain at both ends, sets take a 4th card.
    """
    start = (frozenset(), tuple(frozenset(m.cards) for m in knocker_melds))
    seen = {start}
    frontier = [start]
    best = min_deadwood(defender)
    while frontier:
        laid, melds = frontier.pop()
        for card in defender:
            if card in laid:
                continue
            for i, meld in enumerate(melds):
                try:
                    Meld(list(meld | {card}))
                except ValueError:
                    continue
                state = (laid | {card}, melds[:i] + (meld | {card},) + melds[i + 1 :])
                if state not in seen:
                    seen.add(state)
                    frontier.append(state)
                    best = min(best, min_deadwood([c for c in defender if c not in state[0]]))
    return best


@settings(max_examples=60, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.integers(0, 2**32))
def test_defender_deadwood_is_the_least_any_layoff_sequence_reaches(seed):
    knocker, defender = knock_deal(seed)
    assume(can_knock(knocker))
    result = score_hand(knocker, defender)
    assume(result.kind in ("knock", "undercut"))
    assert result.defender_deadwood == brute_force_defence(result.knocker_arrangement.melds, defender)


@settings(max_examples=40, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.integers(0, 2**32))
def test_knocker_lays_the_least_deadwood_arrangement_that_scores_best(seed):
    knocker, defender = knock_deal(seed)
    knocker = knocker[:10]
    assume(0 < min_deadwood(knocker) <= 10)
    result = score_hand(knocker, defender)
    knocker_deadwood = min_deadwood(knocker)
    best_net = None
    for arrangement in all_arrangements(knocker):  # every least-deadwood arrangement
        defender_deadwood = brute_force_defence(arrangement.melds, defender)
        if defender_deadwood > knocker_deadwood:
            net = defender_deadwood - knocker_deadwood
        else:
            net = -(knocker_deadwood - defender_deadwood + 25)
        best_net = net if best_net is None else max(best_net, net)
    assert result.knocker_deadwood == knocker_deadwood
    assert result.score_for(0) == best_net
