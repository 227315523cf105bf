"""Teaching a deck from the Training page (Flask test client, the shipped reader, a real instance folder).

The photos are rendered cards of the held-out kde_penguins deck lying apart on a light wooden table
(``vision.training.synth.table_photo``), read by the real reader; each test works on its own copy of
the teaching folder one upload made, so only the tests that need a new photo read one.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import cv2
import pytest
from PIL import Image
from sheet_helpers import needs_model

from engine.cards import CARD_CODES, card_label
from vision.training.synth.decks import DATASETS, load_deck
from vision.training.synth.table_photo import render_table_photo, write_suit_photos
from web import create_app, learning

pytestmark = [needs_model, pytest.mark.slow]

DECK = "kde_penguins"  # held out: never trained on
TABLE = "gimp_pine.jpg"
SPADES = [rank + "s" for rank in "A23456789TJQK"]
TOKEN = "first-upload-token-0001"


def make_app(instance: Path, **config):
    app = create_app(
        {
            "DATABASE": str(instance / "sheet.sqlite"),
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "SECRET_KEY": "test",
            **config,
        }
    )
    app.instance_path = str(instance)
    return app


def upload(client, deck: str, *photos: tuple[bytes, str], token: str | None = None):
    """POST photos to "Teach your deck" as the page's form does (without JavaScript: all at once)."""
    data: dict = {"deck": deck, "photos": [(io.BytesIO(data), name) for data, name in photos]}
    if token:
        data["upload_token"] = token
    return client.post("/training/teach", data=data, content_type="multipart/form-data")


def said(page: str) -> list[str]:
    """The flash messages, errors and warnings of a page, as text."""
    return [
        re.sub(r"<[^>]+>", "", text).strip()
        for text in re.findall(r'<p class="(?:flash|error|warning)" role="\w+">(.*?)</p>', page, re.S)
    ]


def state_of(instance: Path, deck: str) -> dict:
    return json.loads((instance / "teaching" / deck / "state.json").read_text())


def tiles(page: str) -> dict[str, str]:
    """face id -> the name its tile shows."""
    return {
        face_id: re.sub(r"<[^>]+>", "", name).strip()
        for face_id, name in re.findall(
            r'<details class="face-tile[^"]*" id="face-([\w-]+)">.*?<span class="face-name[^"]*">(.*?)</span>',
            page,
            re.S,
        )
    }


def tile_classes(page: str) -> dict[str, str]:
    return dict(
        (face_id, classes)
        for classes, face_id in re.findall(r'<details class="face-tile([^"]*)" id="face-([\w-]+)">', page)
    )


@pytest.fixture(scope="module")
def deck():
    return load_deck(DATASETS / "decks" / DECK)


@pytest.fixture(scope="module")
def photos(tmp_path_factory, deck) -> dict[str, Path]:
    """The photos the tests send, rendered once (JPEG, 1920 x 1080)."""
    folder = tmp_path_factory.mktemp("photos")
    ((spades, codes, _),) = write_suit_photos(deck, TABLE, folder / "suits", 1, seed=10)
    assert codes == SPADES
    made = {"spades": spades}
    scenes = {
        # one card twice in one photo: both faces are doubted, one of them named wrong
        "twice": dict(card_codes=["Ah", "Ah", "2h", "3h", "4h", "5h"], rows=1),
        "overlap": dict(card_codes=[rank + "d" for rank in "A23456789TJQK"], row_gaps=[-4.5, (1.0, 3.0)]),
        "blurred": dict(card_codes=["Ac", "2c", "3c", "4c", "5c", "6c"], rows=1, blur=4.0),
        "empty": dict(card_codes=[]),
    }
    for name, scene in scenes.items():
        image, _ = render_table_photo(deck, scene.pop("card_codes"), TABLE, seed=3, **scene)
        made[name] = folder / f"{name}.jpg"
        cv2.imwrite(str(made[name]), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return made


@pytest.fixture(scope="module")
def taught(tmp_path_factory, photos) -> dict:
    """One upload of the spades photo through the page, read by the shipped reader; what it answered."""
    instance = tmp_path_factory.mktemp("taught")
    client = make_app(instance).test_client()
    response = upload(client, "penguins", (photos["spades"].read_bytes(), "IMG_0001.jpg"), token=TOKEN)
    page = client.get(response.headers["Location"]).data.decode()
    return {"instance": instance, "response": response, "page": page}


@pytest.fixture
def copy(taught, tmp_path):
    """An app on a copy of the taught instance folder (the teaching folder, no deck saved yet)."""
    shutil.copytree(taught["instance"] / "teaching", tmp_path / "teaching")
    app = make_app(tmp_path)
    return app, app.test_client(), tmp_path


def face_named(instance: Path, deck: str, code: str) -> dict:
    (face,) = [face for face in state_of(instance, deck)["faces"] if face["name"] == code and not face["saved"]]
    return face


# ---------------------------------------------------------------- the upload


def test_an_upload_finds_the_cards_names_them_and_keeps_everything(taught):
    response, page, instance = taught["response"], taught["page"], taught["instance"]
    assert response.status_code == 303 and response.headers["Location"] == "/training/decks/penguins"
    assert "Photo 1 (IMG_0001.jpg): 13 cards found." in said(page)
    state = state_of(instance, "penguins")
    assert [photo["sent_as"] for photo in state["photos"]] == ["IMG_0001.jpg"]
    assert (instance / "teaching" / "penguins" / "photos" / state["photos"][0]["file"]).is_file()
    assert sorted(face["name"] for face in state["faces"]) == sorted(SPADES)  # every spade, each once
    assert all(face["sure"] for face in state["faces"])  # the reader is sure of these rendered cards
    for face in state["faces"]:  # each face kept as the PNG found and a small copy for the page
        assert (instance / "teaching" / "penguins" / "faces" / f"{face['id']}.png").is_file()
    assert sorted(tiles(page).values()) == sorted(
        ["A♠", "2♠", "3♠", "4♠", "5♠", "6♠", "7♠", "8♠", "9♠", "10♠", "J♠", "Q♠", "K♠"]
    )
    assert "Missing (39)" in page and not any("check" in classes for classes in tile_classes(page).values())
    assert 'id="save-deck"' in page and "Save the deck (13 faces)" in page
    assert not (instance / "decks").exists()  # nothing is in the deck before Save


def test_the_state_survives_a_new_app_and_serves_the_faces(copy):
    _, client, instance = copy
    again = make_app(instance).test_client()  # a restart, or a second phone: the same page
    page = again.get("/training/decks/penguins").data.decode()
    assert len(tiles(page)) == 13 and "Missing (39)" in page
    face = face_named(instance, "penguins", "Qs")
    thumb = again.get(f"/training/decks/penguins/faces/{face['id']}.jpg")
    assert thumb.status_code == 200 and thumb.mimetype == "image/jpeg" and thumb.data[:2] == b"\xff\xd8"
    full = again.get(f"/training/decks/penguins/faces/{face['id']}.png")
    assert full.status_code == 200 and full.data[:4] == b"\x89PNG"
    assert again.get("/training/decks/penguins/faces/nothere-01.png").status_code == 404
    assert again.get("/training/decks/nobody").status_code == 404
    training = again.get("/training").data.decode()
    assert "penguins" in training and "13 found, not saved yet" in training


def test_the_same_upload_sent_twice_is_kept_once(copy, photos):
    _, client, instance = copy
    response = upload(client, "penguins", (photos["spades"].read_bytes(), "IMG_0001.jpg"), token=TOKEN)
    assert response.status_code == 303
    assert "These photos were sent already; their cards are below." in said(
        client.get("/training/decks/penguins").data.decode()
    )
    assert len(state_of(instance, "penguins")["photos"]) == 1 and len(state_of(instance, "penguins")["faces"]) == 13


# ---------------------------------------------------------------- names: fix, leave out, undo, twice


def test_fixing_a_name_leaving_a_face_out_and_putting_it_back(copy):
    _, client, instance = copy
    ace = face_named(instance, "penguins", "As")
    url = f"/training/decks/penguins/faces/{ace['id']}"

    response = client.post(url, data={"action": "name", "code": "Ks"})  # a wrong fix: now two K♠
    assert response.status_code == 303 and response.headers["Location"].endswith(f"#face-{ace['id']}")
    page = client.get("/training/decks/penguins").data.decode()
    king = [
        face for face in state_of(instance, "penguins")["faces"] if face["name"] == "Ks" and face["id"] != ace["id"]
    ][0]
    classes = tile_classes(page)
    assert "twice" in classes[ace["id"]] and "twice" in classes[king["id"]]  # both faces flagged
    assert "2 faces are named K♠ (photo 1 card" in page and "A♠</span>" in page.split('id="missing"')[1]
    refused = client.post("/training/decks/penguins/save")
    assert refused.status_code == 409 and "2 faces are named K♠" in refused.data.decode()
    assert not (instance / "decks").exists()  # nothing written

    assert client.post(url, data={"action": "leave_out"}).status_code == 303
    page = client.get("/training/decks/penguins").data.decode()
    assert "out" in tile_classes(page)[ace["id"]] and "twice" not in tile_classes(page)[king["id"]]
    assert "is left out" in " ".join(said(page)) and "Put it back" in page and "Save the deck (12 faces)" in page
    assert client.post(url, data={"action": "put_back"}).status_code == 303  # undo
    page = client.get("/training/decks/penguins").data.decode()
    assert "twice" in tile_classes(page)[ace["id"]] and "Save the deck (13 faces)" in page

    before = state_of(instance, "penguins")
    bad = client.post(url, data={"action": "name", "code": "Zz"})
    assert bad.status_code == 400 and "Not a card: &#39;Zz&#39;" in bad.data.decode()
    assert client.post(url, data={"action": "name", "code": ""}).status_code == 400
    assert state_of(instance, "penguins") == before  # a name that is not a card changes nothing
    assert client.post(url, data={"action": "name", "code": "a♠"}).status_code == 303  # any way of writing it
    assert face_named(instance, "penguins", "As")["id"] == ace["id"]
    page = client.get("/training/decks/penguins").data.decode()
    assert not any("twice" in classes for classes in tile_classes(page).values()) and "Missing (39)" in page
    assert client.post("/training/decks/penguins/faces/nothere-01", data={"action": "confirm"}).status_code == 404


def test_saving_writes_the_deck_with_the_deck_writer_and_a_second_tap_writes_nothing(copy):
    app, client, instance = copy
    response = client.post("/training/decks/penguins/save")
    assert response.status_code == 303
    page = client.get("/training/decks/penguins").data.decode()
    assert "Deck penguins saved: 13 faces written; it has 13/52 faces (39 missing)." in said(page)
    (deck,) = learning.taught_decks(instance)
    assert deck["name"] == "penguins" and deck["faces"] == 13 and set(deck["missing"]) == set(CARD_CODES) - set(SPADES)
    meta = json.loads((instance / "decks" / "penguins" / "deck.json").read_text())
    assert meta["taught"] and meta["photos"]["Qs"].startswith("teaching/penguins/photos/")
    assert (instance / "decks" / "penguins" / "preview.png").is_file()
    with Image.open(instance / "decks" / "penguins" / "As.png") as face:  # the library's format: corners cut
        assert face.convert("RGBA").getpixel((0, 0))[3] == 0 and face.height == 340
    assert "Saved in the deck from these photos (13)" in page and "Save the deck" not in page

    client.post("/training/decks/penguins/save")  # a double tap
    assert "Nothing new to save: deck penguins has 13/52 faces (39 missing)." in said(
        client.get("/training/decks/penguins").data.decode()
    )
    assert not (instance / "decks" / "penguins" / "replaced").exists()
    training = client.get("/training").data.decode()
    assert "penguins</strong></a>:" in training and "13/52 faces" in training


def test_unsure_names_must_be_checked_and_a_saved_deck_can_be_taught_more(copy, photos):
    _, client, instance = copy
    assert client.post("/training/decks/penguins/save").status_code == 303  # the spades are in the deck
    response = upload(client, "penguins", (photos["twice"].read_bytes(), "twice.jpg"))
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).data.decode()
    assert "Photo 2 (twice.jpg): 6 cards found, 2 to check." in said(page)
    pending = [face for face in state_of(instance, "penguins")["faces"] if not face["saved"]]
    unsure = [face for face in pending if not face["sure"]]
    assert len(pending) == 6 and len(unsure) == 2  # the two faces of A♥
    classes = tile_classes(page)
    assert all("check" in classes[face["id"]] for face in unsure)
    assert "2 names are still to check" in page

    refused = client.post("/training/decks/penguins/save")  # a wrong card is never taken silently
    assert refused.status_code == 409 and "2 names are still to check" in refused.data.decode()
    assert json.loads((instance / "decks" / "penguins" / "deck.json").read_text())["faces"] == 13

    wrong = next(face for face in unsure if face["name"] != "Ah")  # named A♦ by the one-to-one matching
    right = next(face for face in unsure if face["name"] == "Ah")
    assert client.post(f"/training/decks/penguins/faces/{right['id']}", data={"action": "confirm"}).status_code == 303
    assert client.post(f"/training/decks/penguins/faces/{wrong['id']}", data={"action": "leave_out"}).status_code == 303
    assert client.post("/training/decks/penguins/save").status_code == 303
    meta = json.loads((instance / "decks" / "penguins" / "deck.json").read_text())
    assert meta["faces"] == 18 and "Ad" in meta["missing"] and "Ah" not in meta["missing"]

    # a card photographed again replaces the deck's face; the old one is kept
    spades = photos["spades"].read_bytes()
    assert upload(client, "penguins", (spades, "again.jpg")).status_code == 303
    page = client.get("/training/decks/penguins").data.decode()
    assert "saving it replaces the deck&#39;s A♠" in page or "saving it replaces the deck's A♠" in page
    assert client.post("/training/decks/penguins/save").status_code == 303
    assert "13 faces it had were replaced" in " ".join(said(client.get("/training/decks/penguins").data.decode()))
    replaced = list((instance / "decks" / "penguins" / "replaced").glob("*/As.png"))
    assert len(replaced) == 1


# ---------------------------------------------------------------- bad input: a sentence, nothing lost


def test_bad_names_and_no_photos_are_refused_with_a_sentence(app, client, photos):
    spades = (photos["spades"].read_bytes(), "IMG_0001.jpg")
    cases = {
        "": "Give the deck a name",
        "bad name": "Deck name &#39;bad name&#39;: use 1-40 letters",
        "../x": "use 1-40 letters, digits",
        DECK: "is taken by a deck of the card art library",
    }
    for name, sentence in cases.items():
        response = upload(client, name, spades)
        assert response.status_code == 303 and response.headers["Location"].startswith("/training?deck=")
        page = client.get(response.headers["Location"]).data.decode()
        assert sentence in page, (name, said(page))
        assert "Traceback" not in page
    response = upload(client, "mine")  # no photo
    page = client.get(response.headers["Location"]).data.decode()
    assert "Choose one or more photos of your cards first" in page and 'value="mine"' in page  # the name is kept
    response = upload(client, "mine", (b"these are my notes", "notes.txt"), (b"", "empty.jpg"))
    page = client.get(response.headers["Location"]).data.decode()
    assert "“notes.txt” was not used: that file is not an image we can read" in page
    assert "“empty.jpg” was not used: the upload was empty" in page
    assert not (Path(app.instance_path) / "teaching").exists() and not (Path(app.instance_path) / "decks").exists()


def test_photos_without_usable_cards_are_said_so_and_lose_nothing_taught(copy, photos):
    _, client, instance = copy
    response = upload(
        client,
        "penguins",
        (photos["empty"].read_bytes(), "table.jpg"),
        (photos["blurred"].read_bytes(), "shaky.jpg"),
        (photos["overlap"].read_bytes(), "heap.jpg"),
        (b"GIF89a not really", "x.gif"),
    )
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).data.decode()
    messages = said(page)
    assert "Photo 2 (table.jpg): no card was found in it; lay the cards face up, 1-3 cm apart" in " ".join(messages)
    assert any(m.startswith("Photo 3 (shaky.jpg): the photo is blurred") and "take it again" in m for m in messages)
    assert any(
        m.startswith("Photo 4 (heap.jpg): cards overlap") and "lay the cards 1-3 cm apart" in m for m in messages
    )
    assert "Photo 4 (heap.jpg): 7 cards found." in messages
    assert any("“x.gif” was not used" in m for m in messages)
    assert "Traceback" not in page and "--faces" not in page
    state = state_of(instance, "penguins")
    assert [photo["state"] for photo in state["photos"]] == ["read", "read", "failed", "read"]
    assert len(state["faces"]) == 13 + 7  # the spades taught before are all there, and the clear diamonds
    assert "The photo is blurred" in page.split('id="photos"')[1]  # each photo's notes stay on the page


def test_a_damaged_record_is_said_so_and_the_deck_starts_again_from_its_kept_photos(copy):
    _, client, instance = copy
    folder = instance / "teaching" / "penguins"
    kept = sorted(path.name for path in (folder / "photos").iterdir())
    (folder / "state.json").write_text('{"photos": [{"id": "001', encoding="utf-8")  # cut short
    page = client.get("/training/decks/penguins")
    text = page.data.decode()
    assert page.status_code == 409 and "Traceback" not in text
    assert "The record of teaching deck penguins is damaged" in text
    assert "Its photos are kept: start the deck again from them" in text
    assert client.get("/training").status_code == 200  # the Training page still lists the decks

    response = client.post("/training/decks/penguins/start-again")
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).data.decode()
    assert "Deck penguins starts again from its 1 kept photo" in " ".join(said(page))
    assert [path.name for path in folder.glob("state.json.damaged-*")]  # the damaged record is kept aside
    state = state_of(instance, "penguins")
    assert [(photo["file"], photo["state"], photo["number"]) for photo in state["photos"]] == [(kept[0], "waiting", 1)]
    assert "not read to the end" in page  # the page offers to read it

    response = client.post("/training/decks/penguins/read")
    page = client.get(response.headers["Location"]).data.decode()
    assert sorted(tiles(page).values()) == sorted(card_label(code) for code in SPADES)  # found once more


# ---------------------------------------------------------------- the table PIN and CSRF


def test_writes_need_the_table_pin_and_a_form_token(tmp_path, photos):
    spades = (photos["spades"].read_bytes(), "IMG_0001.jpg")
    pinned = make_app(tmp_path, PIN="4321").test_client()
    response = upload(pinned, "mine", spades)
    assert response.status_code == 302 and "/pin" in response.headers["Location"]
    assert pinned.post("/training/decks/mine/save").status_code == 302
    assert not (tmp_path / "teaching").exists()

    guarded = make_app(tmp_path, WTF_CSRF_ENABLED=True).test_client()
    response = upload(guarded, "mine", spades)
    assert response.status_code == 400 and "The form had expired" in response.data.decode()
    assert not (tmp_path / "teaching").exists()
