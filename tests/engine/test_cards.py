"""Cards and card notation (design.md: `Ts Ah 9c`, accept 10s, upper-case suits, ♠♥♦♣)."""

import pytest

from engine import ALL_CARDS, CARD_CODES, Card, format_cards, parse_cards


def test_card_codes_are_canonical_order():
    assert CARD_CODES[:3] == ("As", "2s", "3s")
    assert CARD_CODES[13] == "Ah" and CARD_CODES[-1] == "Kc"
    assert [str(card) for card in ALL_CARDS] == list(CARD_CODES)


def test_card_values_ace_low_faces_ten():
    assert [Card(code).value for code in ("As", "9d", "Th", "Jc", "Qs", "Kh")] == [1, 9, 10, 10, 10, 10]


@pytest.mark.parametrize("text", ["Ts Ah 9c", "10s, ah, 9C", "10♠ A♥ 9♣", "TS AH 9C", "Ts,Ah,9c"])
def test_parse_cards_accepts_common_notations(text):
    assert format_cards(parse_cards(text)) == "Ts Ah 9c"


def test_card_repr_round_trips():
    card = Card("Qd")
    assert eval(repr(card)) == card and str(card) == "Qd" and int(card) == 37


@pytest.mark.parametrize("text,token", [("As 2s Xs", "Xs"), ("As 11h", "11h"), ("As 1", "1")])
def test_unknown_card_error_names_the_token(text, token):
    with pytest.raises(ValueError, match=token):
        parse_cards(text)


def test_duplicate_card_error_names_the_token():
    with pytest.raises(ValueError, match="duplicate card '10s'"):
        parse_cards("Ts 9h 10s")


def test_card_from_index_and_numpy_integer():
    import numpy

    assert Card(numpy.int64(9)) == Card("Ts") == Card(9)
    for bad in (52, -1, True, 3.0, None):
        with pytest.raises(ValueError):
            Card(bad)
