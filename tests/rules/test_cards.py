import pytest

from controller.rules.cards import CardError, card_text, check_disjoint, parse_card, parse_cards


@pytest.mark.parametrize("text, expected", [
    ("As", "As"), ("as", "As"), ("AS", "As"), ("10h", "10h"), ("Td", "10d"), ("td", "10d"),
    ("2c", "2c"), ("kD", "Kd"), (" Qs ", "Qs"),
])
def test_card_text_forms(text, expected):
    assert card_text(parse_card(text)) == expected


def test_every_card_round_trips():
    ranks = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
    assert {card_text(c) for c in range(52)} == {r + s for r in ranks for s in "cdhs"}
    assert all(parse_card(card_text(c)) == c for c in range(52))


@pytest.mark.parametrize("bad, words", [
    ("Xs", "unknown rank 'X'"), ("Ax", "unknown suit 'x'"), ("1s", "unknown rank '1'"),
    ("11h", "expected a rank"), ("A", "expected a rank"), ("", "expected a rank"),
])
def test_bad_card_names_token(bad, words):
    with pytest.raises(CardError) as err:
        parse_card(bad)
    assert repr(bad) in str(err.value) and words in str(err.value)


def test_hand_forms_and_errors():
    assert parse_cards("As Ks Qs") == parse_cards(["As", "Ks", "Qs"]) == parse_cards(["as", "KS", "qs"])
    with pytest.raises(CardError, match=r"seat 2: card 'Zs'"):
        parse_cards("As Zs Qs", what="seat 2")
    with pytest.raises(CardError, match=r"seat 2: card As appears twice"):
        parse_cards("As Ks as", what="seat 2")
    with pytest.raises(CardError, match=r"dealer: 4 cards, expected 3"):
        parse_cards("As Ks Qs Js", count=3, what="dealer")
    with pytest.raises(CardError, match=r"dealer: 2 cards, expected 3"):
        parse_cards("As Ks", count=3, what="dealer")
    with pytest.raises(CardError, match=r"card number 52"):
        parse_cards([1, 2, 52])


def test_disjoint_names_both_owners():
    check_disjoint({"dealer": parse_cards("As Ks Qs"), "seat 1": parse_cards("2c 3c 4c")})
    with pytest.raises(CardError, match=r"card Ks is in both dealer and seat 4"):
        check_disjoint({"dealer": parse_cards("As Ks Qs"), "seat 4": parse_cards("Ks 3c 4c")})
